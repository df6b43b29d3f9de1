/// A complete WebSocket message received from a peer, reassembled from its fragments.
public struct InboundMessage: Sendable {
    /// The payload bytes.
    public var bytes: [UInt8]
    /// `true` for a text message (whose bytes are valid UTF-8), `false` for binary.
    public var isText: Bool

    /// Creates a message.
    public init(bytes: [UInt8], isText: Bool) {
        self.bytes = bytes
        self.isText = isText
    }

    /// The payload decoded as UTF-8 (invalid sequences repaired), for text messages and logs.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
