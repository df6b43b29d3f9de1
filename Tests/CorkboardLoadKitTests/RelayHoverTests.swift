import CorkboardLoadKit
import Testing

@Suite struct RelayHoverTests {
    /// What the y-websocket server (y-protocols 1.0.5, lib0) broadcast after a client set client
    /// 123456's state to `{"from":1,"sent":"123456789"}` at clock 1: recorded from the Debian
    /// package's server, so the encoder is checked against the real one rather than against itself.
    static let recordedAwareness: [UInt8] =
        [0x01, 0x23, 0x01, 0xC0, 0xC4, 0x07, 0x01, 0x1D] + Array(#"{"from":1,"sent":"123456789"}"#.utf8)

    @Test func anAwarenessUpdateIsEncodedAsY_websocketEncodesIt() {
        let state = Array(#"{"from":1,"sent":"123456789"}"#.utf8)
        #expect(YjsMessage.awarenessUpdate(clientID: 123_456, clock: 1, state: state) == Self.recordedAwareness)
    }

    @Test func anAwarenessUpdateDecodesToItsStates() {
        var states: [(UInt64, UInt64, String)] = []
        let kind = Self.recordedAwareness.withUnsafeBytes { message in
            YjsMessage.read(message) { states.append(($0, $1, String(decoding: $2, as: UTF8.self))) }
        }
        #expect(kind == .awareness(states: 1))
        #expect(states.count == 1)
        #expect(states.first?.0 == 123_456 && states.first?.1 == 1)
        #expect(states.first?.2 == #"{"from":1,"sent":"123456789"}"#)
    }

    @Test func syncAndUnknownMessagesAreNamedAndBrokenOnesRefused() {
        func kind(_ bytes: [UInt8]) -> YjsMessage.Kind {
            bytes.withUnsafeBytes { YjsMessage.read($0) { _, _, _ in Issue.record("no state expected") } }
        }
        #expect(kind(YjsMessage.syncStep1OfEmptyDocument) == .sync)
        #expect(kind([0x02, 0x00]) == .other(2))
        #expect(kind([]) == .malformed)
        // Every proper prefix of a whole update is refused, and nothing of it is handed over.
        for length in 0..<Self.recordedAwareness.count {
            #expect(kind(Array(Self.recordedAwareness.prefix(length))) == .malformed)
        }
        // A state whose length runs past the update's end.
        #expect(kind([0x01, 0x05, 0x01, 0x07, 0x01, 0x09, 0x41]) == .malformed)
    }

    @Test func varUIntRoundTripsAndRefusesOverlongInput() {
        for value: UInt64 in [0, 1, 127, 128, 300, 16_383, 16_384, UInt64(UInt32.max), UInt64.max] {
            var bytes: [UInt8] = []
            VarUInt.append(value, to: &bytes)
            var at = 0
            #expect(bytes.withUnsafeBytes { VarUInt.read($0, &at) } == value)
            #expect(at == bytes.count)
        }
        var bytes: [UInt8] = []
        VarUInt.append(128, to: &bytes)
        #expect(bytes == [0x80, 0x01])
        var at = 0
        let tooLong = [UInt8](repeating: 0xFF, count: 10) + [0x01]
        #expect(tooLong.withUnsafeBytes { VarUInt.read($0, &at) } == nil)
        #expect(at == 0)
        #expect([UInt8]([0x80, 0x80]).withUnsafeBytes { VarUInt.read($0, &at) } == nil)
    }

    @Test func aHoverCarriesItsSenderAndDueTimeAndIsPaddedToSize() {
        let sent: UInt64 = 18_446_744_073_709_551_615
        let hover = RelayHover.json(from: 7, seq: 123, sent: sent, bytes: 250)
        #expect(hover.count == 250)
        #expect(hover.withUnsafeBytes { RelayHover.read($0) }.map { [UInt64($0.from), $0.sent] } == [7, sent])
        // Smaller than its fields: not cut.
        let short = RelayHover.json(from: 7, seq: 123, sent: 5, bytes: 64)
        #expect(short.count > 64)
        #expect(short.withUnsafeBytes { RelayHover.read($0) }?.sent == 5)
        #expect(Array(#"{"from":7}"#.utf8).withUnsafeBytes { RelayHover.read($0) } == nil)
        #expect(Array(#"{"from":7,"sent":"x"}"#.utf8).withUnsafeBytes { RelayHover.read($0) } == nil)
    }
}
