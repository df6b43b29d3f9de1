/// A storage failure: what kind, and a sentence saying what happened and what to do.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Broad classes of failure, for health reports and client messages.
    public enum Kind: String, Hashable, Sendable {
        /// The disk (or a size limit) is full.
        case full
        /// The database or its folder cannot be written.
        case readOnly = "read-only"
        /// The file is damaged or not a Corkboard database.
        case corrupt
        /// Stored data does not decode.
        case invalidData = "invalid-data"
        /// Any other I/O or database failure.
        case io
        /// Another node holds the board now: the writer's lease epoch is no longer the board's, so
        /// nothing was written and the writer must stop sequencing the board (a cluster).
        case fenced
    }

    /// The class of failure.
    public var kind: Kind
    /// What happened and what to do.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }
}
