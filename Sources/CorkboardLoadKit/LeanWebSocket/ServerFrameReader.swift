/// Reads the WebSocket frames a server sends a client (RFC 6455 §5), however the bytes are split
/// across reads, and hands each whole message over without copying it when it can.
///
/// A message that arrives whole inside one read (the common case: many small frames per read) is
/// handed over as a slice of the read buffer itself. A message is copied only when it spans reads
/// or is fragmented (its frames are collected in ``message``), and a control frame only when it
/// spans reads. Text is not checked for valid UTF-8: the load tool reads a few ASCII fields and
/// reports anything else as unreadable.
///
/// Anything RFC 6455 forbids a server fails the connection: a masked frame, reserved bits without
/// an extension, an unknown opcode, a fragmented or long control frame, a continuation without a
/// message, a new message inside a fragmented one, a length not in its minimal form, an invalid
/// close payload (1002); a message longer than ``maxMessageBytes`` (1009).
public struct ServerFrameReader {
    /// What a frame or message brought; the bytes are valid only during the handler's call.
    public enum Event {
        /// A whole text message.
        case text(UnsafeRawBufferPointer)
        /// A whole binary message.
        case binary(UnsafeRawBufferPointer)
        case ping(UnsafeRawBufferPointer)
        case pong(UnsafeRawBufferPointer)
        /// The server's close frame: its code (none if the payload was empty) and reason.
        case close(code: UInt16?, reason: UnsafeRawBufferPointer)
    }

    /// Why the connection must fail, and the close code to send.
    public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
        /// 1002 (protocol error) or 1009 (message too big).
        public let code: UInt16
        public let reason: String

        public init(code: UInt16, reason: String) {
            self.code = code
            self.reason = reason
        }

        public var description: String { "\(code) \(reason)" }

        static func protocolError(_ reason: String) -> Failure { Failure(code: 1002, reason: reason) }
    }

    /// The longest message accepted, in bytes.
    public let maxMessageBytes: Int
    /// Header bytes of a frame whose header spans reads (empty otherwise).
    private var pendingHead: [UInt8] = []
    /// Whether a frame's header was read and its payload is still coming.
    private var inFrame = false
    private var frameOpcode: UInt8 = 0
    private var frameFin = false
    /// Payload bytes of the current frame still to come.
    private var payloadLeft = 0
    /// The opcode (1 text, 2 binary) of a fragmented message being collected; 0 when none.
    private var fragmentedOpcode: UInt8 = 0
    /// The data message being collected (fragmented, or spanning reads).
    private var message: [UInt8] = []
    /// The payload of a control frame that spans reads.
    private var control: [UInt8] = []
    /// Set by a close frame or a failure: nothing more is read.
    public private(set) var finished = false

    /// A reader refusing messages longer than `maxMessageBytes`.
    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Reads `bytes` (the next bytes of the stream), calling `handle` for every whole message and
    /// control frame in them. `handle` returns false to stop reading (the rest is dropped).
    ///
    /// - Returns: why the connection must fail, or nil.
    /// - Complexity: O(`bytes.count`) plus the copies of messages that span reads.
    public mutating func read(_ bytes: UnsafeRawBufferPointer, _ handle: (Event) -> Bool) -> Failure? {
        guard !finished, let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var at = 0
        while true {
            if !inFrame {
                if pendingHead.isEmpty && count - at >= 2
                    && count - at >= Self.headLength(base.load(fromByteOffset: at + 1, as: UInt8.self))
                {
                    // The whole header is here: read it in place.
                    let head = UnsafeRawBufferPointer(start: base + at, count: count - at)
                    if let failure = begin(head) { return fail(failure) }
                    at += Self.headLength(head[1])
                } else {
                    guard at < count else { return nil }
                    // Collect a header that spans reads.
                    if pendingHead.count < 2 {
                        pendingHead.append(base.load(fromByteOffset: at, as: UInt8.self))
                        at += 1
                        if pendingHead.count < 2 { continue }
                    }
                    if pendingHead[1] & 0x80 != 0 {
                        return fail(.protocolError("a masked frame from the server (RFC 6455 §5.1)"))
                    }
                    let need = Self.headLength(pendingHead[1])
                    let take = min(need - pendingHead.count, count - at)
                    pendingHead.append(contentsOf: UnsafeRawBufferPointer(start: base + at, count: take))
                    at += take
                    guard pendingHead.count == need else { return nil }
                    let failure = pendingHead.withUnsafeBytes { begin($0) }
                    pendingHead.removeAll(keepingCapacity: true)
                    if let failure { return fail(failure) }
                }
            }
            // The payload of the current frame (possibly empty).
            let available = min(payloadLeft, count - at)
            let slice = UnsafeRawBufferPointer(start: base + at, count: available)
            at += available
            let whole = available == payloadLeft
            payloadLeft -= available
            if frameOpcode & 0x08 != 0 {
                let step: Step
                if control.isEmpty && whole {
                    inFrame = false
                    step = controlFrame(slice, handle)
                } else {
                    control.append(contentsOf: slice)
                    guard payloadLeft == 0 else { return nil }
                    inFrame = false
                    step = control.withUnsafeBytes { controlFrame($0, handle) }
                    control.removeAll(keepingCapacity: true)
                }
                switch step {
                case .go: break
                case .stop: return nil
                case .fail(let failure): return fail(failure)
                }
            } else if fragmentedOpcode == 0 && frameFin && message.isEmpty && whole {
                // A whole single-frame message in this read: no copy.
                inFrame = false
                guard handle(frameOpcode == 1 ? .text(slice) : .binary(slice)) else { return nil }
            } else {
                message.append(contentsOf: slice)
                guard payloadLeft == 0 else { return nil }
                inFrame = false
                if frameFin {
                    let opcode = fragmentedOpcode == 0 ? frameOpcode : fragmentedOpcode
                    fragmentedOpcode = 0
                    let go = message.withUnsafeBytes { handle(opcode == 1 ? .text($0) : .binary($0)) }
                    // Keep a small buffer for the next message; give a big one back (a load run
                    // holds thousands of connections, and welcomes are the big ones).
                    message.removeAll(keepingCapacity: message.capacity <= 16 * 1024)
                    guard go else { return nil }
                }
            }
            if at == count { return nil }
        }
    }

    /// The length of a frame header whose second byte is `second` (masked headers are refused
    /// before this matters).
    static func headLength(_ second: UInt8) -> Int {
        switch second & 0x7F {
        case 126: 4
        case 127: 10
        default: 2
        }
    }

    /// Checks a whole frame header (at least ``headLength(_:)`` bytes) and starts the frame.
    private mutating func begin(_ head: UnsafeRawBufferPointer) -> Failure? {
        let first = head[0]
        let second = head[1]
        guard second & 0x80 == 0 else { return .protocolError("a masked frame from the server (RFC 6455 §5.1)") }
        guard first & 0x70 == 0 else { return .protocolError("a frame with reserved bits set and no extension") }
        let opcode = first & 0x0F
        let fin = first & 0x80 != 0
        var length = Int(second & 0x7F)
        if length == 126 {
            length = Int(head[2]) << 8 | Int(head[3])
            guard length >= 126 else { return .protocolError("a 16-bit length below 126 (not minimal)") }
        } else if length == 127 {
            var wide: UInt64 = 0
            for i in 2..<10 { wide = wide << 8 | UInt64(head[i]) }
            guard wide >> 63 == 0 else { return .protocolError("a 64-bit length with its top bit set") }
            guard wide > 0xFFFF else { return .protocolError("a 64-bit length below 65,536 (not minimal)") }
            // Past the limit, one more than it is enough for the checks below.
            length = wide > UInt64(maxMessageBytes) ? maxMessageBytes + 1 : Int(wide)
        }
        switch opcode {
        case 0x8, 0x9, 0xA:
            guard fin else { return .protocolError("a fragmented control frame") }
            guard length <= 125 else { return .protocolError("a control frame longer than 125 bytes") }
        case 0x0:
            guard fragmentedOpcode != 0 else {
                return .protocolError("a continuation frame with no message to continue")
            }
            guard message.count + length <= maxMessageBytes else { return tooBig() }
        case 0x1, 0x2:
            guard fragmentedOpcode == 0 else {
                return .protocolError("a new message before the fragmented one ended")
            }
            guard length <= maxMessageBytes else { return tooBig() }
            if !fin { fragmentedOpcode = opcode }
        default:
            return .protocolError("an unknown opcode \(opcode)")
        }
        inFrame = true
        frameOpcode = opcode
        frameFin = fin
        payloadLeft = length
        return nil
    }

    private func tooBig() -> Failure {
        Failure(code: 1009, reason: "a message longer than \(maxMessageBytes) bytes")
    }

    /// What to do after a control frame.
    private enum Step {
        case go
        case stop
        case fail(Failure)
    }

    /// Hands a whole control frame over.
    private mutating func controlFrame(_ payload: UnsafeRawBufferPointer, _ handle: (Event) -> Bool) -> Step {
        switch frameOpcode {
        case 0x9:
            return handle(.ping(payload)) ? .go : .stop
        case 0xA:
            return handle(.pong(payload)) ? .go : .stop
        default:
            guard payload.count != 1 else { return .fail(.protocolError("a close frame with a 1-byte payload")) }
            var code: UInt16?
            if payload.count >= 2 {
                let value = UInt16(payload[0]) << 8 | UInt16(payload[1])
                guard Self.isValidCloseCode(value) else {
                    return .fail(.protocolError("a close frame with the invalid code \(value)"))
                }
                code = value
            }
            finished = true
            let reason = UnsafeRawBufferPointer(rebasing: payload[min(2, payload.count)...])
            _ = handle(.close(code: code, reason: reason))
            return .stop
        }
    }

    /// Close codes a peer may send (RFC 6455 §7.4): 1000–1003, 1007–1014, 3000–4999.
    static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    private mutating func fail(_ failure: Failure) -> Failure {
        finished = true
        return failure
    }
}
