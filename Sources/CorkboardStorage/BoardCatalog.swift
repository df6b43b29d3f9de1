import CorkboardModel
import Synchronization

/// Where board records are kept between runs.
public protocol BoardCatalog: Sendable {
    /// Every board, in creation order.
    func load() throws -> [BoardRecord]
    /// Replaces the stored list.
    func save(_ records: [BoardRecord]) throws
    /// Adds a record, refusing a taken or malformed id. A catalog shared by several processes adds
    /// it atomically (two processes adding at once cannot lose either record).
    func add(_ record: BoardRecord) throws
    /// Replaces a board's keys with fresh random ones; returns the updated record.
    @discardableResult
    func rotateKeys(of id: String) throws -> BoardRecord
    /// Changes one board's record in one transaction and returns it as saved: a claim of a one-use
    /// invite cannot succeed twice, also from two processes or nodes at once. When `change`
    /// throws, nothing is written and its error is rethrown.
    ///
    /// - Throws: `CatalogError` when there is no such board, what `change` throws, or the store's error.
    @discardableResult
    func updateRecord(_ id: String, _ change: (inout BoardRecord) throws -> Void) throws -> BoardRecord
    /// A number that changes whenever the stored list changes, in this process or another (`corkboard
    /// boards rotate-keys` while a server runs, another node of a cluster): a reader checks it instead
    /// of reading every record. `nil` when the catalog cannot tell (the reader then reads the list).
    func generation() throws -> Int?
}

extension BoardCatalog {
    /// Unknown: readers read the list.
    public func generation() throws -> Int? { nil }

    /// Refuses a malformed board id.
    ///
    /// - Throws: `CatalogError` unless the id is 1 to 64 letters, digits, '-' or '_'.
    public static func validate(id: String) throws {
        guard BoardIDRule.isValid(id) else {
            throw CatalogError("Board id \"\(id)\" must be 1 to 64 letters, digits, '-' or '_'.")
        }
    }

    /// Adds a record, refusing a taken or malformed id (read, then replace the list).
    ///
    /// - Throws: `CatalogError` when the id is taken or malformed, or what `load`/`save` throw.
    public func add(_ record: BoardRecord) throws {
        try Self.validate(id: record.id)
        var records = try load()
        guard !records.contains(where: { $0.id == record.id }) else {
            throw CatalogError("A board \"\(record.id)\" already exists; choose another id.")
        }
        records.append(record)
        try save(records)
    }

    /// Replaces a board's four keys (admin, edit, comment, view) with fresh random ones (`corkboard boards
    /// rotate-keys`); returns the updated record. A running server adopts the new keys within a
    /// second (`BoardDirectory.refreshKeys()`).
    ///
    /// - Throws: `CatalogError` when there is no such board, or what `load`/`save` throw.
    ///
    /// One change of one record (`updateRecord`), so a store's transaction makes it atomic.
    @discardableResult
    public func rotateKeys(of id: String) throws -> BoardRecord {
        try updateRecord(id) { $0.keys = .random() }
    }

    /// Changes one board's record (read, change, replace the list): atomic only within one
    /// process, and only when nothing else writes the list meanwhile; the stores override it
    /// with a transaction.
    ///
    /// - Throws: `CatalogError` when there is no such board, what `change` throws, or what
    ///   `load`/`save` throw.
    @discardableResult
    public func updateRecord(_ id: String, _ change: (inout BoardRecord) throws -> Void) throws -> BoardRecord {
        var records = try load()
        guard let index = records.firstIndex(where: { $0.id == id }) else { throw CatalogError.noBoard(id) }
        try change(&records[index])
        try save(records)
        return records[index]
    }
}

/// Board records in memory (tests, and `corkboard serve --store memory`).
public final class MemoryBoardCatalog: BoardCatalog {
    private let records: Mutex<[BoardRecord]>
    private let saves = Atomic<Int>(0)

    /// A catalog holding `records`.
    public init(_ records: [BoardRecord] = []) { self.records = Mutex(records) }

    /// The records.
    public func load() throws -> [BoardRecord] { records.withLock { $0 } }

    /// Replaces the records.
    public func save(_ records: [BoardRecord]) throws {
        self.records.withLock { $0 = records }
        saves.add(1, ordering: .relaxed)
    }

    /// How many times the list was saved.
    public func generation() throws -> Int? { saves.load(ordering: .relaxed) }

    /// Changes one record under the catalog's lock: atomic among the threads of this process.
    @discardableResult
    public func updateRecord(_ id: String, _ change: (inout BoardRecord) throws -> Void) throws -> BoardRecord {
        let updated = try records.withLock { records throws -> BoardRecord in
            guard let index = records.firstIndex(where: { $0.id == id }) else { throw CatalogError.noBoard(id) }
            var record = records[index]
            try change(&record)
            records[index] = record
            return record
        }
        saves.add(1, ordering: .relaxed)
        return updated
    }
}

/// A board list that cannot be read or written.
public struct CatalogError: Error, CustomStringConvertible {
    /// What went wrong and what to do.
    public var description: String

    /// An error saying what went wrong and what to do.
    public init(_ description: String) { self.description = description }

    /// There is no board `id`.
    public static func noBoard(_ id: String) -> CatalogError {
        CatalogError("There is no board \"\(id)\"; `corkboard boards` lists them.")
    }
}
