import CorkboardTesting
import CorkboardTransport
import Glibc
import Testing

@Suite(.timeLimit(.minutes(1))) struct LifecycleTests {
    @Test func silentPeerIsPingedAndReaped() async throws {
        let h = try ServerHarness {
            $0.pingInterval = .seconds(1)
            $0.hangupAfter = .seconds(2)
        }
        let fd = h.rawWebSocket()
        defer { _ = close(fd) }
        // The recorded events, not a poll of the count: the connection lives about 3 s, which a
        // poll starved on a loaded machine could miss.
        #expect(await eventually { h.connectedIDs.count == 1 })
        #expect(await eventually(timeout: .seconds(15)) { h.server.connectionCount == 0 })
        #expect(h.events.all.contains { if case .disconnected = $0 { true } else { false } })
        // What the peer saw: the 101 response, then a PING frame (0x89), then EOF.
        let seen = await io { RawHTTP.readAll(fd) }
        #expect(seen.contains(0x89))
        await h.server.shutdown()
    }

    @Test func answeringClientStaysConnectedPastTheHangup() async throws {
        let h = try ServerHarness {
            $0.pingInterval = .seconds(1)
            $0.hangupAfter = .seconds(2)
        }
        let c = try ClientHarness()
        let id = try c.client.connect(to: h.url)
        #expect(await eventually { c.connected(id) })
        try await Task.sleep(for: .seconds(3.5))
        #expect(h.server.connectionCount == 1)
        await c.client.shutdown()
        await h.server.shutdown()
    }

    @Test func aPeerThatKeepsSendingStaysConnectedWithoutAnsweringPings() async throws {
        let h = try ServerHarness {
            $0.pingInterval = .seconds(1)
            $0.hangupAfter = .seconds(3)
        }
        let port = h.server.boundPort
        // The whole peer runs on a thread of its own, from the handshake to the checks: a text
        // frame every 200 ms for 5 s, past the hangup, and never a pong (a message is proof of
        // life too). Nothing in between waits for the cooperative pool, which the parallel suites
        // can starve for seconds: a loop of `Task.sleep` once left a gap longer than the hangup,
        // and a pause for the pool between the handshake and the first frame, or between the last
        // frame and the checks, would leave the peer as silent; the server would rightly close it.
        let peer = try await io { () throws -> (sent: Int, received: Int, open: Int, closed: Bool) in
            let socket = try RawWebSocket(port: port)  // upgraded (101); closed once the checks are read
            let start = ContinuousClock.now
            var sent = 0
            while ContinuousClock.now - start < .seconds(5) {
                try socket.sendRaw(FrameGuardTests.frame(Array("tick \(sent)".utf8)))
                sent += 1
                usleep(200_000)
            }
            // Within a second of the last frame, long before the hangup, and with the socket open.
            return withExtendedLifetime(socket) {
                let deadline = ContinuousClock.now + .seconds(1)
                while h.messages.count < sent && ContinuousClock.now < deadline { usleep(10_000) }
                let closed = h.events.all.contains { if case .disconnected = $0 { true } else { false } }
                return (sent, h.messages.count, h.server.connectionCount, closed)
            }
        }
        #expect(peer.sent >= 5, "frames went on for the whole 5 s")
        #expect(peer.received == peer.sent, "every frame reached the server")
        #expect(peer.open == 1)
        #expect(!peer.closed)
        await h.server.shutdown()
    }

    @Test func idleTCPConnectionHitsTheHandshakeTimeout() async throws {
        let h = try ServerHarness { $0.handshakeTimeout = .seconds(1) }
        // The wait for EOF on a thread of its own, not on one of the few cooperative threads, and
        // timed there: the time a starved pool takes to resume this task is not the server's.
        let port = h.server.boundPort
        let (n, waited) = await io {
            let start = ContinuousClock.now
            let fd = RawHTTP.connect(port: port, timeoutSeconds: 12)
            defer { _ = close(fd) }
            var b: UInt8 = 0
            return (recv(fd, &b, 1, 0), ContinuousClock.now - start)
        }
        #expect(n == 0)
        // Closed after the configured 1 s, well before the default 10 s.
        #expect(waited < .seconds(6), "closed after \(waited)")
        await h.server.shutdown()
    }

    @Test func shutdownClosesEveryWebSocketWith1001() async throws {
        let h = try ServerHarness()
        let c = try ClientHarness()
        let ids = try (0..<10).map { _ in try c.client.connect(to: h.url) }
        #expect(await eventually { h.server.connectionCount == 10 })
        let start = ContinuousClock.now
        await h.server.shutdown(timeout: .seconds(4))
        // It returns. Within its 4 s when the machine is quiet; but the shutdown waits with
        // `Task.sleep` on the cooperative pool, which the parallel suites can starve on two cores
        // (5.05 and 5.21 s were seen), so the bound leaves room for that and still catches a
        // shutdown that waits on its connections.
        #expect(ContinuousClock.now - start < .seconds(15))
        #expect(await eventually { ids.allSatisfy { c.closeCode($0) != nil } })
        for id in ids { #expect(c.closeCode(id) == .some(1001)) }
        // No longer accepting.
        #expect(await RawHTTP.getAsync(port: h.server.boundPort, "/ping")?.status == nil)
        await c.client.shutdown()
    }

    @Test func aShutdownWhoseDeadlineHasPassedStillFreesThePort() async throws {
        // A caller that runs late (a starved task) reaches the stop with no time left: the threads
        // still get their moment to stop, so the port can be bound again at once. Enough
        // connections over several threads that stopping takes a moment.
        let h = try ServerHarness { $0.threads = 3 }
        let port = h.server.boundPort
        let c = try ClientHarness()
        let ids = try (0..<150).map { _ in try c.client.connect(to: h.url) }
        #expect(await eventually { ids.allSatisfy { c.connected($0) } })
        await h.server.shutdown(timeout: .zero)
        let again = try ServerHarness { $0.port = port }
        #expect(again.server.boundPort == port)
        await again.server.shutdown()
        await c.client.shutdown()
    }

    @Test func clientReconnectsWithBackoff() async throws {
        var h = try ServerHarness()
        let port = h.server.boundPort
        let c = try ClientHarness()
        let id = try c.client.connect(
            to: h.url,
            reconnect: .exponentialBackoff(
                initialDelay: .milliseconds(100), maxDelay: .milliseconds(400), maxAttempts: 40, jitter: 0.2))
        #expect(await eventually { c.connected(id) })
        await h.server.shutdown(timeout: .seconds(2))
        #expect(await eventually { c.closeCode(id) != nil })
        h = try ServerHarness { $0.port = port }
        let connectedTwice = await eventually(timeout: .seconds(8)) {
            c.events.all.filter { if case .connected = $0 { true } else { false } }.count == 2
        }
        #expect(connectedTwice)
        await c.client.shutdown()
        await h.server.shutdown()
    }
}
