/// The hover that `corkboard-load relay` sends through a plain relay (the anchors Corkboard is
/// compared with): JSON shaped like Corkboard's `dragHover`, carrying who sent it and when.
///
/// `{"type":"dragHover","from":F,"seq":N,"sent":"NS","session":"relay-pF","target":{…},"pad":"…"}`,
/// padded with `x`s to the size asked for. The send time is a string of decimal nanoseconds
/// (``Monotonic/nanos()``): as a JSON number it would lose digits in a JavaScript relay that parses
/// and re-encodes it (y-websocket does), past 2^53 ns (104 days of uptime).
public enum RelayHover {
    /// The hover's JSON, padded to `bytes` when its fields are shorter (about 180 bytes without
    /// padding).
    public static func json(from: Int, seq: Int, sent: UInt64, bytes: Int) -> [UInt8] {
        let head =
            #"{"type":"dragHover","from":\#(from),"seq":\#(seq),"sent":"\#(sent)","session":"relay-p\#(from)","#
            + #""target":{"collection":"board","section":"s\#(seq % 4)","index":\#(seq % 50),"#
            + #""intent":"insertAtDestinationIndexPath"},"pad":""#
        var out = Array(head.utf8)
        let tail = Array(#""}"#.utf8)
        out += repeatElement(UInt8(ascii: "x"), count: max(0, bytes - out.count - tail.count))
        out += tail
        return out
    }

    /// The sender and send time of a hover made by ``json(from:seq:sent:bytes:)`` (`nil` for
    /// anything without both fields).
    public static func read(_ json: UnsafeRawBufferPointer) -> (from: Int, sent: UInt64)? {
        guard let from = digits(after: #""from":"#, in: json), let sent = digits(after: #""sent":""#, in: json)
        else { return nil }
        return (Int(truncatingIfNeeded: from), sent)
    }

    /// The decimal number right after the first `key` in `bytes`.
    static func digits(after key: StaticString, in bytes: UnsafeRawBufferPointer) -> UInt64? {
        let keyBytes = UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        guard bytes.count >= keyBytes.count else { return nil }
        var at = 0
        while at + keyBytes.count <= bytes.count {
            if bytes[at] == keyBytes[0]
                && UnsafeRawBufferPointer(rebasing: bytes[at..<at + keyBytes.count])
                    .elementsEqual(keyBytes)
            {
                let start = at + keyBytes.count
                var end = start
                while end < bytes.count && bytes[end] >= UInt8(ascii: "0") && bytes[end] <= UInt8(ascii: "9") {
                    end += 1
                }
                return Stamp.number(bytes, start..<end)
            }
            at += 1
        }
        return nil
    }
}

/// The few messages of Yjs' y-websocket protocol a relay benchmark needs (y-protocols `sync.js`
/// and `awareness.js` over lib0's encoding): the client's opening sync step 1, and awareness
/// updates, both ways.
///
/// A message is a varuint message type (0 sync, 1 awareness) and its body. An awareness body is a
/// var-length byte array holding: a varuint count, then per client a varuint client id, a varuint
/// clock (a state with a clock not above the one the server holds is ignored) and the state's JSON
/// as a var-length UTF-8 string (`null` when the client left).
public enum YjsMessage {
    /// Message types.
    public static let sync: UInt64 = 0
    public static let awareness: UInt64 = 1

    /// Sync step 1 of an empty document: message type 0, sync step 1 (0), its state vector (no
    /// clients: the one byte 0) as a var-length byte array. A y-websocket client sends it first.
    public static let syncStep1OfEmptyDocument: [UInt8] = [0, 0, 1, 0]

    /// An awareness message setting client `clientID`'s state to `state` (JSON) at `clock`.
    public static func awarenessUpdate(clientID: UInt64, clock: UInt64, state: [UInt8]) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(state.count + 24)
        VarUInt.append(1, to: &body)
        VarUInt.append(clientID, to: &body)
        VarUInt.append(clock, to: &body)
        VarUInt.append(UInt64(state.count), to: &body)
        body += state
        var message: [UInt8] = []
        message.reserveCapacity(body.count + 6)
        VarUInt.append(awareness, to: &message)
        VarUInt.append(UInt64(body.count), to: &message)
        message += body
        return message
    }

    /// What ``read(_:_:)`` found.
    public enum Kind: Equatable, Sendable {
        /// An awareness update of this many client states (each handed to the closure).
        case awareness(states: Int)
        /// A sync message (its body is not read).
        case sync
        /// Another message type.
        case other(UInt64)
        /// Bytes that do not decode (truncated, or lengths past the end).
        case malformed
    }

    /// Reads a message; for an awareness update, calls `state` with every client's id, clock and
    /// state JSON (valid only during the call), in order.
    public static func read(
        _ message: UnsafeRawBufferPointer,
        _ state: (_ clientID: UInt64, _ clock: UInt64, _ json: UnsafeRawBufferPointer) -> Void
    ) -> Kind {
        var at = 0
        guard let type = VarUInt.read(message, &at) else { return .malformed }
        guard type == awareness else { return type == sync ? .sync : .other(type) }
        guard let length = VarUInt.read(message, &at), length <= UInt64(message.count - at) else { return .malformed }
        let end = at + Int(length)
        guard let count = VarUInt.read(message, &at, end: end) else { return .malformed }
        var states = 0
        while UInt64(states) < count {
            guard let clientID = VarUInt.read(message, &at, end: end), let clock = VarUInt.read(message, &at, end: end),
                let size = VarUInt.read(message, &at, end: end), size <= UInt64(end - at)
            else { return .malformed }
            state(clientID, clock, UnsafeRawBufferPointer(rebasing: message[at..<at + Int(size)]))
            at += Int(size)
            states += 1
        }
        return .awareness(states: states)
    }
}

/// lib0's unsigned varint: 7 bits a byte, least significant first, the high bit set on every byte
/// but the last.
public enum VarUInt {
    /// Appends `value`.
    public static func append(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value > 0x7F {
            out.append(0x80 | UInt8(value & 0x7F))
            value >>= 7
        }
        out.append(UInt8(value))
    }

    /// Reads one varint at `at` (before `end`, by default the buffer's end) and moves `at` past it;
    /// `nil` when it runs past the end or past 64 bits.
    public static func read(_ bytes: UnsafeRawBufferPointer, _ at: inout Int, end: Int? = nil) -> UInt64? {
        let end = min(end ?? bytes.count, bytes.count)
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var i = at
        while i < end {
            let byte = bytes[i]
            i += 1
            guard shift < 64, shift < 63 || byte & 0x7F <= 1 else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                at = i
                return value
            }
            shift += 7
        }
        return nil
    }
}
