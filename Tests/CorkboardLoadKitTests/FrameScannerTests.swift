import CorkboardLoadKit
import Testing

func scan<T>(_ text: String, _ body: (FrameScanner) -> T) -> T {
    Array(text.utf8).withUnsafeBytes { body(FrameScanner(bytes: $0)) }
}

@Suite struct FrameScannerTests {
    static let hover =
        #"{"type":"dragHover","session":"p12s3t1000h33","member":"m7","target":{"collection":"c","section":"s","#
        + #""index":42,"intent":"insertAtDestinationIndexPath"},"proposal":{"operation":"move"}}"#

    @Test func kindIsTheFirstTypeNamingAServerMessage() {
        #expect(scan(Self.hover) { $0.kind } == .dragHover)
        #expect(scan(#"{"items":[{"type":"corkboard.card"}],"type":"op","seq":3}"#) { $0.kind } == .op)
        #expect(scan(#"{"type":"membersChanged"}"#) { $0.kind } == .other)
        #expect(scan(#"{"type":"opera"}"#) { $0.kind } == .unreadable)
        #expect(scan(#"{"kind":"x"}"#) { $0.kind } == .unreadable)
        #expect(scan("") { $0.kind } == .unreadable)
    }

    @Test func valuesAndIntegersAreReadInPlace() {
        scan(Self.hover) { frame in
            #expect(frame.string(#""session":""#) == "p12s3t1000h33")
            #expect(frame.value(#""member":""#).map { String(decoding: frame.slice($0), as: UTF8.self) } == "m7")
            #expect(frame.int(#""index":"#) == 42)
            #expect(frame.int(#""seq":"#) == nil)
        }
        scan(#"{"a":-17,"b":"x\"y","c":1}"#) { frame in
            #expect(frame.int(#""a":"#) == -17)
            #expect(frame.string(#""b":""#) == #"x\"y"#)
            #expect(frame.after(#""c":"#, from: 20) == 24)
            #expect(frame.after(#""c":"#, from: 21) == nil)
        }
    }

    @Test func stampsAreReadFromBytes() {
        let session = Stamp.session(peer: 12, drag: 3, start: 1000, hoverInterval: 33)
        #expect(session == "p12s3t1000h33")
        #expect(Stamp.session(session) == Stamp.Session(peer: 12, drag: 3, start: 1000, interval: 33))
        #expect(Stamp.hoverDue(session, number: 2) == 1066)
        #expect(Stamp.hoverDue(session, number: -1) == nil)
        // Another form that still ends in t<start>h<interval>.
        #expect(Stamp.session("dragxt5h2") == Stamp.Session(peer: nil, drag: nil, start: 5, interval: 2))
        #expect(Stamp.session("p1s2h5t9") == nil)
        #expect(Stamp.session("p1s2t99999999999999999999h1") == nil, "past UInt64")
        #expect(Stamp.sent(Stamp.op("p3d7", sent: 123_456)) == 123_456)
        #expect(Stamp.sent("p3d7t") == nil)
        #expect(Stamp.sent("nothing") == nil)
    }

    @Test func idHashesAgreeBetweenStringsAndBytes() {
        let id = "p3d7t123456"
        #expect(Array(id.utf8).withUnsafeBytes { IdHash.of($0) } == IdHash.of(id))
        #expect(IdHash.of("m1") != IdHash.of("m2"))
        #expect(IdHash.of("") != 0)
    }
}

@Suite struct ClientFrameTests {
    /// Unmasks a client frame; returns (opcode, payload).
    func unmask(_ frame: [UInt8]) -> (UInt8, [UInt8])? {
        guard frame.count >= 6, frame[0] & 0x80 != 0, frame[1] & 0x80 != 0 else { return nil }
        var length = Int(frame[1] & 0x7F)
        var at = 2
        if length == 126 {
            length = Int(frame[2]) << 8 | Int(frame[3])
            at = 4
        } else if length == 127 {
            length = frame[2..<10].reduce(0) { $0 << 8 | Int($1) }
            at = 10
        }
        let key = Array(frame[at..<at + 4])
        let payload = frame[(at + 4)...].enumerated().map { $0.element ^ key[$0.offset & 3] }
        guard payload.count == length else { return nil }
        return (frame[0] & 0x0F, payload)
    }

    @Test(arguments: [0, 1, 7, 8, 9, 125, 126, 127, 65535, 65536, 70_000])
    func framesAreMaskedAndUnmaskBack(_ size: Int) {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var out: [UInt8] = [9, 9]
        payload.withUnsafeBytes {
            ClientFrame.append(opcode: ClientFrame.text, payload: $0, maskKey: 0xA1B2_C3D4, to: &out)
        }
        #expect(out[..<2] == [9, 9], "appends after what was there")
        let decoded = unmask(Array(out[2...]))
        #expect(decoded?.0 == 1)
        #expect(decoded?.1 == payload)
        if size >= 8 { #expect(Array(out.suffix(size)) != payload, "the payload is masked") }
    }

    @Test func closeFramesCarryCodeAndReason() {
        var out: [UInt8] = []
        ClientFrame.appendClose(code: 1002, reason: "bad frame", maskKey: 77, to: &out)
        let decoded = unmask(out)
        #expect(decoded?.0 == 8)
        #expect(decoded?.1 == [0x03, 0xEA] + Array("bad frame".utf8))
    }
}
