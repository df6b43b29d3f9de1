import CSQLite

/// Reads and edits a database behind the store's back, through a connection of its own to
/// SQLite's C library (none of the store's code).
///
/// It runs in the test's thread and takes microseconds. (It used to start `python3` for each
/// query: with the suites in parallel on two cores, two tests waiting on those processes held both
/// cooperative threads for up to a minute and every asynchronous test of the run starved.)
enum SQLiteShell {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs SQL statements (separated by `;`) and commits them.
    static func run(_ path: String, _ sql: String) throws {
        try withDatabase(path) { db in
            var message: UnsafeMutablePointer<CChar>?
            guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
                let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
                sqlite3_free(message)
                throw Failure(description: "sqlite3 could not run \(sql) on \(path): \(text)")
            }
        }
    }

    /// The first column of the first row of a query, as text (`"None"` for SQL NULL, as Python
    /// prints it).
    static func value(_ path: String, _ sql: String) throws -> String {
        try withDatabase(path) { db in
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                let text = String(cString: sqlite3_errmsg(db))
                throw Failure(description: "sqlite3 could not prepare \(sql) on \(path): \(text)")
            }
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else {
                throw Failure(description: "\(sql) on \(path) gave no row: \(String(cString: sqlite3_errmsg(db)))")
            }
            guard let text = sqlite3_column_text(statement, 0) else { return "None" }
            return String(cString: text)
        }
    }

    /// The rows of a table.
    static func count(_ path: String, _ table: String) throws -> Int {
        Int(try value(path, "SELECT count(*) FROM \(table)")) ?? -1
    }

    /// Opens the file (which must exist), waiting up to 10 s for a lock the store holds.
    private static func withDatabase<T>(_ path: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            let text = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw Failure(description: "sqlite3 could not open \(path): \(text)")
        }
        defer { sqlite3_close(db) }
        sqlite3_busy_timeout(db, 10_000)
        return try body(db)
    }
}
