public import CorkboardModel
public import CorkboardStorage
public import Foundation

/// A board as a portable, versioned JSON file: its record (id, title, keys, template) and a
/// snapshot at its head. Written by `corkboard export`, read by `corkboard import`.
///
/// JSON shape: `{"format":"corkboard.board","version":1,"board":{…BoardRecord},"snapshot":{…Snapshot}}`.
public struct BoardArchive: Codable, Sendable {
    /// The format tag every archive carries.
    public static let format = "corkboard.board"
    /// The archive version this build writes and reads.
    public static let currentVersion = 1

    /// Always `corkboard.board`.
    public var format: String
    /// The archive version.
    public var version: Int
    /// The board's record.
    public var board: BoardRecord
    /// The board at its head.
    public var snapshot: Snapshot

    /// Creates an archive.
    public init(board: BoardRecord, snapshot: Snapshot) {
        self.format = BoardArchive.format
        self.version = BoardArchive.currentVersion
        self.board = board
        self.snapshot = snapshot
    }

    /// Reads a board from a store at its head (latest snapshot plus the log after it).
    ///
    /// - Throws: `StoreError` when the board is unknown or its data cannot be read or replayed.
    public init(exporting id: String, from store: any BoardStore) throws(StoreError) {
        let records: [BoardRecord]
        do {
            records = try store.load()
        } catch {
            throw error as? StoreError ?? StoreError(.io, "\(error)")
        }
        guard let record = records.first(where: { $0.id == id }) else {
            let known = records.map(\.id).joined(separator: ", ")
            throw StoreError(
                .invalidData, "There is no board \"\(id)\"; the store has: \(known.isEmpty ? "none" : known).")
        }
        try self.init(record: record, stored: try store.load(board: id))
    }

    /// A board at its head from what a store loaded for it: its latest snapshot with the log after
    /// it replayed, or its template when the store holds nothing for it yet.
    ///
    /// - Throws: `StoreError` when the log does not replay or the template does not build.
    public init(record: BoardRecord, stored: StoredBoard?) throws(StoreError) {
        let snapshot: Snapshot
        if let stored {
            do {
                snapshot = try stored.snapshot.replaying(stored.log)
            } catch {
                throw StoreError(.corrupt, "The log of \(record.id) does not replay onto its snapshot: \(error).")
            }
        } else {
            do {
                snapshot = Snapshot(
                    seq: 0, board: try Board(collections: record.template.collections(board: record.id)))
            } catch {
                throw StoreError(.invalidData, "The template of \(record.id) does not build: \(error).")
            }
        }
        self.init(board: record, snapshot: snapshot)
    }

    /// Decodes and validates an archive file's bytes.
    ///
    /// - Throws: `StoreError(.invalidData)` saying what is wrong: not JSON, another format or
    ///   version, a malformed board (duplicate ids, bad placeholders), or broken invariants.
    public init(jsonData: Data) throws(StoreError) {
        struct Header: Decodable {
            var format: String?
            var version: Int?
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: jsonData) else {
            throw StoreError(.invalidData, "The file is not a JSON object; export a board with `corkboard export`.")
        }
        guard header.format == BoardArchive.format else {
            throw StoreError(
                .invalidData,
                "The file's format is \(header.format.map { "\"\($0)\"" } ?? "missing"), not "
                    + "\"\(BoardArchive.format)\"; export a board with `corkboard export`.")
        }
        guard header.version == BoardArchive.currentVersion else {
            throw StoreError(
                .invalidData,
                "The archive is version \(header.version.map(String.init) ?? "?"); this build reads "
                    + "version \(BoardArchive.currentVersion).")
        }
        do {
            self = try JSONDecoder().decode(BoardArchive.self, from: jsonData)
        } catch {
            throw StoreError(.invalidData, "The archive does not decode: \(error).")
        }
        let violations = snapshot.board.checkInvariants()
        guard violations.isEmpty else {
            throw StoreError(
                .invalidData,
                "The archived board breaks invariants: \(violations.map(\.description).joined(separator: "; ")).")
        }
    }

    /// The archive as pretty-printed JSON.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Adds the archived board to a store: its record, and its snapshot as the board's first state.
    /// An archive of an older build (or the page's export) without a comment or admin key gets
    /// new random ones (R17).
    ///
    /// - Throws: `CatalogError` when the id is taken or malformed; `StoreError` when writing fails.
    public func importing(into store: any BoardStore) throws {
        var record = board
        record.keys = record.keys.withRoleKeys()
        try store.add(record)
        store.saveSnapshot(board: board.id, snapshot: snapshot, retainingLog: 0)
        store.drain()
        if let failure = store.lastFailure { throw failure }
    }
}
