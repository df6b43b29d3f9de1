import CorkboardStorage

/// The SQLite store's activity feeds (issue 43): one row per entry, written in the transaction of
/// the operation it reports, trimmed to the entries the board's room keeps (R18), loaded with the
/// board, deleted with it.
enum ActivityTable {
    /// The table: (board, seq) names an entry; `data` is its JSON (`ActivityCoding.record`).
    static let createTable = """
        CREATE TABLE IF NOT EXISTS activity (
            board TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (board, seq)) WITHOUT ROWID;
        """

    /// Whether the file has the table (a file written by an older build opened read-only has not).
    static func exists(_ db: SQLiteDatabase) throws(StoreError) -> Bool {
        try db.scalarText("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'activity'") != nil
    }

    /// Writes one board's new entries and drops those the room no longer keeps, inside the
    /// caller's transaction. Statements are prepared once and cached by the connection.
    static func write(_ db: SQLiteDatabase, board: String, _ records: ActivityRecords) throws {
        for record in records.added {
            let insert = try db.statement("INSERT OR REPLACE INTO activity (board, seq, data) VALUES (?, ?, ?)")
            insert.bind(1, board)
            insert.bind(2, record.seq)
            insert.bind(3, blob: record.json)
            try insert.step()
        }
        if let keepFrom = records.keepFrom {
            let trim = try db.statement("DELETE FROM activity WHERE board = ? AND seq < ?")
            trim.bind(1, board)
            trim.bind(2, keepFrom)
            try trim.step()
        }
    }

    /// A board's entries, oldest first, inside the caller's read transaction.
    static func load(_ db: SQLiteDatabase, board: String) throws -> [ActivityRecords.Record] {
        let rows = try db.statement("SELECT seq, data FROM activity WHERE board = ? ORDER BY seq")
        rows.bind(1, board)
        var records: [ActivityRecords.Record] = []
        while try rows.step() { records.append(ActivityRecords.Record(seq: rows.int(0), json: rows.blob(1))) }
        return records
    }
}
