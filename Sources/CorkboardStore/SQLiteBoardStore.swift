import CSQLite
public import CorkboardModel
import CorkboardProtocol
public import CorkboardStorage
import Foundation
import Synchronization

/// The embedded board store: one SQLite database in WAL mode holding the board list, snapshots and
/// committed operations.
///
/// Writes go through a `GroupCommitWriter`, one writer thread that groups every operation queued
/// while the previous transaction was committing into the next transaction (group commit), so
/// durability costs one fsync per batch, not per operation. While operations of several boards
/// keep coming, the writer waits `commitGather` after each transaction before taking the next
/// batch, so batches grow and the fsyncs per second fall. Its transactions are this store's
/// (``SQLiteWriteBackend``): operations go to an arrival-ordered journal and move into each
/// board's log a few boards per transaction (``OperationJournal``). Reads use a second connection
/// and do not wait for writes.
public final class SQLiteBoardStore: BoardStore {
    /// How the store trades durability for speed.
    public enum Durability: String, Sendable, CaseIterable {
        /// `synchronous=FULL`: an acknowledged operation survives power loss (the default).
        case full
        /// `synchronous=NORMAL`: it survives a crash of the server but may be lost on power loss.
        case normal
    }

    /// The database file.
    public let path: String
    /// The writer: appends, snapshots and every other write, in order, on its thread.
    let writes: GroupCommitWriter<SQLiteWriteBackend>
    private let reader: Mutex<SQLiteDatabase>
    /// Whether the file has the journal (schema 2); a schema 1 file opened read-only has not.
    private let journaled: Bool
    /// Whether the file has the undo histories' table (`UndoTable`).
    private let hasUndoTable: Bool
    /// Whether the file has the activity feeds' table (`ActivityTable`).
    private let hasActivityTable: Bool
    /// The secret resume tokens derive from, kept in `meta` (`UndoTable.secret`).
    public let resumeSecret: [UInt8]?

    /// The most bytes the WAL file keeps after a checkpoint (`PRAGMA journal_size_limit`).
    static let walSizeLimit = 64 << 20

    /// The writer connection's page cache, in KiB (SQLite's default is 2,000).
    static let writerCacheKiB = 16_384

    /// The schema this build writes; it reads schema 1 files too (upgrading them when writable).
    static let schemaVersion = "2"

    /// The default wait after a transaction of operations before the writer takes the next batch.
    public static let defaultCommitGather = Duration.milliseconds(2)

    /// The default number of journal rows that starts a fold cycle (``OperationJournal``): at
    /// 2,000 operations a second, a cycle every 4 s, each board's leaf written once per cycle.
    public static let defaultFoldRows = 8_192

    /// The default bytes of journal rows that start a fold cycle, whatever their count
    /// (``OperationJournal``): big operations fold long before 8,192 of them wait.
    public static let defaultFoldBytes = OperationJournal.defaultFoldBytes

    /// The database file in a data folder.
    public static func path(inDataFolder folder: String) -> String {
        (folder as NSString).appendingPathComponent("corkboard.sqlite")
    }

    /// Opens or creates the database, in WAL mode, with the schema (a schema 1 file is upgraded:
    /// it gets the journal).
    ///
    /// - Parameters:
    ///   - metrics: where the writer times its transactions (`corkboard_store_…`).
    ///   - commitGather: how long the writer waits after a transaction of operations before it
    ///     takes the next batch, for 100 ms after a transaction with operations of two boards or
    ///     more: each acknowledgement may wait this much longer, and transactions (and fsyncs) are
    ///     that much fewer. A lone operation, or one busy board, is written at once. Zero turns the
    ///     wait off.
    ///   - foldRows: journal rows that start a fold cycle into the boards' logs (``OperationJournal``).
    ///   - foldBytes: bytes of journal rows that start one, whichever comes first.
    /// - Throws: `StoreError` when the file cannot be opened, is not a Corkboard database, or was
    ///   written by a newer version.
    public init(
        path: String, durability: Durability = .full, metrics: StoreMetrics = .system,
        commitGather: Duration = SQLiteBoardStore.defaultCommitGather,
        foldRows: Int = SQLiteBoardStore.defaultFoldRows, foldBytes: Int = SQLiteBoardStore.defaultFoldBytes
    ) throws(StoreError) {
        self.path = path
        let writer = try SQLiteDatabase(path: path)
        try writer.execute("PRAGMA journal_mode=WAL")
        try writer.execute("PRAGMA synchronous=\(durability == .full ? "FULL" : "NORMAL")")
        // A checkpoint leaves the WAL file at its largest size unless told to truncate it: with
        // operations of a megabyte each it would keep the size of the busiest moment (R18).
        try writer.execute("PRAGMA journal_size_limit=\(Self.walSizeLimit)")
        // The writer appends to every open board's log, one B-tree leaf each: with SQLite's 2 MiB
        // default, 1,000 busy boards' leaves do not stay cached and each commit reads pages back.
        try writer.execute("PRAGMA cache_size=-\(Self.writerCacheKiB)")
        try writer.execute(
            """
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS boards (
                position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, record TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS snapshots (
                board TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (board, seq)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS operations (
                board TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (board, seq)) WITHOUT ROWID;
            INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '\(Self.schemaVersion)');
            """)
        let schema = try writer.scalarText("SELECT value FROM meta WHERE key = 'schema'")
        guard schema == "1" || schema == Self.schemaVersion else { throw Self.newerSchema(path, schema) }
        // Schema 2 adds the journal; an older build refuses the file from then on, so it never
        // loads a board without the operations still in the journal.
        try writer.execute(
            """
            BEGIN IMMEDIATE;
            \(OperationJournal.createTable)
            UPDATE meta SET value = '\(Self.schemaVersion)' WHERE key = 'schema';
            \(UndoTable.createTable)
            \(ActivityTable.createTable)
            COMMIT;
            """)
        hasUndoTable = true
        hasActivityTable = true
        do {
            try RoleKeysUpgrade.run(writer)
        } catch {
            throw error as? StoreError
                ?? StoreError(.invalidData, "Giving boards their comment and admin keys: \(error)")
        }
        resumeSecret = try UndoTable.secret(writer, creating: true)
        var journal = OperationJournal(foldRows: foldRows, foldBytes: foldBytes)
        try journal.load(writer)
        journaled = true
        writes = GroupCommitWriter(
            backend: SQLiteWriteBackend(database: writer, journal: journal), label: "corkboard.store.writer",
            metrics: metrics, commitGather: commitGather)
        self.reader = Mutex(try SQLiteDatabase(path: path, readOnly: true))
    }

    /// Opens an existing database for reading only (`corkboard check`, `corkboard boards list`):
    /// nothing is created or changed, so a store on a read-only file or mount can be checked.
    ///
    /// Both connections are read-only; a write (an append, a snapshot, a probe) fails.
    ///
    /// - Throws: `StoreError` when the file cannot be opened or is not a Corkboard database.
    public init(readingOnly path: String) throws(StoreError) {
        self.path = path
        let reader: SQLiteDatabase
        if let plain = try? SQLiteDatabase(path: path, readOnly: true),
            (try? plain.scalarText("SELECT value FROM meta WHERE key = 'schema'")) != nil
        {
            reader = plain
        } else {
            // A WAL database whose folder is read-only cannot get its shared-memory file: read it
            // as an immutable file instead (nothing else may write it meanwhile).
            reader = try SQLiteDatabase(path: "file:\(path)?immutable=1", readOnly: true, uri: true)
        }
        let schema = try reader.scalarText("SELECT value FROM meta WHERE key = 'schema'")
        guard schema == "1" || schema == Self.schemaVersion else { throw Self.newerSchema(path, schema) }
        journaled = schema == Self.schemaVersion
        hasUndoTable = try UndoTable.exists(reader)
        hasActivityTable = try ActivityTable.exists(reader)
        resumeSecret = try UndoTable.secret(reader, creating: false)
        let readerPath = reader.path
        writes = GroupCommitWriter(
            backend: SQLiteWriteBackend(database: reader, journal: OperationJournal(foldRows: 1)),
            label: "corkboard.store.writer", metrics: .system)
        self.reader = Mutex(try SQLiteDatabase(path: readerPath, readOnly: true, uri: readerPath.hasPrefix("file:")))
    }

    /// The error for a file of a schema this build does not know.
    private static func newerSchema(_ path: String, _ schema: String?) -> StoreError {
        StoreError(
            .invalidData,
            "\(path) has schema \(schema ?? "?"); this build reads schemas 1 and \(schemaVersion). Upgrade the server.")
    }

    /// Deletes a board with everything stored for it (record, snapshots, operations) in one
    /// transaction; `false` when there was no such board.
    ///
    /// - Throws: `StoreError` when the transaction fails (nothing is deleted then).
    public func deleteBoard(_ id: String) throws(StoreError) -> Bool {
        try storeErrors {
            try writes.sync {
                let existed = try writes.backend.database.withLock { db in
                    try transaction(db) { () throws -> Bool in
                        let record = try db.statement("DELETE FROM boards WHERE id = ?")
                        record.bind(1, id)
                        try record.step()
                        let existed = sqlite3_changes(db.handle) > 0
                        for table in ["snapshots", "operations", "journal", "undo_entries", "activity"] {
                            let rows = try db.statement("DELETE FROM \(table) WHERE board = ?")
                            rows.bind(1, id)
                            try rows.step()
                        }
                        writes.forgetStoredSeq(of: id)
                        if existed { try bumpCatalogGeneration(db) }
                        return existed
                    }
                }
                writes.backend.journal.withLock { $0.removed(id) }
                return existed
            }
        }
    }

    // MARK: BoardCatalog

    /// Every board record, in creation order.
    public func load() throws -> [BoardRecord] {
        try reader.withLock { db in
            defer { db.resetStatements() }
            let statement = try db.statement("SELECT id, record FROM boards ORDER BY position")
            var records: [BoardRecord] = []
            while try statement.step() {
                let id = statement.text(0) ?? "?"
                do {
                    records.append(
                        try JSONDecoder().decode(BoardRecord.self, from: Data((statement.text(1) ?? "").utf8)))
                } catch {
                    throw StoreError(.invalidData, "The record of board \(id) does not decode: \(error).")
                }
            }
            return records
        }
    }

    /// Replaces the board list (new boards are appended in order; removed ones lose their record).
    public func save(_ records: [BoardRecord]) throws {
        try writes.sync {
            try writes.backend.database.withLock { db in
                try transaction(db) {
                    let ids = records.map(\.id)
                    let existing = try db.statement("SELECT id FROM boards")
                    var stale: [String] = []
                    while try existing.step() { if let id = existing.text(0), !ids.contains(id) { stale.append(id) } }
                    for id in stale {
                        let delete = try db.statement("DELETE FROM boards WHERE id = ?")
                        delete.bind(1, id)
                        try delete.step()
                    }
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = .sortedKeys
                    for record in records {
                        let upsert = try db.statement(
                            "INSERT INTO boards (id, record) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record"
                        )
                        upsert.bind(1, record.id)
                        let json = (try? encoder.encode(record)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                        upsert.bind(2, json)
                        try upsert.step()
                    }
                    try bumpCatalogGeneration(db)
                }
            }
        }
    }

    /// Changes one board's record in one immediate transaction (the database's write lock, also
    /// against another process such as `corkboard boards invite` while a server runs). The
    /// transaction spans three turns of the write connection's lock, all on the writer's queue
    /// (`writes.sync`), which is the only user of that connection: `change` runs between them,
    /// outside the lock.
    ///
    /// - Throws: `CatalogError` when there is no such board; what `change` throws (nothing is
    ///   written then); `StoreError` when the database fails.
    @discardableResult
    public func updateRecord(_ id: String, _ change: (inout BoardRecord) throws -> Void) throws -> BoardRecord {
        try writes.sync { () throws -> BoardRecord in
            let json: String = try writes.backend.database.withLock { db in
                try db.execute("BEGIN IMMEDIATE")
                defer { db.resetStatements() }
                let select = try db.statement("SELECT record FROM boards WHERE id = ?")
                select.bind(1, id)
                guard try select.step() else {
                    db.resetStatements()
                    try? db.execute("ROLLBACK")
                    throw CatalogError.noBoard(id)
                }
                return select.text(0) ?? ""
            }
            var record: BoardRecord
            do {
                do {
                    record = try JSONDecoder().decode(BoardRecord.self, from: Data(json.utf8))
                } catch {
                    throw StoreError(.invalidData, "The record of board \(id) does not decode: \(error).")
                }
                try change(&record)
            } catch {
                writes.backend.database.withLock { db in _ = try? db.execute("ROLLBACK") }
                throw error
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let text = String(decoding: try encoder.encode(record), as: UTF8.self)
            try writes.backend.database.withLock { db in
                do {
                    let update = try db.statement("UPDATE boards SET record = ? WHERE id = ?")
                    update.bind(1, text)
                    update.bind(2, id)
                    try update.step()
                    try bumpCatalogGeneration(db)
                    db.resetStatements()
                    try db.execute("COMMIT")
                } catch {
                    db.resetStatements()
                    try? db.execute("ROLLBACK")
                    throw error
                }
            }
            return record
        }
    }

    /// The catalog's generation: bumped in the transaction of every change to the board list.
    public func generation() throws -> Int? {
        try reader.withLock { db in
            defer { db.resetStatements() }
            return Int(try db.scalarText("SELECT value FROM meta WHERE key = 'catalog'") ?? "0") ?? 0
        }
    }

    private func bumpCatalogGeneration(_ db: SQLiteDatabase) throws(StoreError) {
        try db.execute(
            "INSERT INTO meta (key, value) VALUES ('catalog', '1') "
                + "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")
    }

    // MARK: BoardStore

    /// The latest snapshot of a board and its retained operations.
    public func load(board: String) throws(StoreError) -> StoredBoard? {
        try storeErrors {
            try reader.withLock { db in
                try transaction(db, immediate: false) { () -> StoredBoard? in
                    let latest = try db.statement(
                        "SELECT seq, data FROM snapshots WHERE board = ? ORDER BY seq DESC LIMIT 1")
                    latest.bind(1, board)
                    guard try latest.step() else { return nil }
                    let snapshot: Snapshot
                    do {
                        snapshot = try Snapshot(jsonData: Data(latest.blob(1)))
                    } catch {
                        throw StoreError(
                            .invalidData, "The snapshot of \(board) at seq \(latest.int(0)) does not decode: \(error).")
                    }
                    let ops = try db.statement(journaled ? OperationJournal.loadBoth : OperationJournal.loadLogOnly)
                    ops.bind(1, board)
                    var log: [CommittedOperation] = []
                    let decoder = JSONDecoder()
                    while try ops.step() {
                        do {
                            log.append(try decoder.decode(CommittedOperation.self, from: Data(ops.blob(1))))
                        } catch {
                            throw StoreError(
                                .invalidData, "Operation \(ops.int(0)) of \(board) does not decode: \(error).")
                        }
                    }
                    let undo = hasUndoTable ? try UndoTable.load(db, board: board) : []
                    let activity = hasActivityTable ? try ActivityTable.load(db, board: board) : []
                    return StoredBoard(snapshot: snapshot, log: log, undo: undo, activity: activity)
                }
            }
        }
    }

    /// Queues operations for the next transaction, all parts or none; see
    /// `BoardStore.append(atomically:)`.
    public func append(atomically parts: [BoardAppend]) { writes.append(parts) }

    /// Queues a snapshot and the compaction of the log before it.
    public func saveSnapshot(board: String, snapshot: Snapshot, retainingLog: Int) {
        writes.saveSnapshot(SnapshotWrite(board: board, snapshot: snapshot, retainingLog: retainingLog))
    }

    /// Waits for every queued write.
    public func drain() { writes.drain() }

    /// The last transaction's failure, or `nil` when it committed.
    public var lastFailure: StoreError? { writes.lastFailure }

    /// While the last transaction failed, tries a one-row write transaction behind the queued
    /// writes, so the store reports healthy again (and `/healthz`) as soon as the disk has room or
    /// the file is writable. Returns at once; does nothing while the store is healthy.
    public func probeWhileFailing() { writes.probeWhileFailing() }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound file, else the problems found.
    public func integrityCheck() throws(StoreError) -> [String] {
        try storeErrors {
            try reader.withLock { db in
                defer { db.resetStatements() }
                let statement = try db.statement("PRAGMA integrity_check")
                var lines: [String] = []
                while try statement.step() { lines.append(statement.text(0) ?? "") }
                return lines
            }
        }
    }
}
