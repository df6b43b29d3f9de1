import CorkboardTesting
import CorkboardTransport
import Testing

/// Frames RFC 6455 forbids a client, sent over a real socket to the transport (issue 19): the
/// client gets a close frame 1002 naming the problem, the application a `.disconnected` with 1002
/// and never the frame. Tests/python/test_frame_guard.py runs the whole matrix (ws and wss, /ws and
/// the echo path, every kind of bad frame) against `corkboard serve`.
@Suite(.timeLimit(.minutes(1))) struct FrameGuardSocketTests {
    /// Sends `bad` after the upgrade; returns the close frame's code and reason.
    static func closeAfterSending(_ bad: [UInt8], port: Int) async -> (code: Int?, reason: String)? {
        await io {
            guard let ws = try? RawWebSocket(port: port), (try? ws.sendRaw(bad)) != nil else { return nil }
            while let frame = try? ws.next() {
                if case .close(let code, let reason) = frame { return (code, reason) }
            }
            return nil
        }
    }

    static let unmaskedText: [UInt8] = [0x81, 0x05] + Array("hello".utf8)
    static let pingWithSixteenBitLength: [UInt8] = [0x89, 0x80 | 126, 0, 5, 1, 2, 3, 4] + Array("abcde".utf8)

    @Test(arguments: ServerConfiguration.EventLoop.allCases)
    func anUnmaskedFrameIsClosed1002AndNeverDelivered(loop: ServerConfiguration.EventLoop) async throws {
        let h = try ServerHarness { $0.eventLoop = loop }
        let close = await Self.closeAfterSending(Self.unmaskedText, port: h.server.boundPort)
        #expect(close?.code == 1002)
        #expect(close?.reason.contains("unmasked frame") == true)
        #expect(
            await eventually {
                h.events.all.contains { if case .disconnected(_, 1002, _) = $0 { true } else { false } }
            })
        #expect(h.messages.isEmpty, "the unmasked frame never reaches the application")
        await h.server.shutdown()
    }

    @Test(arguments: ServerConfiguration.EventLoop.allCases)
    func aControlFrameWithAnExtendedLengthGetsACloseFrame(loop: ServerConfiguration.EventLoop) async throws {
        let h = try ServerHarness { $0.eventLoop = loop }
        let close = await Self.closeAfterSending(Self.pingWithSixteenBitLength, port: h.server.boundPort)
        #expect(close?.code == 1002, "libwebsockets alone drops the TCP connection without a close frame")
        #expect(close?.reason.contains("control frame longer than 125 bytes") == true)
        await h.server.shutdown()
    }
}
