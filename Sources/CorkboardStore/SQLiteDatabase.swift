import CSQLite
import CorkboardStorage

/// One SQLite connection. Not thread-safe: each instance is used by one thread at a time (the
/// store's writer, or a reader under the store's lock).
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    let path: String
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating when `create`) a database file; with `uri`, `path` is a `file:` URI.
    ///
    /// - Throws: `StoreError` naming the file.
    init(path: String, readOnly: Bool = false, create: Bool = true, uri: Bool = false) throws(StoreError) {
        self.path = path
        var flags = SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0)
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK else {
            let error = SQLiteDatabase.error(code: code, handle: handle, doing: "open \(path)")
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without results (several statements allowed).
    func execute(_ sql: String) throws(StoreError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteDatabase.error(code: code, handle: handle, doing: sql) }
    }

    /// A cached prepared statement, reset and with its bindings cleared.
    func statement(_ sql: String) throws(StoreError) -> Statement {
        if let cached = statements[sql] {
            sqlite3_reset(cached)
            sqlite3_clear_bindings(cached)
            return Statement(pointer: cached, database: self, sql: sql)
        }
        var pointer: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard code == SQLITE_OK, let pointer else {
            throw SQLiteDatabase.error(code: code, handle: handle, doing: sql)
        }
        statements[sql] = pointer
        return Statement(pointer: pointer, database: self, sql: sql)
    }

    /// The first column of the first row of a query, as text.
    func scalarText(_ sql: String) throws(StoreError) -> String? {
        let statement = try statement(sql)
        defer { resetStatements() }
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// Resets every cached statement. A statement left mid-result (or even done) can keep the
    /// connection's read transaction open, pinning an old snapshot of the database: later reads
    /// would miss newer commits and a write would fail with SQLITE_BUSY_SNAPSHOT once another
    /// connection has written. Call it when a unit of work ends.
    func resetStatements() {
        for statement in statements.values { sqlite3_reset(statement) }
    }

    /// Maps a SQLite result code to a `StoreError` with a sentence saying what to do.
    static func error(code: Int32, handle: OpaquePointer?, doing: String) -> StoreError {
        let detail = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        let what = doing.count > 120 ? String(doing.prefix(117)) + "…" : doing
        switch code & 0xff {
        case SQLITE_FULL:
            return StoreError(.full, "The disk is full (\(detail)) while trying to \(what); free space and retry.")
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN, SQLITE_AUTH:
            return StoreError(
                .readOnly,
                "The database cannot be written (\(detail)) while trying to \(what); check the data "
                    + "folder's permissions and attributes.")
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return StoreError(
                .corrupt, "The database is damaged (\(detail)); restore it from a backup or an export.")
        case SQLITE_IOERR where [3, 4, 6].contains(code >> 8):  // SQLITE_IOERR_WRITE, _FSYNC, _TRUNCATE
            return StoreError(
                .readOnly,
                "Writing the database failed (\(detail)) while trying to \(what); check that the data "
                    + "folder is writable and the disk healthy.")
        default:
            return StoreError(.io, "SQLite failed (\(detail), code \(code)) while trying to \(what).")
        }
    }
}

/// A prepared statement borrowed from `SQLiteDatabase`'s cache.
struct Statement {
    let pointer: OpaquePointer
    let database: SQLiteDatabase
    let sql: String

    func bind(_ index: Int32, _ value: String) {
        sqlite3_bind_text(pointer, index, value, -1, csqlite_transient())
    }

    func bind(_ index: Int32, _ value: Int) {
        sqlite3_bind_int64(pointer, index, Int64(value))
    }

    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(pointer, index, value)
    }

    func bind(_ index: Int32, blob: [UInt8]) {
        blob.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(pointer, index, bytes.baseAddress, Int32(bytes.count), csqlite_transient())
        }
    }

    /// Steps once: `true` for a row, `false` when done.
    @discardableResult
    func step() throws(StoreError) -> Bool {
        switch sqlite3_step(pointer) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteDatabase.error(code: code, handle: database.handle, doing: sql)
        }
    }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(pointer, column)) }

    func text(_ column: Int32) -> String? {
        guard let c = sqlite3_column_text(pointer, column) else { return nil }
        return String(cString: c)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(pointer, column))
        guard count > 0, let base = sqlite3_column_blob(pointer, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }
}
