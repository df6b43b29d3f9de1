/// A WebSocket message encoded once, ready to be queued for any number of connections.
///
/// The server-to-client encoding (unmasked header plus payload) is built at init and shared by
/// every recipient of a broadcast: queuing a frame costs a retain, and the service thread copies
/// the encoded bytes straight into its socket batch. Client writes are masked in place, so the
/// client side never shares buffers (see ``WebSocketClient``).
public final class OutboundFrame: Sendable {
    /// `true` for a text frame, `false` for binary.
    public let isText: Bool
    /// Header followed by payload, as one unfragmented final frame.
    let encoded: [UInt8]
    /// Length of the header at the start of ``encoded``.
    let headerLength: Int
    /// Told as the frame goes out to each recipient, when the sender wants to know it went to all.
    let delivery: FrameDelivery?

    /// A text frame carrying `text` as UTF-8.
    public convenience init(text: String) {
        self.init(payload: Array(text.utf8), isText: true)
    }

    /// A text frame whose bytes the caller guarantees are valid UTF-8 (for example encoded JSON).
    public convenience init(utf8 bytes: some Sequence<UInt8>) {
        self.init(payload: Array(bytes), isText: true)
    }

    /// A text frame of valid UTF-8 whose `delivery` is told as it goes out to each recipient (a
    /// broadcast the application times until it reached everyone).
    public convenience init(utf8 bytes: some Sequence<UInt8>, delivery: FrameDelivery) {
        self.init(payload: Array(bytes), isText: true, delivery: delivery)
    }

    /// A binary frame.
    public convenience init(binary bytes: some Sequence<UInt8>) {
        self.init(payload: Array(bytes), isText: false)
    }

    private init(payload: [UInt8], isText: Bool, delivery: FrameDelivery? = nil) {
        self.isText = isText
        self.delivery = delivery
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 10)
        FrameHeader.append(opcode: isText ? 1 : 2, fin: true, length: payload.count, to: &out)
        headerLength = out.count
        out.append(contentsOf: payload)
        encoded = out
    }

    /// Number of payload bytes.
    public var payloadCount: Int { encoded.count - headerLength }
}

/// RFC 6455 frame headers as sent by a server (never masked).
enum FrameHeader {
    /// Largest header: 2 bytes plus a 64-bit length.
    static let maxLength = 10

    /// Appends the header for one frame.
    static func append(opcode: UInt8, fin: Bool, length: Int, to out: inout [UInt8]) {
        out.append((fin ? 0x80 : 0) | opcode)
        if length < 126 {
            out.append(UInt8(length))
        } else if length <= 0xFFFF {
            out.append(126)
            out.append(UInt8(length >> 8))
            out.append(UInt8(length & 0xFF))
        } else {
            out.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((length >> shift) & 0xFF)) }
        }
    }

    /// Writes the header for one frame at `p`, returning its length.
    static func write(opcode: UInt8, fin: Bool, length: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        p[0] = (fin ? 0x80 : 0) | opcode
        if length < 126 {
            p[1] = UInt8(length)
            return 2
        } else if length <= 0xFFFF {
            p[1] = 126
            p[2] = UInt8(length >> 8)
            p[3] = UInt8(length & 0xFF)
            return 4
        } else {
            p[1] = 127
            for i in 0..<8 { p[2 + i] = UInt8((length >> (56 - 8 * i)) & 0xFF) }
            return 10
        }
    }
}
