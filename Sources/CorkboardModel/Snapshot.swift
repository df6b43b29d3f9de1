public import Foundation

/// A board at a seq, versioned: replaying the log after `seq` on `board` gives the board at head.
///
/// JSON shape: `{"version":1,"seq":42,"board":{"collections":[…]}}`. Decoding any other version
/// fails with `Snapshot.UnsupportedVersion`.
public struct Snapshot: Equatable, Codable, Sendable {
    /// The snapshot format this code writes and reads.
    public static let currentVersion = 1

    /// Thrown when decoding a snapshot of another format version.
    public struct UnsupportedVersion: Error, Hashable, CustomStringConvertible {
        /// Creates the error for a version found in the data.
        public init(found: Int) { self.found = found }
        /// The version found.
        public var found: Int
        /// A sentence saying what to do.
        public var description: String {
            "Snapshot version \(found) is not supported (this build reads version \(Snapshot.currentVersion)); "
                + "upgrade the server or take a fresh snapshot."
        }
    }

    /// The format version, `currentVersion` when written by this code.
    public var version: Int
    /// The seq the board is at.
    public var seq: Int
    /// The board.
    public var board: Board

    /// Creates a snapshot of the current version.
    public init(seq: Int, board: Board) {
        self.version = Snapshot.currentVersion
        self.seq = seq
        self.board = board
    }

    /// Applies the operation that follows this snapshot: a copy of the board kept at a durable seq
    /// catches up as the store confirms operations.
    ///
    /// - Throws: `Rejection` when `committed` is not the next seq or does not apply.
    /// - Complexity: the operation's apply cost.
    public mutating func apply(_ committed: CommittedOperation) throws(Rejection) {
        try committed.checkFollows(seq)
        try board.apply(committed)
        seq = committed.seq
    }

    private enum CodingKeys: String, CodingKey { case version, seq, board }

    /// Decodes a snapshot, checking the version first.
    ///
    /// - Throws: `UnsupportedVersion` for another version; `DecodingError` for malformed data.
    /// - Complexity: O(n) in the number of items.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        guard version == Snapshot.currentVersion else { throw UnsupportedVersion(found: version) }
        seq = try container.decode(Int.self, forKey: .seq)
        board = try container.decode(Board.self, forKey: .board)
    }

    /// Encodes as compact JSON (UTF-8, keys in declaration order).
    ///
    /// - Complexity: O(n) in the number of items.
    public func jsonData() throws -> Data {
        try JSONEncoder().encode(self)
    }

    /// Decodes from JSON produced by `jsonData()`.
    ///
    /// - Throws: `UnsupportedVersion` or `DecodingError`.
    /// - Complexity: O(n) in the number of items.
    public init(jsonData: Data) throws {
        self = try JSONDecoder().decode(Snapshot.self, from: jsonData)
    }

    /// Replays committed operations after this snapshot's seq, in order.
    ///
    /// - Throws: `Rejection` if an operation does not apply (a corrupt log), or `invalid` if the
    ///   operations do not continue from `seq` without a gap.
    /// - Complexity: the sum of the operations' apply costs.
    public func replaying(_ operations: [CommittedOperation]) throws(Rejection) -> Snapshot {
        var result = self
        for committed in operations where committed.seq > result.seq {
            guard committed.seq == result.seq + 1 else {
                throw Rejection(
                    .invalid, "The log jumps from seq \(result.seq) to \(committed.seq); fetch the missing operations.")
            }
            try result.board.apply(committed)
            result.seq = committed.seq
        }
        return result
    }
}
