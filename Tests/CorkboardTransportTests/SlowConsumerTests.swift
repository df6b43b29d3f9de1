import CorkboardTesting
import CorkboardTransport
import Glibc
import Testing

@Suite(.timeLimit(.minutes(1))) struct SlowConsumerTests {
    /// Opens a WebSocket with a raw socket whose receive buffer is tiny and which never reads.
    static func stuckPeer(port: Int) -> Int32 {
        let fd = RawHTTP.connect(port: port)
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        RawHTTP.sendAll(fd, Array(RawHTTP.upgrade(port: port).utf8))
        return fd
    }

    @Test func neverReadingClientIsClosedWhileOthersGetEverything() async throws {
        let h = try ServerHarness {
            $0.maxQueuedFrames = 2_000
            $0.slowConsumerKillAfter = .seconds(2)
        }
        let port = h.server.boundPort
        let c = try ClientHarness()
        let good = try (0..<3).map { _ in try c.client.connect(to: h.url) }
        let stuck = Self.stuckPeer(port: port)
        defer { _ = close(stuck) }
        #expect(await eventually { h.server.connectionCount == 4 })
        let ids = h.connectedIDs
        let server = h.server
        // The kernel takes up to 4 MiB for a socket whose peer never reads (net.ipv4.tcp_wmem's
        // maximum) before anything stays in the server's queue: send past that, then past the bound.
        let total = 32_000
        let payload = String(repeating: "x", count: 200)
        // On a thread of its own: the pacing sleeps must not hold one of the few cooperative threads.
        await io {
            for i in 0..<total {
                server.broadcast(OutboundFrame(text: "\(i) \(payload)"), to: ids)
                if i % 500 == 499 {
                    // Let healthy clients keep up, as an application's pacing would: wait until
                    // every healthy client has received all but 1,000 of the frames sent so far, so
                    // a healthy connection's backlog (queue, socket buffers) never nears the bound
                    // however slowly this machine runs (at most 15 s per step). Counting what the
                    // server still holds would not do: it writes into the socket buffers at once,
                    // so a slow reader's backlog shows only once those are full.
                    var spins = 0
                    while good.contains(where: { c.messages($0).count < i + 1 - 1_000 }) && spins < 7_500 {
                        usleep(2_000)
                        spins += 1
                    }
                }
            }
        }
        #expect(await eventually(timeout: .seconds(20)) { good.allSatisfy { c.messages($0).count == total } })
        for id in good {
            let texts = c.messages(id).map { $0.text.prefix { $0 != " " } }
            #expect(texts.elementsEqual((0..<total).map { Substring(String($0)) }))
        }
        #expect(await eventually(timeout: .seconds(10)) { h.server.connectionCount == 3 })
        #expect(h.server.slowConsumerCount == 1)
        let stuckClose = h.events.all.compactMap { e -> Int?? in
            if case .disconnected(_, let code, _) = e { return .some(code) }
            return nil
        }
        #expect(stuckClose.first == .some(1008))
        await c.client.shutdown()
        await h.server.shutdown()
    }
}
