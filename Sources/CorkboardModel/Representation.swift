/// One representation of an item: a uniform type identifier and its value.
///
/// Mirrors one registered type of an `NSItemProvider` (`public.plain-text`, `public.url`,
/// `public.image`, `corkboard.card`, …). The value is an opaque string (text, URL, a blob
/// reference); the model never interprets it.
public struct Representation: Hashable, Codable, Sendable {
    /// The type identifier, e.g. `public.url`.
    public var type: String
    /// The value for that type.
    public var value: String

    /// Creates a representation.
    public init(type: String, value: String) {
        self.type = type
        self.value = value
    }
}
