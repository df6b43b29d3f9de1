import CorkboardLoadKit
import Testing

/// A server frame as bytes: unmasked, FIN as given, the length in the form asked for.
func serverFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = false) -> [UInt8] {
    var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
    let mask: UInt8 = masked ? 0x80 : 0
    if payload.count < 126 {
        out.append(mask | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
        out += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
        out.append(mask | 127)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((payload.count >> shift) & 0xFF)) }
    }
    if masked {
        let key: [UInt8] = [1, 2, 3, 4]
        out += key
        out += payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
    } else {
        out += payload
    }
    return out
}

/// What a reader handed over, as values.
enum Seen: Equatable {
    case text([UInt8])
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    case close(UInt16?, String)
    case failed(UInt16, String)
}

/// Feeds `chunks` to a fresh reader, one read each; returns what it handed over.
func read(_ chunks: [[UInt8]], max: Int = 1 << 20) -> [Seen] {
    var reader = ServerFrameReader(maxMessageBytes: max)
    var seen: [Seen] = []
    for chunk in chunks {
        let failure = chunk.withUnsafeBytes { bytes in
            reader.read(bytes) { event in
                switch event {
                case .text(let b): seen.append(.text(Array(b)))
                case .binary(let b): seen.append(.binary(Array(b)))
                case .ping(let b): seen.append(.ping(Array(b)))
                case .pong(let b): seen.append(.pong(Array(b)))
                case .close(let code, let reason): seen.append(.close(code, String(decoding: reason, as: UTF8.self)))
                }
                return true
            }
        }
        if let failure {
            seen.append(.failed(failure.code, failure.reason))
            break
        }
    }
    return seen
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite struct ServerFrameReaderTests {
    /// Small, 16-bit and fragmented messages, a ping inside the fragmented one, a pong, a binary
    /// message, an empty message and a close.
    static let stream: [UInt8] = {
        var out = serverFrame(1, bytes(#"{"type":"op","seq":1}"#))
        out += serverFrame(1, Array(repeating: UInt8(ascii: "a"), count: 300))
        out += serverFrame(1, bytes("frag-"), fin: false)
        out += serverFrame(9, bytes("are you there"))
        out += serverFrame(0, bytes("ment"), fin: false)
        out += serverFrame(0, bytes("ed"))
        out += serverFrame(0xA, [])
        out += serverFrame(2, [0, 1, 2, 255])
        out += serverFrame(1, [])
        out += serverFrame(8, [0x03, 0xE9] + bytes("going away"))
        return out
    }()

    static let expected: [Seen] = [
        .text(bytes(#"{"type":"op","seq":1}"#)), .text(Array(repeating: UInt8(ascii: "a"), count: 300)),
        .ping(bytes("are you there")), .text(bytes("frag-mented")), .pong([]), .binary([0, 1, 2, 255]), .text([]),
        .close(1001, "going away"),
    ]

    @Test func wholeStreamInOneRead() {
        #expect(read([Self.stream]) == Self.expected)
    }

    @Test func streamSplitInTwoAtEveryByteBoundary() {
        for cut in 0...Self.stream.count {
            let seen = read([Array(Self.stream[..<cut]), Array(Self.stream[cut...])])
            #expect(seen == Self.expected, "cut at \(cut)")
        }
    }

    @Test func streamSplitInThreeAtManyBoundaries() {
        for first in stride(from: 0, through: Self.stream.count, by: 3) {
            for second in stride(from: first, through: Self.stream.count, by: 7) {
                let seen = read([
                    Array(Self.stream[..<first]), Array(Self.stream[first..<second]), Array(Self.stream[second...]),
                ])
                #expect(seen == Self.expected, "cuts at \(first) and \(second)")
            }
        }
    }

    @Test func streamOneByteAtATime() {
        #expect(read(Self.stream.map { [$0] }) == Self.expected)
    }

    @Test func manySmallFramesInOneReadAreHandedOverInPlace() {
        var input: [UInt8] = []
        for n in 0..<50 { input += serverFrame(1, bytes(#"{"type":"dragHover","index":\#(n)}"#)) }
        var reader = ServerFrameReader(maxMessageBytes: 1 << 20)
        var count = 0
        var inPlace = true
        input.withUnsafeBytes { buffer in
            let failure = reader.read(buffer) { event in
                guard case .text(let message) = event else { return false }
                let range = buffer.baseAddress!..<(buffer.baseAddress! + buffer.count)
                inPlace = inPlace && range.contains(message.baseAddress!)
                #expect(String(decoding: message, as: UTF8.self) == #"{"type":"dragHover","index":\#(count)}"#)
                count += 1
                return true
            }
            #expect(failure == nil)
        }
        #expect(count == 50)
        #expect(inPlace, "a message whole in its read is a slice of the read buffer, not a copy")
    }

    @Test func sixteenAndSixtyFourBitLengths() {
        let medium = (0..<65535).map { UInt8($0 % 251) }
        let large = (0..<70_001).map { UInt8($0 % 241) }
        let input = serverFrame(2, medium) + serverFrame(2, large) + serverFrame(1, bytes("after"))
        let expected: [Seen] = [.binary(medium), .binary(large), .text(bytes("after"))]
        #expect(read([input]) == expected)
        // Split around the headers and inside the payloads.
        let cuts = Array(0..<16) + [65_538, 65_539, 65_540, 65_545, 65_548, 65_549, 100_000, input.count - 8]
        for cut in cuts {
            #expect(read([Array(input[..<cut]), Array(input[cut...])]) == expected, "cut at \(cut)")
        }
        #expect(
            read(stride(from: 0, to: input.count, by: 4096).map { Array(input[$0..<min($0 + 4096, input.count)]) })
                == expected)
    }

    @Test func maskedServerFrameFails() {
        let seen = read([serverFrame(1, bytes("hi"), masked: true)])
        #expect(seen.count == 1)
        guard case .failed(1002, let reason) = seen.first else {
            Issue.record("expected a 1002 failure, got \(seen)")
            return
        }
        #expect(reason.contains("masked"))
    }

    @Test func maskedServerFrameFailsWhenItsHeaderSpansReads() {
        let frame = serverFrame(1, bytes("hi"), masked: true)
        let seen = read([[frame[0]], Array(frame[1...])])
        #expect(seen.map(code) == [1002])
    }

    @Test func oversizedMessagesFailWith1009() {
        #expect(read([serverFrame(1, Array(repeating: 65, count: 200))], max: 100).first.map(code) == 1009)
        // A fragmented message whose fragments add up past the limit.
        let fragments =
            serverFrame(1, Array(repeating: 65, count: 60), fin: false)
            + serverFrame(0, Array(repeating: 65, count: 60))
        #expect(read([fragments], max: 100).last.map(code) == 1009)
        // A 64-bit length past the limit fails on the header alone.
        let header: [UInt8] = [0x81, 127, 0, 0, 0, 1, 0, 0, 0, 0]
        #expect(read([header], max: 100).first.map(code) == 1009)
    }

    @Test(arguments: [
        ("reserved bits", [0xC1, 0x00] as [UInt8]),
        ("unknown opcode", [0x83, 0x00]),
        ("fragmented control frame", [0x09, 0x00]),
        ("long control frame", [0x89, 126, 0, 126] + [UInt8](repeating: 0, count: 126)),
        ("continuation without a message", [0x80, 0x00]),
        ("new message inside a fragmented one", [0x01, 0x01, 0x41, 0x81, 0x01, 0x42]),
        ("non-minimal 16-bit length", [0x81, 126, 0, 5, 1, 2, 3, 4, 5]),
        ("non-minimal 64-bit length", [0x81, 127, 0, 0, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4, 5]),
        ("close with one byte", [0x88, 0x01, 0x03]),
        ("close with code 1005", [0x88, 0x02, 0x03, 0xED]),
    ])
    func malformedFramesFailWith1002(_ name: String, _ input: [UInt8]) {
        let seen = read([input])
        #expect(seen.last.map(code) == 1002, "\(name): \(seen)")
    }

    @Test func nothingIsReadAfterAClose() {
        let input = serverFrame(8, [0x03, 0xE8]) + serverFrame(1, bytes("late"))
        #expect(read([input]) == [.close(1000, "")])
    }

    @Test func emptyCloseHasNoCode() {
        #expect(read([serverFrame(8, [])]) == [.close(nil, "")])
    }
}

private func code(_ seen: Seen) -> UInt16 {
    if case .failed(let code, _) = seen { return code }
    return 0
}
