/// What every board identifier shares: a wire string, encoded as a plain JSON string, ordered by
/// that string.
///
/// ``ItemID``, ``SectionID`` and ``CollectionID`` are distinct types so one cannot be passed for
/// another; this protocol gives them one implementation of everything else.
public protocol BoardIdentifier: Hashable, Comparable, Codable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The id as sent on the wire.
    var rawValue: String { get }
    /// Wraps a wire string.
    init(_ rawValue: String)
}

extension BoardIdentifier {
    /// Wraps a string literal, handy in tests.
    public init(stringLiteral value: String) { self.init(value) }

    /// Decodes a plain JSON string.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes a plain JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Orders ids by their raw strings.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The raw string.
    public var description: String { rawValue }
}

/// The identity of an item on a board.
///
/// Encodes as a plain JSON string. Unique within a board; the room keeps ids unique across the boards of a server so items can move between them.
public struct ItemID: BoardIdentifier {
    /// The id as sent on the wire.
    public var rawValue: String

    /// Wraps a wire string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The identity of a section.
///
/// Encodes as a plain JSON string. Unique within a board, across all its collections.
public struct SectionID: BoardIdentifier {
    /// The id as sent on the wire.
    public var rawValue: String

    /// Wraps a wire string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The identity of a collection on a board.
///
/// Encodes as a plain JSON string. Unique within a board.
public struct CollectionID: BoardIdentifier {
    /// The id as sent on the wire.
    public var rawValue: String

    /// Wraps a wire string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Well-known client identities.
public enum ClientIdentity {
    /// The room itself: allowed to delete any placeholder (R8 clean-up of vanished owners).
    public static let system = "system"
}

/// What a board may be called: its id names its folder of files, its URLs and its store rows.
public enum BoardIDRule {
    /// The most bytes of a board id (UTF-8).
    public static let maxBytes = 64

    /// Whether `id` is 1 to 64 bytes of letters, digits, `-` or `_`.
    ///
    /// - Complexity: O(length of `id`).
    public static func isValid<S: StringProtocol>(_ id: S) -> Bool {
        !id.isEmpty && id.utf8.count <= maxBytes
            && id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }
}
