import CorkboardStorage
import Foundation
import PostgresNIO

/// Corkboard's tables in PostgreSQL and the migrations that create and upgrade them.
///
/// Every table is prefixed `corkboard_`, so the database may hold other things. `corkboard_meta`
/// records the schema version and the cluster's shared secret. Migrations run in one transaction
/// under an advisory lock, so nodes starting together migrate once; a database of a newer schema
/// is refused.
///
/// | table | rows |
/// |---|---|
/// | `corkboard_boards` | the board list: id, JSON record, creation order |
/// | `corkboard_snapshots` | the latest snapshot of each board (seq, JSON) |
/// | `corkboard_operations` | each board's committed operations (seq, the writer's epoch, JSON) |
/// | `corkboard_nodes` | the cluster's nodes: id, public URL, last heartbeat |
/// | `corkboard_leases` | which node sequences each board: owner, fencing epoch, expiry |
/// | `corkboard_moves` | the outcome of each move between boards of two nodes |
/// | `corkboard_messages` | messages between nodes, deleted as they are read |
/// | `corkboard_undo` | each client's undo and redo entries per board (schema 2) |
/// | `corkboard_activity` | each board's activity feed: seq, the entry's JSON (schema 3) |
enum PostgresSchema {
    /// The schema this build reads and writes.
    static let current = 3

    /// The statements of each migration; migration `n` (1-based) brings the schema to version `n`.
    static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE IF NOT EXISTS corkboard_boards (
                created_order bigserial, id text PRIMARY KEY, record text NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS corkboard_snapshots (
                board text NOT NULL, seq bigint NOT NULL, data bytea NOT NULL, PRIMARY KEY (board, seq))
            """,
            """
            CREATE TABLE IF NOT EXISTS corkboard_operations (
                board text NOT NULL, seq bigint NOT NULL, epoch bigint NOT NULL, data bytea NOT NULL,
                PRIMARY KEY (board, seq))
            """,
            """
            CREATE TABLE IF NOT EXISTS corkboard_nodes (
                id text PRIMARY KEY, url text NOT NULL, started_at timestamptz NOT NULL DEFAULT now(),
                heartbeat_at timestamptz NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS corkboard_leases (
                board text PRIMARY KEY, owner text NOT NULL, epoch bigint NOT NULL, expires_at timestamptz NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS corkboard_moves (
                id text PRIMARY KEY, outcome text NOT NULL, decided_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE IF NOT EXISTS corkboard_messages (
                id bigserial PRIMARY KEY, recipient text NOT NULL, body bytea NOT NULL,
                sent_at timestamptz NOT NULL DEFAULT now())
            """,
            "CREATE INDEX IF NOT EXISTS corkboard_messages_recipient ON corkboard_messages (recipient, id)",
            // The catalog's generation: every statement that changes the board list bumps it in its
            // own transaction, whoever runs it (a node, `corkboard boards`, psql).
            """
            CREATE OR REPLACE FUNCTION corkboard_bump_catalog() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO corkboard_meta (key, value) VALUES ('catalog', '1')
                ON CONFLICT (key) DO UPDATE SET value = (corkboard_meta.value::bigint + 1)::text;
                RETURN NULL;
            END $$
            """,
            "DROP TRIGGER IF EXISTS corkboard_boards_changed ON corkboard_boards",
            """
            CREATE TRIGGER corkboard_boards_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
            ON corkboard_boards FOR EACH STATEMENT EXECUTE FUNCTION corkboard_bump_catalog()
            """,
        ],
        [
            // Undo histories survive a failover (R13): the new owner loads them with the board.
            """
            CREATE TABLE IF NOT EXISTS corkboard_undo (
                board text NOT NULL, client text NOT NULL, seq bigint NOT NULL, stack text NOT NULL,
                data bytea NOT NULL, PRIMARY KEY (board, client, seq))
            """
        ],
        [
            // Activity feeds survive a failover (issue 43): the new owner loads them with the board.
            """
            CREATE TABLE IF NOT EXISTS corkboard_activity (
                board text NOT NULL, seq bigint NOT NULL, data bytea NOT NULL, PRIMARY KEY (board, seq))
            """
        ],
    ]

    /// What a migration did.
    struct Outcome: Equatable {
        /// The version found (0 for an empty database).
        var from: Int
        /// The version now.
        var to: Int
    }

    /// Creates or upgrades the schema to `current`.
    ///
    /// - Throws: `StoreError` when the database cannot be reached, the role may not create tables,
    ///   or the schema is newer than this build.
    static func migrate(_ session: PostgresSession) throws(StoreError) -> Outcome {
        try session.transaction(doing: "Migrating the schema") { () throws(StoreError) -> Outcome in
            // Nodes starting together: one migrates, the others wait here and then find it done.
            _ = try session.run("SELECT pg_advisory_xact_lock(7306101)", doing: "Locking the schema")
            _ = try session.run(
                "CREATE TABLE IF NOT EXISTS corkboard_meta (key text PRIMARY KEY, value text NOT NULL)",
                doing: "Creating corkboard_meta")
            let found = try version(session)
            guard found <= current else { throw newer(found, session) }
            for version in stride(from: found + 1, through: current, by: 1) {
                for statement in migrations[version - 1] {
                    _ = try session.run(statement, doing: "Migration \(version)")
                }
            }
            try giveRoleKeys(session)
            let secret = RandomToken.make(bytes: 32)
            _ = try session.run(
                """
                INSERT INTO corkboard_meta (key, value) VALUES ('schema', \(String(current))), ('secret', \(secret))
                ON CONFLICT (key) DO UPDATE SET value = CASE WHEN corkboard_meta.key = 'schema'
                    THEN excluded.value ELSE corkboard_meta.value END
                """, doing: "Recording the schema version")
            return Outcome(from: found, to: current)
        }
    }

    /// Gives the boards of an older build their comment and admin keys (R17): new 128-bit random
    /// keys, in the migration's transaction (so nodes starting together agree on them); the edit
    /// and view keys, and so every link already shared, stay. Records are JSON, so this needs no
    /// new schema version and an older node still reads them.
    static func giveRoleKeys(_ session: PostgresSession) throws(StoreError) {
        let rows = try session.run(
            """
            SELECT id, record FROM corkboard_boards
            WHERE coalesce(record::jsonb -> 'keys' ->> 'admin', '') = ''
                OR coalesce(record::jsonb -> 'keys' ->> 'comment', '') = ''
            FOR UPDATE
            """, doing: "Finding boards without comment and admin keys")
        for row in rows {
            let (id, json) = try decodeRow(row, as: (String, String).self)
            guard var record = try? JSONDecoder().decode(BoardRecord.self, from: Data(json.utf8)),
                record.keys.lacksRoleKeys
            else { continue }
            record.keys = record.keys.withRoleKeys()
            _ = try session.run(
                "UPDATE corkboard_boards SET record = \(PostgresBoardStore.json(record)) WHERE id = \(id)",
                doing: "Giving board \(id) its comment and admin keys")
        }
    }

    /// Checks the schema is the one this build reads, without changing anything.
    ///
    /// - Throws: `StoreError` naming the version found and what to run.
    static func check(_ session: PostgresSession) throws(StoreError) {
        let found = try version(session)
        guard found <= current else { throw newer(found, session) }
        guard found == current else {
            throw StoreError(
                .invalidData,
                "The database \(session.url.database) has Corkboard schema \(found), this build needs "
                    + "\(current); run `corkboard migrate --postgres-url URL` (or start `corkboard serve`, "
                    + "which migrates).")
        }
    }

    /// The recorded schema version; 0 when the database has no Corkboard tables.
    static func version(_ session: PostgresSession) throws(StoreError) -> Int {
        let exists = try session.run(
            "SELECT to_regclass('corkboard_meta') IS NOT NULL", doing: "Looking for Corkboard's tables")
        guard (try? exists.first?.decode(Bool.self)) == true else { return 0 }
        let rows = try session.run(
            "SELECT coalesce(max(value), '0') FROM corkboard_meta WHERE key = 'schema'",
            doing: "Reading the schema version")
        guard let row = rows.first, let text = try? row.decode(String.self), let version = Int(text) else {
            throw StoreError(.invalidData, "The schema version in corkboard_meta is not a number.")
        }
        return version
    }

    private static func newer(_ found: Int, _ session: PostgresSession) -> StoreError {
        StoreError(
            .invalidData,
            "The database \(session.url.database) has Corkboard schema \(found); this build reads schema "
                + "\(current). Upgrade the server.")
    }
}
