import CLinuxShim
import CorkboardTesting
import CorkboardTransport
import Foundation
import Synchronization
import Testing

/// `ServerConfiguration.readWaitObserver`: how long a message's bytes waited in their socket
/// before the service thread read them (`corkboard_read_wait_seconds`).
@Suite(.timeLimit(.minutes(1))) struct ReadWaitTests {
    /// How long the second message sits in its socket, at least, while the handler holds the
    /// service thread on the first.
    static let held = Duration.milliseconds(150)

    /// A masked text frame (payload under 126 bytes).
    static func textFrame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        let mask: [UInt8] = [0x0a, 0x1b, 0x2c, 0x3d]
        let masked = payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return [0x81, 0x80 | UInt8(payload.count)] + mask + masked
    }

    /// A server whose handler holds the service thread on the message "first" until `release`
    /// is signalled (10 s at most).
    static func server(
        loop: ServerConfiguration.EventLoop, observe: (@Sendable (Duration) -> Void)?, messages: Recorder<String>,
        release: DispatchSemaphore
    ) throws -> WebSocketServer {
        var c = ServerConfiguration(host: "127.0.0.1", port: 0)
        c.eventLoop = loop
        c.readWaitObserver = observe
        let server = WebSocketServer(configuration: c, logger: testLogger("server")) { event in
            guard case .message(_, let m) = event else { return }
            let text = String(decoding: m.bytes, as: UTF8.self)
            messages.append(text)
            if text == "first" { _ = release.wait(timeout: .now() + 10) }
        }
        try server.start()
        return server
    }

    /// Upgrades, sends "first", and "second" once the server is busy with the first; lets the
    /// handler go ``held`` after the second was sent (on loopback, with `TCP_NODELAY`, it is in the
    /// server's socket when `send` returns). Bytes that reach a socket before the shard adopts it carry no arrival time
    /// (the upgrade request's read is not timed), so the frames wait for the `101`.
    static func sendWhileBusy(port: Int, messages: Recorder<String>, release: DispatchSemaphore) async {
        let fd = RawHTTP.connect(port: port)
        defer { close(fd) }
        // Without it Nagle would hold the second frame until the first is acknowledged (a
        // delayed ACK, up to 40 ms), and the kernel would stamp it that much later.
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        RawHTTP.sendAll(fd, Array(RawHTTP.upgrade(port: port).utf8))
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) && recv(fd, &byte, 1, 0) == 1 { head.append(byte) }
        #expect(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101"))
        RawHTTP.sendAll(fd, textFrame("first"))
        #expect(await eventually { messages.all == ["first"] })
        RawHTTP.sendAll(fd, textFrame("second"))
        try? await Task.sleep(for: held)
        release.signal()
        #expect(await eventually { messages.all == ["first", "second"] })
    }

    @Test(arguments: ServerConfiguration.EventLoop.allCases)
    func aMessageSentWhileTheServiceThreadIsBusyReportsHowLongItWaited(
        loop: ServerConfiguration.EventLoop
    ) async throws {
        let waits = Mutex<[Duration]>([])
        let messages = Recorder<String>()
        let release = DispatchSemaphore(value: 0)
        let server = try Self.server(
            loop: loop, observe: { w in waits.withLock { $0.append(w) } }, messages: messages, release: release)
        await Self.sendWhileBusy(port: server.boundPort, messages: messages, release: release)
        // One wait per read: each message came in a read of its own.
        let seen = waits.withLock { $0 }
        #expect(seen.count == 2, "\(seen)")
        // The second sat in its socket at least `held` while the handler held the thread.
        if seen.count == 2 {
            #expect(seen[1] >= Self.held, "\(seen)")
            #expect(seen[1] <= .seconds(30), "\(seen)")
        }
        await server.shutdown()
    }

    @Test func aServerTimingReadsKeepsTheKernelStampingArrivals() async throws {
        // Linux switches stamping on late (a deferred work item) and off with the last socket
        // asking for it: without the server's hold, a fresh probe, the only timed socket, comes
        // unstamped about two times in five.
        let server = try Self.server(
            loop: .libuv, observe: { _ in }, messages: Recorder<String>(), release: DispatchSemaphore(value: 0))
        let probes = await io { (0..<20).map { _ in clinux_timestamps_stamping() } }
        #expect(probes.allSatisfy { $0 == 1 }, "\(probes)")
        await server.shutdown()
    }

    @Test func withoutAnObserverReadsAreNotTimed() async throws {
        // The same exchange works untimed (the plain recv path), and a server timing reads does
        // not time another's: a second server in the process with an observer sees only its own.
        let waits = Mutex<[Duration]>([])
        let untimedMessages = Recorder<String>()
        let (untimedRelease, timedRelease) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let untimed = try Self.server(
            loop: .libuv, observe: nil, messages: untimedMessages, release: untimedRelease)
        let timedMessages = Recorder<String>()
        let timed = try Self.server(
            loop: .libuv, observe: { w in waits.withLock { $0.append(w) } }, messages: timedMessages,
            release: timedRelease)
        await Self.sendWhileBusy(port: untimed.boundPort, messages: untimedMessages, release: untimedRelease)
        #expect(waits.withLock { $0 }.isEmpty)
        await Self.sendWhileBusy(port: timed.boundPort, messages: timedMessages, release: timedRelease)
        #expect(waits.withLock { $0 }.count == 2)
        await untimed.shutdown()
        await timed.shutdown()
    }
}
