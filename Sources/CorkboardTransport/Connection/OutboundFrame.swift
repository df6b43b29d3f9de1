/// A WebSocket message encoded once, ready to be queued for any number of connections.
///
/// The payload is held as the caller's own byte arrays, shared and never copied here: queuing a
/// frame for a connection costs a retain, and the service thread writes the (unmasked) header and
/// copies the payload straight into its socket batch. A payload may come in several pieces sent
/// back to back (a message whose middle is shared with other messages, such as a board encoded
/// once for every member that joins at one seq). Client writes are masked in place, so the client
/// side never shares buffers (see ``WebSocketClient``).
public final class OutboundFrame: Sendable {
    /// `true` for a text frame, `false` for binary.
    public let isText: Bool
    /// The payload's first piece: all of it unless `tail` holds more.
    let head: [UInt8]
    /// The payload's further pieces, sent after `head` in order (usually none).
    let tail: [[UInt8]]
    /// Number of payload bytes (all pieces).
    public let payloadCount: Int
    /// Header plus payload, as one unfragmented final frame.
    let encodedCount: Int
    /// Told as the frame goes out to each recipient, when the sender wants to know it went to all.
    let delivery: FrameDelivery?

    /// A text frame carrying `text` as UTF-8.
    public convenience init(text: String) {
        self.init(head: Array(text.utf8), tail: [], isText: true)
    }

    /// A text frame whose bytes the caller guarantees are valid UTF-8 (for example encoded JSON).
    public convenience init(utf8 bytes: some Sequence<UInt8>) {
        self.init(head: Array(bytes), tail: [], isText: true)
    }

    /// A text frame whose payload is `pieces` one after the other, which the caller guarantees are
    /// valid UTF-8 together; the arrays are shared, not copied. `delivery`, if given, is told as
    /// the frame goes out to each recipient (a broadcast the application times until it reached
    /// everyone).
    public convenience init(utf8 pieces: [[UInt8]], delivery: FrameDelivery? = nil) {
        self.init(head: pieces.first ?? [], tail: Array(pieces.dropFirst()), isText: true, delivery: delivery)
    }

    /// A text frame whose payload is `head` followed by `tail`'s pieces, valid UTF-8 together; the
    /// arrays are shared, not copied (an `EncodedMessage`'s `head` and `tail`).
    public convenience init(utf8 head: [UInt8], tail: [[UInt8]], delivery: FrameDelivery? = nil) {
        self.init(head: head, tail: tail, isText: true, delivery: delivery)
    }

    /// A text frame of valid UTF-8 whose `delivery` is told as it goes out to each recipient (a
    /// broadcast the application times until it reached everyone).
    public convenience init(utf8 bytes: some Sequence<UInt8>, delivery: FrameDelivery) {
        self.init(head: Array(bytes), tail: [], isText: true, delivery: delivery)
    }

    /// A binary frame.
    public convenience init(binary bytes: some Sequence<UInt8>) {
        self.init(head: Array(bytes), tail: [], isText: false)
    }

    private init(head: [UInt8], tail: [[UInt8]], isText: Bool, delivery: FrameDelivery? = nil) {
        self.isText = isText
        self.delivery = delivery
        self.head = head
        self.tail = tail
        let payload = tail.reduce(head.count) { $0 + $1.count }
        payloadCount = payload
        encodedCount = FrameHeader.length(for: payload) + payload
    }

    /// Copies `count` payload bytes starting at payload offset `offset` to `destination`.
    ///
    /// - Complexity: O(pieces + count).
    func copyPayload(from offset: Int, count: Int, to destination: UnsafeMutablePointer<UInt8>) {
        var skip = offset
        var left = count
        var out = destination
        func copy(_ piece: [UInt8]) {
            guard left > 0 else { return }
            if skip >= piece.count {
                skip -= piece.count
                return
            }
            let n = min(piece.count - skip, left)
            piece.withUnsafeBufferPointer { src in out.update(from: src.baseAddress! + skip, count: n) }
            out += n
            left -= n
            skip = 0
        }
        copy(head)
        for piece in tail where left > 0 { copy(piece) }
    }

    /// The frame as it goes on the wire unfragmented: header then payload (tests).
    var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedCount)
        FrameHeader.append(opcode: isText ? 1 : 2, fin: true, length: payloadCount, to: &out)
        out += head
        for piece in tail { out += piece }
        return out
    }
}

/// RFC 6455 frame headers as sent by a server (never masked).
enum FrameHeader {
    /// Largest header: 2 bytes plus a 64-bit length.
    static let maxLength = 10

    /// The header's length for a payload of `length` bytes.
    static func length(for length: Int) -> Int { length < 126 ? 2 : length <= 0xFFFF ? 4 : 10 }

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
