import CFrameGuard
import Testing

/// The frame guard's stream logic (`CFrameGuard`) as pure functions: which bytes reach
/// libwebsockets, and which frame RFC 6455 forbids (issue 19). The same checks over real sockets,
/// ws and wss, are in Tests/python/test_frame_guard.py.
@Suite struct FrameGuardTests {
    /// A client frame: masked unless told otherwise, with the length in the form `form` forces
    /// (nil: the shortest).
    static func frame(
        _ payload: [UInt8], opcode: UInt8 = 0x1, fin: Bool = true, masked: Bool = true, form: Int? = nil
    ) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let bit: UInt8 = masked ? 0x80 : 0
        let n = payload.count
        switch form ?? (n < 126 ? 0 : n < 65536 ? 126 : 127) {
        case 0: out.append(bit | UInt8(n))
        case 126: out += [bit | 126, UInt8(n >> 8), UInt8(n & 0xff)]
        default: out += [bit | 127] + (0..<8).reversed().map { UInt8((n >> ($0 * 8)) & 0xff) }
        }
        guard masked else { return out + payload }
        let key: [UInt8] = [0x0f, 0xa5, 0x3c, 0x81]
        return out + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    static let upgrade = Array(
        ("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)

    /// A stream past its upgrade, as the transport has it after ESTABLISHED.
    static func established() -> cfg_stream_t {
        var s = cfg_stream_t()
        cfg_stream_init(&s)
        #expect(cfg_stream_established(&s) == CFG_VIOLATION_NONE)
        return s
    }

    static func inspect(_ s: inout cfg_stream_t, _ bytes: [UInt8]) -> (keep: Int, violation: cfg_violation_t) {
        var violation = CFG_VIOLATION_NONE
        let keep = bytes.withUnsafeBufferPointer { cfg_stream_inspect(&s, $0.baseAddress, $0.count, &violation) }
        return (keep, violation)
    }

    /// Feeds `bytes` in pieces of `size`; returns the bytes handed on and the violations seen.
    static func feed(_ s: inout cfg_stream_t, _ bytes: [UInt8], pieces size: Int) -> ([UInt8], [cfg_violation_t]) {
        var handed: [UInt8] = []
        var violations: [cfg_violation_t] = []
        var at = 0
        while at < bytes.count {
            let piece = Array(bytes[at..<min(at + size, bytes.count)])
            let (keep, violation) = inspect(&s, piece)
            handed += piece[..<keep]
            if violation != CFG_VIOLATION_NONE { violations.append(violation) }
            at += size
        }
        return (handed, violations)
    }

    static let wellFormed: [UInt8] =
        frame([]) + frame(Array(repeating: 1, count: 125), opcode: 0x2) + frame(Array(repeating: 2, count: 126))
        + frame(Array(repeating: 3, count: 65535), opcode: 0x2) + frame(Array(repeating: 4, count: 65536))
        + frame(Array("x".utf8), opcode: 0x9) + frame([], opcode: 0xA)
        + frame(Array("frag".utf8), fin: false) + frame(Array("ment".utf8), opcode: 0x0)
        + frame(Array("short in long form".utf8), form: 127) + frame(Array(repeating: 5, count: 125), opcode: 0x9)

    @Test(arguments: [1, 2, 3, 5, 7, 13, 14, 100, 4096, 1 << 20])
    func wellFormedFramesPassWhateverTheReadSizes(size: Int) {
        var s = Self.established()
        let (handed, violations) = Self.feed(&s, Self.wellFormed, pieces: size)
        #expect(violations.isEmpty)
        #expect(handed == Self.wellFormed)
    }

    @Test func anUnmaskedFrameIsCutOffWithEverythingAfterIt() {
        var s = Self.established()
        let good = Self.frame(Array("hello".utf8))
        let (keep, violation) = Self.inspect(
            &s, good + Self.frame(Array("bad".utf8), masked: false) + Self.frame(Array("after".utf8)))
        #expect(violation == CFG_VIOLATION_UNMASKED)
        #expect(keep == good.count, "only the frame before the unmasked one reaches libwebsockets")
        #expect(Self.inspect(&s, Self.frame(Array("later".utf8))) == (0, CFG_VIOLATION_NONE), "then nothing")
    }

    @Test(arguments: [
        Self.frame([], masked: false), Self.frame(Array("ping".utf8), opcode: 0x9, masked: false),
        Self.frame(Array(repeating: 7, count: 300), opcode: 0x2, masked: false),
        Self.frame(Array("c".utf8), opcode: 0x0, fin: true, masked: false),
    ])
    func everyUnmaskedFrameIsAViolation(bad: [UInt8]) {
        var s = Self.established()
        #expect(Self.inspect(&s, bad) == (0, CFG_VIOLATION_UNMASKED))
    }

    @Test(arguments: [0x8, 0x9, 0xA] as [UInt8], [126, 127])
    func controlFramesInTheLongLengthFormsAreViolations(opcode: UInt8, form: Int) {
        var s = Self.established()
        let lead = Self.frame(Array("ok".utf8))
        let (keep, violation) = Self.inspect(&s, lead + Self.frame(Array("abcde".utf8), opcode: opcode, form: form))
        #expect(violation == CFG_VIOLATION_CONTROL_TOO_LONG)
        #expect(keep == lead.count)
    }

    @Test func aSixtyFourBitLengthWithItsTopBitSetIsAViolation() {
        var s = Self.established()
        let header: [UInt8] = [0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4]
        #expect(Self.inspect(&s, header) == (0, CFG_VIOLATION_LENGTH_TOP_BIT))
    }

    @Test func aHeaderSplitAcrossReadsIsJudgedWhenItsDecidingByteArrives() {
        var s = Self.established()
        let good = Self.frame(Array("one".utf8))
        let bad = Self.frame(Array("two".utf8), masked: false)
        // The first read ends with the bad frame's first byte: it passes (nothing to judge yet)…
        #expect(Self.inspect(&s, good + [bad[0]]) == (good.count + 1, CFG_VIOLATION_NONE))
        // …and the byte that shows the missing mask is swallowed with the rest.
        #expect(Self.inspect(&s, Array(bad[1...])) == (0, CFG_VIOLATION_UNMASKED))
    }

    @Test func aCloseFrameEndsTheChecks() {
        var s = Self.established()
        let close = Self.frame([0x03, 0xE8], opcode: 0x8)
        #expect(Self.inspect(&s, close + [0x81, 0x00]) == (close.count + 2, CFG_VIOLATION_NONE))
    }

    @Test(arguments: [1, 2, 5, 1000])
    func framesThatCameWithTheUpgradeRequestAreChecked(size: Int) {
        var s = cfg_stream_t()
        cfg_stream_init(&s)
        let good = Self.frame(Array("early".utf8))
        let stream = Self.upgrade + good + Self.frame(Array("bad".utf8), masked: false) + good
        let (handed, violations) = Self.feed(&s, stream, pieces: size)
        // The bad frame's first byte passes when it is read alone (nothing to judge yet).
        #expect(handed == Self.upgrade + good || handed == Self.upgrade + good + [0x81])
        #expect(violations == [CFG_VIOLATION_UNMASKED])
        #expect(cfg_stream_established(&s) == CFG_VIOLATION_UNMASKED, "reported when the upgrade completes")
        #expect(cfg_stream_established(&s) == CFG_VIOLATION_NONE, "and only once")
    }

    @Test func httpRequestsAndTheirBodiesBeforeTheUpgradeAreNotFrames() {
        var s = cfg_stream_t()
        cfg_stream_init(&s)
        // A body that looks like an upgrade head must be skipped as a body.
        let body = Array("x\r\nUpgrade: websocket\r\n\r\n".utf8)
        let post = Array("POST /api HTTP/1.1\r\nHost: h\r\ncontent-LENGTH: \(body.count)\r\n\r\n".utf8) + body
        let get = Array("GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        let stream = post + get + Self.upgrade + Self.frame(Array("bad".utf8), masked: false)
        let (handed, violations) = Self.feed(&s, stream, pieces: 3)
        #expect(handed == post + get + Self.upgrade + [0x81], "the bad frame's first byte came alone: it passes")
        #expect(violations == [CFG_VIOLATION_UNMASKED])
    }

    @Test func aRefusedUpgradeGoesBackToHTTP() {
        var s = cfg_stream_t()
        cfg_stream_init(&s)
        #expect(Self.inspect(&s, Self.upgrade) == (Self.upgrade.count, CFG_VIOLATION_NONE))
        cfg_stream_refused(&s)
        let next = Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        #expect(Self.inspect(&s, next) == (next.count, CFG_VIOLATION_NONE), "a request, not an unmasked frame")
    }

    @Test func anUpgradeTheHeadScannerMissedStartsFramesAtEstablished() {
        var s = cfg_stream_t()
        cfg_stream_init(&s)
        let folded = Array("GET /ws HTTP/1.1\r\nUpgrade:\r\n websocket\r\n\r\n".utf8)
        #expect(Self.inspect(&s, folded) == (folded.count, CFG_VIOLATION_NONE))
        #expect(cfg_stream_established(&s) == CFG_VIOLATION_NONE)
        #expect(Self.inspect(&s, Self.frame([], masked: false)) == (0, CFG_VIOLATION_UNMASKED))
    }

    @Test func theGuardIsInTheReadPathOfThisProcess() {
        #expect(cfg_interposed() == 1, "the test binary must export the guard's recv and SSL_read")
    }
}
