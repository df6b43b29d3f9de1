import CorkboardModel

/// Writes the frames a client sends (RFC 6455 §5.2, §5.3): FIN set, masked with a 4-byte key.
public enum ClientFrame {
    public static let text: UInt8 = 0x1
    public static let binary: UInt8 = 0x2
    public static let close: UInt8 = 0x8
    public static let pong: UInt8 = 0xA

    /// Appends one whole frame of `opcode` carrying `payload`, masked with `maskKey`, to `out`.
    ///
    /// - Complexity: O(`payload.count`); the payload is masked eight bytes at a time.
    public static func append(
        opcode: UInt8, payload: UnsafeRawBufferPointer, maskKey: UInt32, to out: inout [UInt8]
    ) {
        let length = payload.count
        out.reserveCapacity(out.count + length + 14)
        out.append(0x80 | opcode)
        if length < 126 {
            out.append(0x80 | UInt8(length))
        } else if length <= 0xFFFF {
            out.append(0x80 | 126)
            out.append(UInt8(length >> 8))
            out.append(UInt8(length & 0xFF))
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8((UInt64(length) >> UInt64(shift)) & 0xFF))
            }
        }
        // The key's bytes in memory order, and the same four bytes twice for eight at a time.
        withUnsafeBytes(of: maskKey) { out.append(contentsOf: $0) }
        let wide = withUnsafeBytes(of: (maskKey, maskKey)) { $0.load(as: UInt64.self) }
        let start = out.count
        out.append(contentsOf: payload)
        out.withUnsafeMutableBytes { raw in
            let bytes = raw.baseAddress! + start
            var i = 0
            while i + 8 <= length {
                let masked = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ wide
                bytes.storeBytes(of: masked, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            let key = raw.baseAddress! + start - 4
            while i < length {
                raw[start + i] ^= key.load(fromByteOffset: i & 3, as: UInt8.self)
                i += 1
            }
        }
    }

    /// Appends a close frame with `code` and `reason` (cut to fit a control frame's 125 bytes).
    public static func appendClose(code: UInt16, reason: String, maskKey: UInt32, to out: inout [UInt8]) {
        var payload: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
        payload.append(contentsOf: reason.utf8.prefix(123))
        payload.withUnsafeBytes { append(opcode: close, payload: $0, maskKey: maskKey, to: &out) }
    }
}

/// Masking keys for one lane's frames.
///
/// RFC 6455 §10.3 asks for keys an intermediary cannot predict, against cache poisoning through
/// proxies that do not understand WebSocket. The load tool talks to its own server, usually over
/// loopback, so a fast seeded generator (SplitMix64, seeded from the system's random source) is
/// enough here; a browser-facing client would draw every key from a strong source.
struct MaskKeys {
    private var random: SplitMix64

    init() { random = SplitMix64(seed: UInt64.random(in: .min ... .max)) }

    /// The next key.
    mutating func next() -> UInt32 { UInt32(truncatingIfNeeded: random.next()) }
}
