import Glibc
import Testing

@testable import CorkboardTransport

/// The caps as a value: pending sockets per address, WebSockets per address and in all.
@Suite struct ConnectionLimitsTests {
    @Test func pendingSocketsPerAddressAreCapped() {
        var limits = ConnectionLimits(maxWebSockets: 0, maxWebSocketsPerAddress: 0, maxPendingPerAddress: 2)
        let admitted = ["10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2"].map { limits.admitSocket(from: $0) }
        #expect(admitted == [true, true, false, true], "another address has its own count")
        limits.closed(address: "10.0.0.1", wasWebSocket: false)
        let again = limits.admitSocket(from: "10.0.0.1")
        #expect(again)
        #expect(limits.refused == 1)
    }

    @Test func anUpgradeMovesASocketFromPendingToWebSockets() {
        var limits = ConnectionLimits(maxWebSockets: 3, maxWebSocketsPerAddress: 2, maxPendingPerAddress: 1)
        var outcomes: [ConnectionLimits.Refusal?] = []
        for address in ["a", "a", "a", "b", "c"] {
            // Pending cap 1: each socket must upgrade before the next from its address fits.
            #expect(limits.admitSocket(from: address) || outcomes.last != nil)
            outcomes.append(limits.admitUpgrade(from: address))
        }
        #expect(outcomes == [nil, nil, .addressFull(limit: 2), nil, .serverFull(limit: 3)])
        #expect(limits.counts(for: "a") == (1, 2), "the refused socket stays pending")
        #expect(limits.refused == 2)
        limits.closed(address: "a", wasWebSocket: true)
        let retried = limits.admitUpgrade(from: "c")
        #expect(retried == nil)
        for (address, ws) in [("a", true), ("a", false), ("b", true), ("c", true)] {
            limits.closed(address: address, wasWebSocket: ws)
        }
        #expect(limits.webSockets == 0)
        #expect(limits.addressCount == 0, "nothing is remembered of an address with no socket")
    }
}

/// The caps over real sockets on both event loops: 503 with `Retry-After`, sockets closed at
/// accept over the pending cap, every count back to zero once the sockets close.
@Suite(.timeLimit(.minutes(1))) struct ConnectionCapTests {
    static let loops = ServerConfiguration.EventLoop.allCases

    /// Connects from `source` (another loopback address stands for another client).
    static func connect(port: Int, from source: String) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let ok = withUnsafePointer(to: &local) { l in
            withUnsafePointer(to: &remote) { r in
                l.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
                    && r.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
            }
        }
        if !ok {
            close(fd)
            return -1
        }
        return fd
    }

    /// Sends an upgrade from `source`; returns the socket and the response head.
    static func upgrade(port: Int, from source: String, path: String = "/ws", subprotocol: String? = "corkboard.v1")
        -> (Int32, String)
    {
        let fd = connect(port: port, from: source)
        RawHTTP.sendAll(fd, Array(RawHTTP.upgrade(port: port, path: path, subprotocol: subprotocol).utf8))
        var head: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: head, as: UTF8.self).contains("\r\n\r\n") {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { break }
            head += buf.prefix(n)
        }
        return (fd, String(decoding: head, as: UTF8.self))
    }

    @Test(arguments: loops)
    func upgradesPastACapAre503WithRetryAfter(loop: ServerConfiguration.EventLoop) async throws {
        let h = try ServerHarness {
            $0.eventLoop = loop
            $0.threads = 2
            $0.maxConnections = 3
            $0.maxConnectionsPerAddress = 2
        }
        let port = h.server.boundPort
        var open: [Int32] = []
        for _ in 0..<2 {
            let (fd, head) = await io { Self.upgrade(port: port, from: "127.0.0.1") }
            #expect(head.hasPrefix("HTTP/1.1 101"))
            open.append(fd)
        }
        let (refusedFD, refused) = await io { Self.upgrade(port: port, from: "127.0.0.1") }
        #expect(refused.hasPrefix("HTTP/1.1 503"))
        #expect(refused.lowercased().contains("retry-after: 10"))
        #expect(refused.contains("your address holds its limit of 2"))
        close(refusedFD)
        let (third, head) = await io { Self.upgrade(port: port, from: "127.0.0.2") }
        #expect(head.hasPrefix("HTTP/1.1 101"))
        open.append(third)
        let (fullFD, full) = await io { Self.upgrade(port: port, from: "127.0.0.3") }
        #expect(full.hasPrefix("HTTP/1.1 503"))
        #expect(full.contains("the server holds its limit of 3"))
        close(fullFD)
        #expect(h.server.refusedConnectionCount == 2)
        #expect(await eventually { h.server.connectionCount == 3 })
        for fd in open { close(fd) }
        #expect(await eventually { h.server.connectionCount == 0 })
        #expect(
            await eventually {
                h.server.connectionCounts(from: "127.0.0.1") == (0, 0)
                    && h.server.connectionCounts(from: "127.0.0.2") == (0, 0)
            }, "every socket gives its place back when it closes")
        await h.server.shutdown()
    }

    @Test(arguments: loops)
    func socketsPastThePendingCapAreClosedAtAccept(loop: ServerConfiguration.EventLoop) async throws {
        let h = try ServerHarness {
            $0.eventLoop = loop
            $0.maxPendingConnectionsPerAddress = 3
        }
        let port = h.server.boundPort
        // Half-open requests: connected, a few bytes of a request line, never finished.
        let held = await io {
            (0..<6).map { _ -> Int32 in
                let fd = Self.connect(port: port, from: "127.0.0.1")
                RawHTTP.sendAll(fd, Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8))
                return fd
            }
        }
        #expect(await eventually { h.server.refusedConnectionCount == 3 })
        #expect(h.server.connectionCounts(from: "127.0.0.1").pending == 3)
        // Another address is served at once.
        let response = await io {
            let fd = Self.connect(port: port, from: "127.0.0.2")
            defer { close(fd) }
            RawHTTP.sendAll(fd, Array("GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            return RawHTTP.parse(RawHTTP.readAll(fd))
        }
        #expect(response?.status == 200)
        for fd in held { close(fd) }
        #expect(await eventually { h.server.connectionCounts(from: "127.0.0.1") == (0, 0) })
        await h.server.shutdown()
    }

    @Test(arguments: loops)
    func theEchoPathEchoesWithoutASubprotocolAndReportsNothing(loop: ServerConfiguration.EventLoop) async throws {
        let h = try ServerHarness {
            $0.eventLoop = loop
            $0.echoPath = "/echo"
        }
        let port = h.server.boundPort
        let (fd, head) = await io { Self.upgrade(port: port, from: "127.0.0.1", path: "/echo", subprotocol: nil) }
        #expect(head.hasPrefix("HTTP/1.1 101"))
        // A masked text frame "hi" comes back unmasked.
        RawHTTP.sendAll(fd, [0x81, 0x82, 1, 2, 3, 4, UInt8(ascii: "h") ^ 1, UInt8(ascii: "i") ^ 2])
        let echoed = await io { () -> [UInt8] in
            var buf = [UInt8](repeating: 0, count: 16)
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            return Array(buf.prefix(max(0, n)))
        }
        #expect(echoed == [0x81, 0x02, UInt8(ascii: "h"), UInt8(ascii: "i")])
        #expect(h.events.all.isEmpty, "echo connections are the transport's own")
        close(fd)
        await h.server.shutdown()
    }

    @Test func oversizedHeadersAre431AndLongURLs414() async throws {
        let h = try ServerHarness()
        let port = h.server.boundPort
        let cookie = String(repeating: "c", count: 13_000)
        let big = await RawHTTP.exchangeAsync(port: port, "GET /ping HTTP/1.1\r\nHost: x\r\nCookie: \(cookie)\r\n\r\n")
        #expect(big?.status == 431)
        let fine = await RawHTTP.exchangeAsync(
            port: port, "GET /ping HTTP/1.1\r\nHost: x\r\nCookie: \(cookie.prefix(4200))\r\nConnection: close\r\n\r\n")
        #expect(fine?.status == 200, "a 4 KiB cookie is an ordinary request")
        let long = await RawHTTP.exchangeAsync(port: port, "GET /\(cookie) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(long?.status == 414)
        await h.server.shutdown()
    }
}
