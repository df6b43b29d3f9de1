public import CorkboardModel
import CorkboardProtocol
public import CorkboardStorage
import Foundation
public import Logging
import NIOCore
import PostgresNIO

/// The shared board store on PostgreSQL: the board list, snapshots and committed operations of
/// every board, for any number of server nodes at once (and the command-line tools).
///
/// Like the SQLite store, writes go through a `GroupCommitWriter`, one writer thread that puts
/// every append queued while the previous transaction was committing into the next one (group
/// commit), so one commit (one WAL flush with `synchronous_commit=on`) serves many operations and
/// boards. Its transactions are this store's (``PostgresWriteBackend``): each first locks the
/// leases of the boards it writes (`FOR SHARE`) and checks their fencing epochs: an append
/// sequenced under an epoch that is no longer its board's (another node took the board over) fails
/// with `StoreError.Kind.fenced` and writes nothing, and no claim can slip in between the check and
/// the commit. Reads use a second connection and never wait for writes.
public final class PostgresBoardStore: BoardStore {
    /// Where the database is.
    public let url: PostgresURL
    let writer: PostgresSession
    let reader: PostgresSession
    /// The writer: appends, snapshots and every other write, in order, on its thread (it times its
    /// transactions into `corkboard_store_…`, the same series as the SQLite store's).
    let writes: GroupCommitWriter<PostgresWriteBackend>

    /// Connects, creates or upgrades the schema (`migrate`), or checks it is current.
    ///
    /// - Parameters:
    ///   - url: The database.
    ///   - migrate: Create or upgrade the schema (a server starting, `corkboard migrate`); otherwise
    ///     a database without the current schema is refused.
    ///   - transactionTimeout: The server ends the writer's session when a transaction of it stays
    ///     idle this long (its node stalled: a pause, a partition), so the leases it locked for share
    ///     do not hold up the node taking its boards over. Keep it below the lease duration.
    ///   - logger: Where connection problems are logged.
    ///   - metrics: Where the writer times its transactions and counts their sizes
    ///     (`corkboard_store_…`).
    /// - Throws: `StoreError` when the database cannot be reached, refuses the login, or has a
    ///   schema this build cannot use; the message says which and what to do.
    public init(
        url: PostgresURL, migrate: Bool = true, transactionTimeout: Duration = .seconds(2), logger: Logger,
        metrics: StoreMetrics = .system
    ) throws(StoreError) {
        self.url = url
        let (seconds, attoseconds) = transactionTimeout.components
        let milliseconds = max(100, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let writer = try PostgresSession(
            url: url, logger: logger, settings: [("idle_in_transaction_session_timeout", "\(milliseconds)")])
        self.writer = writer
        reader = try PostgresSession(url: url, logger: logger)
        writes = GroupCommitWriter(
            backend: PostgresWriteBackend(session: writer, logger: logger), label: "corkboard.postgres.writer",
            metrics: metrics)
        if migrate {
            let outcome = try PostgresSchema.migrate(writer)
            if outcome.from != outcome.to {
                logger.notice(
                    "PostgreSQL schema migrated",
                    metadata: ["from": "\(outcome.from)", "to": "\(outcome.to)", "database": "\(url)"])
            }
        } else {
            try PostgresSchema.check(reader)
        }
    }

    /// Creates or upgrades the schema; returns the versions before and after.
    ///
    /// - Throws: `StoreError` as `init`.
    public static func migrate(url: PostgresURL, logger: Logger) throws(StoreError) -> (from: Int, to: Int) {
        let session = try PostgresSession(url: url, logger: logger)
        defer { session.close() }
        let outcome = try PostgresSchema.migrate(session)
        return (outcome.from, outcome.to)
    }

    /// The schema version this build reads and writes.
    public static var schemaVersion: Int { PostgresSchema.current }

    /// Closes the connections after the queued writes.
    public func close() {
        drain()
        writer.close()
        reader.close()
    }

    // MARK: BoardCatalog

    /// Every board record, in creation order.
    public func load() throws -> [BoardRecord] {
        let rows = try reader.run(
            "SELECT id, record FROM corkboard_boards ORDER BY created_order", doing: "Reading the board list")
        let decoder = JSONDecoder()
        return try rows.map { row throws(StoreError) -> BoardRecord in
            let (id, json) = try decodeRow(row, as: (String, String).self)
            do {
                return try decoder.decode(BoardRecord.self, from: Data(json.utf8))
            } catch {
                throw StoreError(.invalidData, "The record of board \(id) does not decode: \(error).")
            }
        }
    }

    /// Replaces the board list: records not in `records` are removed, the others added or updated
    /// (new ones after the existing ones).
    public func save(_ records: [BoardRecord]) throws {
        let ids = records.map(\.id)
        let json = records.map(Self.json)
        try writes.sync { () throws(StoreError) in
            try writer.transaction(doing: "Saving the board list") { () throws(StoreError) in
                _ = try writer.run(
                    "DELETE FROM corkboard_boards WHERE NOT (id = ANY(\(ids)))", doing: "Removing boards")
                _ = try writer.run(
                    """
                    INSERT INTO corkboard_boards (id, record) SELECT * FROM unnest(\(ids)::text[], \(json)::text[])
                    ON CONFLICT (id) DO UPDATE SET record = excluded.record
                    """, doing: "Saving boards")
            }
        }
    }

    /// The catalog's generation: a trigger bumps it in the transaction of every statement that
    /// changes the board list, on any node or tool, so a reader checks one row instead of every record.
    public func generation() throws -> Int? {
        let rows = try reader.run(
            "SELECT coalesce((SELECT value FROM corkboard_meta WHERE key = 'catalog'), '0')",
            doing: "Reading the board list's generation")
        guard let row = rows.first, let value = Int(try decodeRow(row, as: String.self)) else {
            throw StoreError(.invalidData, "The catalog generation in corkboard_meta is not a number.")
        }
        return value
    }

    /// Adds a board atomically: two processes adding the same id cannot both succeed, and adding
    /// never touches other records.
    ///
    /// - Throws: `CatalogError` when the id is taken or malformed; `StoreError` when the database fails.
    public func add(_ record: BoardRecord) throws {
        try Self.validate(id: record.id)
        let result = try writes.sync { () throws(StoreError) in
            try writer.run(
                """
                INSERT INTO corkboard_boards (id, record) VALUES (\(record.id), \(Self.json(record)))
                ON CONFLICT (id) DO NOTHING
                """, doing: "Adding board \(record.id)")
        }
        guard result.metadata.rows == 1 else {
            throw CatalogError("A board \"\(record.id)\" already exists; choose another id.")
        }
    }

    /// Changes one board's record in one transaction (`SELECT … FOR UPDATE`): two nodes claiming
    /// the same one-use invite at once are one after the other, and the second sees the use.
    ///
    /// - Throws: `CatalogError` when there is no such board; what `change` throws (nothing is
    ///   written then); `StoreError` when the database fails.
    @discardableResult
    public func updateRecord(_ id: String, _ change: (inout BoardRecord) throws -> Void) throws -> BoardRecord {
        var refusal: (any Error)?
        let updated = try writes.sync { () throws(StoreError) -> BoardRecord? in
            try writer.transaction(doing: "Changing the record of \(id)") { () throws(StoreError) -> BoardRecord? in
                let rows = try writer.run(
                    "SELECT record FROM corkboard_boards WHERE id = \(id) FOR UPDATE", doing: "Reading board \(id)")
                guard let row = rows.first else { return nil }
                let json = try decodeRow(row, as: String.self)
                guard var record = try? JSONDecoder().decode(BoardRecord.self, from: Data(json.utf8)) else {
                    throw StoreError(.invalidData, "The record of board \(id) does not decode.")
                }
                do {
                    try change(&record)
                } catch {
                    refusal = error
                    return nil
                }
                _ = try writer.run(
                    "UPDATE corkboard_boards SET record = \(Self.json(record)) WHERE id = \(id)",
                    doing: "Saving board \(id)")
                return record
            }
        }
        if let refusal { throw refusal }
        guard let updated else { throw CatalogError.noBoard(id) }
        return updated
    }

    /// Deletes a board with its snapshots, operations, lease, undo histories and activity feed in
    /// one transaction; `false` when there was no such board.
    ///
    /// - Throws: `StoreError` when the transaction fails (nothing is deleted then).
    public func deleteBoard(_ id: String) throws(StoreError) -> Bool {
        try writes.sync { () throws(StoreError) -> Bool in
            try writer.transaction(doing: "Deleting board \(id)") { () throws(StoreError) -> Bool in
                let deleted = try writer.run("DELETE FROM corkboard_boards WHERE id = \(id)", doing: "Deleting \(id)")
                _ = try writer.run("DELETE FROM corkboard_snapshots WHERE board = \(id)", doing: "Deleting snapshots")
                _ = try writer.run("DELETE FROM corkboard_operations WHERE board = \(id)", doing: "Deleting operations")
                _ = try writer.run("DELETE FROM corkboard_leases WHERE board = \(id)", doing: "Deleting the lease")
                _ = try writer.run("DELETE FROM corkboard_undo WHERE board = \(id)", doing: "Deleting undo histories")
                _ = try writer.run(
                    "DELETE FROM corkboard_activity WHERE board = \(id)", doing: "Deleting the activity feed")
                writes.forgetStoredSeq(of: id)
                return deleted.metadata.rows == 1
            }
        }
    }

    // MARK: BoardStore

    /// The latest snapshot of a board, its retained operations and its activity feed (oldest
    /// first), read in one statement (one consistent view of the database: the feed reports
    /// exactly the operations committed), then its undo histories.
    public func load(board: String) throws(StoreError) -> StoredBoard? {
        let rows = try reader.run(
            """
            SELECT 0 AS part, seq, data FROM (
                SELECT seq, data FROM corkboard_snapshots WHERE board = \(board) ORDER BY seq DESC LIMIT 1) AS s
            UNION ALL
            SELECT 1, seq, data FROM corkboard_operations WHERE board = \(board)
            UNION ALL
            SELECT 2, seq, data FROM corkboard_activity WHERE board = \(board)
            ORDER BY part, seq
            """, doing: "Loading board \(board)")
        // The writer reads the board's stored seq again before its next append.
        writes.forgetStoredSeq(of: board)
        guard let first = rows.first else { return nil }
        let (part, seq, data) = try decodeRow(first, as: (Int32, Int64, ByteBuffer).self)
        guard part == 0 else {
            throw StoreError(
                .invalidData, "Board \(board) has stored rows but no snapshot; restore it from an export.")
        }
        let snapshot: Snapshot
        do {
            snapshot = try Snapshot(jsonData: Data(buffer: data))
        } catch {
            throw StoreError(.invalidData, "The snapshot of \(board) at seq \(seq) does not decode: \(error).")
        }
        var log: [CommittedOperation] = []
        var activity: [ActivityRecords.Record] = []
        let decoder = JSONDecoder()
        for row in rows.dropFirst() {
            let (part, seq, data) = try decodeRow(row, as: (Int32, Int64, ByteBuffer).self)
            guard part == 1 else {
                activity.append(ActivityRecords.Record(seq: Int(seq), json: Array(data.readableBytesView)))
                continue
            }
            do {
                log.append(try decoder.decode(CommittedOperation.self, from: Data(buffer: data)))
            } catch {
                throw StoreError(.invalidData, "Operation \(seq) of \(board) does not decode: \(error).")
            }
        }
        return StoredBoard(
            snapshot: snapshot, log: log, undo: try PostgresUndoWrites.load(reader, board: board), activity: activity)
    }

    /// Queues operations for the next transaction, all parts or none; see
    /// `BoardStore.append(atomically:)`.
    public func append(atomically parts: [BoardAppend]) { writes.append(parts) }

    /// Queues a snapshot without a fence (an import, a tool).
    public func saveSnapshot(board: String, snapshot: Snapshot, retainingLog: Int) {
        saveSnapshot(board: board, snapshot: snapshot, retainingLog: retainingLog, epoch: nil)
    }

    /// Queues a snapshot written only while `epoch` is still the board's.
    public func saveSnapshot(board: String, snapshot: Snapshot, retainingLog: Int, epoch: Int?) {
        writes.saveSnapshot(SnapshotWrite(board: board, snapshot: snapshot, retainingLog: retainingLog, epoch: epoch))
    }

    /// Waits for every queued write.
    public func drain() { writes.drain() }

    /// The last transaction's failure, or `nil` when it committed.
    public var lastFailure: StoreError? { writes.lastFailure }

    /// While the last transaction failed, tries a one-row write behind the queued writes, so the
    /// store reports healthy again as soon as the database is back.
    public func probeWhileFailing() { writes.probeWhileFailing() }

    /// Each board with its number of stored operations and snapshot seq, and the schema version:
    /// what `corkboard check` reports on PostgreSQL.
    public func describe() throws(StoreError) -> String {
        let version = try PostgresSchema.version(reader)
        let rows = try reader.run(
            "SELECT count(*), coalesce(max(epoch), 0) FROM corkboard_operations", doing: "Counting operations")
        let (count, epoch) = try decodeRow(rows.first!, as: (Int64, Int64).self)
        return "schema \(version), \(count) stored operations, highest epoch \(epoch)"
    }

    static func json(_ record: BoardRecord) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(record)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// Decodes a row's columns, as a `StoreError` when they are not the expected types.
func decodeRow<each Column: PostgresDecodable>(_ row: PostgresRow, as type: (repeat each Column).Type)
    throws(StoreError) -> (repeat each Column)
{
    do {
        return try row.decode(type)
    } catch {
        throw StoreError(.invalidData, "A row of the database does not have the expected columns: \(error).")
    }
}

extension Data {
    /// The readable bytes of a buffer.
    init(buffer: ByteBuffer) {
        self = Data(buffer.readableBytesView)
    }
}
