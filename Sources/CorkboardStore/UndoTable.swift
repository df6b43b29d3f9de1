import CorkboardModel
import CorkboardStorage
import Foundation

/// The SQLite store's undo histories (R13): one row per entry of a client's undo or redo stack,
/// written in the transaction of the operations they came with (see `UndoHistory+Storage.swift`
/// for what a change holds), loaded with the board, deleted with it.
enum UndoTable {
    /// The table: (board, client, seq) names an entry; `stack` is `undo` or `redo`; `data` the
    /// recipe's JSON (`UndoEntryCoding`).
    static let createTable = """
        CREATE TABLE IF NOT EXISTS undo_entries (
            board TEXT NOT NULL, client TEXT NOT NULL, seq INTEGER NOT NULL, stack TEXT NOT NULL, data BLOB NOT NULL,
            PRIMARY KEY (board, client, seq)) WITHOUT ROWID;
        """

    /// Whether the file has the table (a file written by an older build opened read-only has not).
    static func exists(_ db: SQLiteDatabase) throws(StoreError) -> Bool {
        try db.scalarText("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'undo_entries'") != nil
    }

    /// Applies changes of one board's histories, inside the caller's transaction, as the delta
    /// they are (`UndoHistory.Changes`): the board's rows go first when it is replaced whole, then
    /// per client its rows when it was forgotten, the rows of the seqs it dropped, and its new
    /// entries. Every statement is prepared once and cached by the connection.
    static func write(_ db: SQLiteDatabase, board: String, _ changes: UndoHistory.Changes) throws {
        if changes.replacesAll {
            let all = try db.statement("DELETE FROM undo_entries WHERE board = ?")
            all.bind(1, board)
            try all.step()
        }
        for change in changes.clients {
            if change.removesAll {
                let client = try db.statement("DELETE FROM undo_entries WHERE board = ? AND client = ?")
                client.bind(1, board)
                client.bind(2, change.clientId)
                try client.step()
            }
            for seq in change.removed {
                let entry = try db.statement("DELETE FROM undo_entries WHERE board = ? AND client = ? AND seq = ?")
                entry.bind(1, board)
                entry.bind(2, change.clientId)
                entry.bind(3, seq)
                try entry.step()
            }
            for entry in change.added {
                let insert = try db.statement(
                    "INSERT OR REPLACE INTO undo_entries (board, client, seq, stack, data) VALUES (?, ?, ?, ?, ?)")
                insert.bind(1, board)
                insert.bind(2, entry.clientId)
                insert.bind(3, entry.seq)
                insert.bind(4, entry.stack.rawValue)
                insert.bind(5, blob: try UndoEntryCoding.encode(entry))
                try insert.step()
            }
        }
    }

    /// Every stored entry of a board, inside the caller's read transaction.
    static func load(_ db: SQLiteDatabase, board: String) throws -> [UndoHistory.StoredEntry] {
        let rows = try db.statement("SELECT client, seq, stack, data FROM undo_entries WHERE board = ?")
        rows.bind(1, board)
        var entries: [UndoHistory.StoredEntry] = []
        while try rows.step() {
            entries.append(
                try UndoEntryCoding.decode(
                    board: board, clientId: rows.text(0) ?? "", stack: rows.text(2) ?? "", seq: rows.int(1),
                    data: Data(rows.blob(3))))
        }
        return entries
    }

    /// The store's resume secret (`BoardStore.resumeSecret`), made on first use: 32 random bytes
    /// in hex in `meta`, never logged.
    static func secret(_ db: SQLiteDatabase, creating: Bool) throws(StoreError) -> [UInt8]? {
        if creating {
            try db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('secret', '\(RandomToken.make(bytes: 32))')")
        }
        return try db.scalarText("SELECT value FROM meta WHERE key = 'secret'").map { Array($0.utf8) }
    }
}
