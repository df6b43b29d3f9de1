import CorkboardTesting
import CorkboardTransport
import Foundation
import Synchronization
import Testing

/// `ServerConfiguration.readWaitObserver`: how long a message's bytes waited in their socket
/// before the service thread read them (`corkboard_read_wait_seconds`).
@Suite(.timeLimit(.minutes(1))) struct ReadWaitTests {
    /// How long the handler keeps the service thread on the first message.
    static let busy = Duration.milliseconds(300)

    /// A masked text frame (payload under 126 bytes).
    static func textFrame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        let mask: [UInt8] = [0x0a, 0x1b, 0x2c, 0x3d]
        let masked = payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return [0x81, 0x80 | UInt8(payload.count)] + mask + masked
    }

    /// A server whose handler holds the service thread for ``busy`` on the message "first".
    static func server(
        loop: ServerConfiguration.EventLoop, observe: (@Sendable (Duration) -> Void)?, messages: Recorder<String>
    ) throws -> WebSocketServer {
        var c = ServerConfiguration(host: "127.0.0.1", port: 0)
        c.eventLoop = loop
        c.readWaitObserver = observe
        let server = WebSocketServer(configuration: c, logger: testLogger("server")) { event in
            guard case .message(_, let m) = event else { return }
            let text = String(decoding: m.bytes, as: UTF8.self)
            messages.append(text)
            if text == "first" {
                var pause = timespec(tv_sec: 0, tv_nsec: Int(busy.components.attoseconds / 1_000_000_000))
                nanosleep(&pause, nil)
            }
        }
        try server.start()
        return server
    }

    /// Upgrades, then sends "first", and "second" once the server is busy with the first. (Bytes
    /// that reach a socket before the shard adopts it carry no arrival time: the upgrade request's
    /// read is not timed, so the frames wait for the `101`.)
    static func sendWhileBusy(port: Int, messages: Recorder<String>) async {
        let fd = RawHTTP.connect(port: port)
        defer { close(fd) }
        RawHTTP.sendAll(fd, Array(RawHTTP.upgrade(port: port).utf8))
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) && recv(fd, &byte, 1, 0) == 1 { head.append(byte) }
        #expect(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101"))
        RawHTTP.sendAll(fd, textFrame("first"))
        #expect(await eventually { messages.all == ["first"] })
        RawHTTP.sendAll(fd, textFrame("second"))
        #expect(await eventually { messages.all == ["first", "second"] })
    }

    @Test(arguments: ServerConfiguration.EventLoop.allCases)
    func aMessageSentWhileTheServiceThreadIsBusyReportsHowLongItWaited(
        loop: ServerConfiguration.EventLoop
    ) async throws {
        let waits = Mutex<[Duration]>([])
        let messages = Recorder<String>()
        let server = try Self.server(loop: loop, observe: { w in waits.withLock { $0.append(w) } }, messages: messages)
        await Self.sendWhileBusy(port: server.boundPort, messages: messages)
        // One wait per read: each message came in a read of its own.
        let seen = waits.withLock { $0 }
        #expect(seen.count == 2, "\(seen)")
        // The second sat in its socket while the handler held the thread (it was sent at most a
        // poll of `eventually` after the first arrived, so it waited most of `busy`).
        if seen.count == 2 {
            #expect(seen[1] >= .milliseconds(100), "\(seen)")
            #expect(seen[1] <= .seconds(30), "\(seen)")
            #expect(seen[0] < seen[1], "the first found the thread idle: \(seen)")
        }
        await server.shutdown()
    }

    @Test func withoutAnObserverReadsAreNotTimed() async throws {
        // The same exchange works untimed (the plain recv path), and a server timing reads does
        // not time another's: a second server in the process with an observer sees only its own.
        let waits = Mutex<[Duration]>([])
        let untimedMessages = Recorder<String>()
        let untimed = try Self.server(loop: .libuv, observe: nil, messages: untimedMessages)
        let timedMessages = Recorder<String>()
        let timed = try Self.server(
            loop: .libuv, observe: { w in waits.withLock { $0.append(w) } }, messages: timedMessages)
        await Self.sendWhileBusy(port: untimed.boundPort, messages: untimedMessages)
        #expect(waits.withLock { $0 }.isEmpty)
        await Self.sendWhileBusy(port: timed.boundPort, messages: timedMessages)
        #expect(waits.withLock { $0 }.count == 2)
        await untimed.shutdown()
        await timed.shutdown()
    }
}
