public import CorkboardModel

/// A plain-text representation, the default content of test items.
public func text(_ value: String) -> [Representation] { [Representation(type: "public.plain-text", value: value)] }

/// An image representation.
public func image(_ value: String) -> [Representation] { [Representation(type: "public.image.png", value: value)] }

extension SplitMix64 {
    /// Characters that are awkward for JSON and size estimates: quotes, backslashes, control
    /// characters, non-ASCII letters, emoji and the line separators JavaScript treats as newlines.
    public static let awkwardCharacters = [
        "a", "b", "Z", "7", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{02}", "\u{1F}", "é", "漢", "🙂", "\u{2028}",
    ]

    /// A string of 0 to `maxLength` pieces drawn from `pieces`, reproducible from the seed.
    public mutating func string(maxLength: Int, from pieces: [String] = SplitMix64.awkwardCharacters) -> String {
        let length = Int.random(in: 0...maxLength, using: &self)
        return (0..<length).map { _ in pieces.randomElement(using: &self)! }.joined()
    }
}
