import CorkboardClient
import CorkboardProtocol
import CorkboardTesting
import Glibc
import Testing

/// A fresh connection tries each entry URL in turn, and a silent link is left within seconds
/// (issue 39).
@Suite("Entry URLs and liveness")
struct EntryURLTests {
    @Test("A fresh connection whose first entry URLs are dead joins through the next one")
    func freshConnectionTriesEachEntry() async throws {
        try await withServer { server in
            // Port 1 on loopback refuses at once, as a node killed -9 does.
            var options = server.options("b1", name: "Ada")
            options.url = "ws://127.0.0.1:1/ws"
            options.alternateURLs = ["ws://127.0.0.2:1/ws", server.url]
            // The welcome and every pong come from this process's own pool, which CPU-bound suites
            // (the random histories) can keep busy for tens of seconds on two cores: room for that,
            // as below, so that only the dead entries fail (the liveness check has its own tests).
            options.liveness = BoardConnection.Liveness(
                pingAfter: .seconds(5), silenceLimit: .seconds(120), welcomeLimit: .seconds(120))
            let connection = try await server.client.connect(options, timeout: .seconds(180))
            #expect(connection.state.isJoined)
            #expect(connection.currentURL == server.url)
            #expect(connection.state.connectionLosses == 2, "one failed link per dead entry")
            connection.close()

            // With no entry alive, the join fails with what went wrong, after trying each once.
            var dead = server.options("b1", name: "Eve")
            dead.url = "ws://127.0.0.1:1/ws"
            dead.alternateURLs = ["ws://127.0.0.2:1/ws"]
            do {
                _ = try await server.client.connect(dead)
                Issue.record("joined through closed ports")
            } catch let error as BoardClientError {
                #expect(error.code == .connectFailed, "\(error)")
            }
        }
    }

    @Test("An entry that accepts TCP but never answers (a stalled node) is left for the next one")
    func silentEntryIsLeft() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        try await withServer { server in
            var options = server.options("b1", name: "Ada")
            options.url = "ws://127.0.0.1:\(silent.port)/ws"
            options.alternateURLs = [server.url]
            // One second of silence while opening leaves the silent entry; the welcome of the next
            // comes from this process's own pool, which other suites can keep busy for seconds.
            options.liveness = BoardConnection.Liveness(
                pingAfter: .milliseconds(300), silenceLimit: .seconds(1), welcomeLimit: .seconds(120))
            let started = ContinuousClock.now
            let connection = try await server.client.connect(options, timeout: .seconds(180))
            let waited = ContinuousClock.now - started
            #expect(connection.currentURL == server.url)
            #expect(waited >= .milliseconds(900), "the silent entry had its second: \(waited)")
            // The join through the next entry is answered by this process's own (busy) pool.
            // Well before the welcome limit (120 s) or the connect timeout (180 s), with room for a
            // pool starved for tens of seconds by the rest of the suite.
            #expect(waited < .seconds(90), "left within seconds, not at a limit: \(waited)")
            // Left by the liveness check ("did not answer ... while connecting") or, when this
            // process's pool was starved past it, by the connect attempt's own failure.
            #expect(connection.state.lastClose != nil, "the silent entry was closed")
            connection.close()
        }
    }

    @Test("A quiet joined link pings, hears its pongs and stays; the pongs are nobody's messages")
    func quietLinkStays() async throws {
        try await withServer { server in
            var options = server.options("b1", name: "Ada")
            // The server answers pings from this process's cooperative pool, which other suites
            // can keep busy for seconds: the limit leaves room for that; the pings still go out
            // every 200 ms of quiet, and their pongs must reach nobody.
            options.liveness = BoardConnection.Liveness(
                pingAfter: .milliseconds(200), silenceLimit: .seconds(30), welcomeLimit: .seconds(30))
            let connection = try await server.client.connect(options)
            try await Task.sleep(for: .seconds(2))
            let state = connection.state
            #expect(state.isJoined)
            #expect(state.joinCount == 1, "the link was never dropped: \(String(describing: state.lastClose))")
            #expect(state.connectionLosses == 0)
            #expect(!state.history.contains { $0.type == "pong" }, "liveness pongs are not delivered")
            // An explicit ping is still answered to its caller.
            _ = try await connection.ping()
            connection.close()
        }
    }
}

/// A TCP listener on 127.0.0.1 that never accepts: connections complete in the kernel's backlog
/// and then hear nothing, as from a stopped (SIGSTOP) server.
final class SilentListener: Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0, "socket() failed: errno \(errno)")
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && Glibc.listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound, "bind/listen on 127.0.0.1 failed: errno \(errno)")
        self.fd = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    func close() { _ = Glibc.close(fd) }
}
