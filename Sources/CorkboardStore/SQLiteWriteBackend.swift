import CSQLite
import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Foundation
import Synchronization

/// The SQLite store's transactions, for its `GroupCommitWriter` (which decides what goes into
/// each one): operations into the arrival-ordered journal, or straight into the board's log when
/// they are all of one board with none of its rows waiting there (``OperationJournal``); the undo
/// histories that changed with them; the journal's next fold step; snapshots and the compaction
/// behind them.
final class SQLiteWriteBackend: GroupCommitBackend {
    /// The writer's connection (the read-only one, for a store opened for reading only).
    let database: Mutex<SQLiteDatabase>
    /// The journal rows not yet in the boards' logs, and the fold cycle.
    let journal: Mutex<OperationJournal>

    /// One append's operations, encoded, and its undo histories' changes.
    struct Rows {
        var operations: [(board: String, seq: Int, data: [UInt8])] = []
        var undo: [(board: String, changes: UndoHistory.Changes)] = []
        var activity: [(board: String, records: ActivityRecords)] = []
    }

    /// Transactions on `database`.
    init(database: sending SQLiteDatabase, journal: sending OperationJournal) {
        self.database = Mutex(database)
        self.journal = Mutex(journal)
    }

    /// The highest seq stored for a board, in its log, the journal or a snapshot (0 for none).
    func storedSeq(of board: String) throws(StoreError) -> Int {
        try storeErrors {
            try database.withLock { db in
                defer { db.resetStatements() }
                let statement = try db.statement(OperationJournal.lastSeq)
                statement.bind(1, board)
                return try statement.step() ? statement.int(0) : 0
            }
        }
    }

    /// The append's operations in their wire form (the records the room encoded, else
    /// `WireCodec`'s), and its undo changes.
    func encode(_ parts: [BoardAppend]) throws(StoreError) -> Rows {
        var rows = Rows()
        for part in parts {
            for (index, operation) in part.operations.enumerated() {
                guard let data = part.record(at: index, encode: WireCodec.encode) else {
                    throw StoreError(.invalidData, "Operation \(operation.seq) of \(part.board) cannot be encoded.")
                }
                rows.operations.append((part.board, operation.seq, data))
            }
            if !part.undo.isEmpty { rows.undo.append((part.board, part.undo)) }
            if !part.activity.isEmpty { rows.activity.append((part.board, part.activity)) }
        }
        return rows
    }

    /// Writes every entry (the store has no checks of its own), the undo histories after the
    /// operations, and the journal's next fold step, in one transaction.
    func write(_ round: inout GroupCommitTransaction<Rows>) throws(StoreError) {
        let entries = round.admit()
        let rows = entries.flatMap(\.rows.operations)
        let undo = entries.flatMap(\.rows.undo)
        let activity = entries.flatMap(\.rows.activity)
        // One board with nothing waiting in the journal: straight into its log (``OperationJournal``).
        let direct =
            !rows.isEmpty && rows.allSatisfy { $0.board == rows[0].board }
            && !journal.withLock { $0.waits(rows[0].board) }
        // The rows as the journal got them, and what the transaction copied into the logs.
        let (appended, step) = try storeErrors {
            try database.withLock { db in
                try transaction(db) { () throws -> ([(String, OperationJournal.Row)], OperationJournal.Step) in
                    var appended: [(String, OperationJournal.Row)] = []
                    appended.reserveCapacity(direct ? 0 : rows.count)
                    for (board, seq, data) in rows {
                        let insert = try db.statement(direct ? OperationJournal.insertIntoLog : OperationJournal.insert)
                        insert.bind(1, board)
                        insert.bind(2, seq)
                        insert.bind(3, blob: data)
                        try insert.step()
                        guard !direct else { continue }
                        appended.append((board, .init(id: sqlite3_last_insert_rowid(db.handle), seq: seq, data: data)))
                    }
                    for (board, changes) in undo { try UndoTable.write(db, board: board, changes) }
                    for (board, records) in activity { try ActivityTable.write(db, board: board, records) }
                    let step = try journal.withLock { journal in try journal.copy(db, appended: rows.count) }
                    return (appended, step)
                }
            }
        }
        journal.withLock { journal in
            journal.finish(step)
            for (board, row) in appended { journal.appended(board, row) }
        }
    }

    /// Writes the snapshot, drops older ones and compacts the log and the journal behind it. The
    /// embedded store has no leases: the epoch is not checked.
    func writeSnapshot(_ write: SnapshotWrite) -> SnapshotOutcome {
        let (board, snapshot, retaining) = (write.board, write.snapshot, write.retainingLog)
        guard let data = try? snapshot.jsonData() else {
            return .failed(
                StoreError(.invalidData, "The snapshot of \(board) at seq \(snapshot.seq) cannot be encoded."))
        }
        do throws(StoreError) {
            try storeErrors {
                try database.withLock { db in
                    try transaction(db) {
                        let insert = try db.statement(
                            "INSERT OR REPLACE INTO snapshots (board, seq, data) VALUES (?, ?, ?)")
                        insert.bind(1, board)
                        insert.bind(2, snapshot.seq)
                        insert.bind(3, blob: Array(data))
                        try insert.step()
                        let older = try db.statement("DELETE FROM snapshots WHERE board = ? AND seq < ?")
                        older.bind(1, board)
                        older.bind(2, snapshot.seq)
                        try older.step()
                        for table in ["operations", "journal"] {
                            let compact = try db.statement("DELETE FROM \(table) WHERE board = ? AND seq <= ?")
                            compact.bind(1, board)
                            compact.bind(2, snapshot.seq - retaining)
                            try compact.step()
                        }
                    }
                }
            }
            journal.withLock { $0.removed(board, upTo: snapshot.seq - retaining) }
            return .written
        } catch {
            return .failed(error)
        }
    }

    /// A one-row write transaction: it commits once the disk has room or the file is writable.
    func probe() throws(StoreError) {
        try storeErrors {
            try database.withLock { db in
                try transaction(db) { try db.execute("UPDATE meta SET value = value WHERE key = 'schema'") }
            }
        }
    }
}

/// Runs `body` in a transaction (BEGIN IMMEDIATE for writers), rolling back when it throws.
func transaction<T>(_ db: SQLiteDatabase, immediate: Bool = true, _ body: () throws -> T) throws -> T {
    try db.execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN")
    do {
        let result = try body()
        db.resetStatements()  // so COMMIT ends the read transaction too
        try db.execute("COMMIT")
        return result
    } catch {
        db.resetStatements()
        try? db.execute("ROLLBACK")
        throw error
    }
}

/// Runs `body`, passing `StoreError`s through and wrapping anything else.
func storeErrors<T>(_ body: () throws -> T) throws(StoreError) -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw error
    } catch {
        throw StoreError(.io, "\(error)")
    }
}
