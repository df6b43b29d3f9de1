import CorkboardTesting
import CorkboardTransport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// POST bodies and asynchronous routes: bodies collected over many callbacks, limits enforced from
/// the headers, handlers off the service thread, responses back on the right connection.
@Suite(.timeLimit(.minutes(1))) struct HTTPBodyTests {
    /// A thread-safe call counter.
    final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        func increment() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    /// A server with `POST /echo` (limit `limit`) answering the body it got, with its length in
    /// `x-length` and the request's content type.
    static func echoServer(
        limit: Int = 1 << 20, calls: Counter? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> ServerHarness {
        // A request held open across a test's awaits must outlast a starved pool (the whole suite
        // runs beside CPU-bound tests): no test here is about the handshake timeout.
        let h = try ServerHarness { configuration in
            configuration.handshakeTimeout = .seconds(120)
            configure(&configuration)
        }
        h.server.addRoute(.post, .exact("/echo"), maxBodyBytes: limit) { request in
            calls?.increment()
            return HTTPResponse(
                status: 200, contentType: request.header("content-type") ?? "application/octet-stream",
                body: request.body, headers: [HTTPHeader("x-length", "\(request.body.count)")])
        }
        return h
    }

    static func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ ($0 >> 8)) }
    }

    static func json(_ r: RawHTTP.Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any] ?? [:]
    }

    @Test func smallBodyReachesTheHandler() async throws {
        let h = try Self.echoServer()
        let r = try #require(
            await RawHTTP.postAsync(
                port: h.server.boundPort, "/echo", body: Array("hello".utf8), headers: ["Content-Type: text/x-test"]))
        #expect(r.status == 200)
        #expect(r.text == "hello")
        #expect(RawHTTP.header("content-type", in: r.headers) == "text/x-test")
        #expect(RawHTTP.header("x-length", in: r.headers) == "5")
        await h.server.shutdown()
    }

    @Test func emptyBodyWithZeroLength() async throws {
        let h = try Self.echoServer()
        let r = try #require(await RawHTTP.postAsync(port: h.server.boundPort, "/echo", body: []))
        #expect(r.status == 200)
        #expect(RawHTTP.header("x-length", in: r.headers) == "0")
        await h.server.shutdown()
    }

    @Test func bodySentInPiecesIsReassembledInOrder() async throws {
        let h = try Self.echoServer()
        let port = h.server.boundPort
        let body = Self.pattern(300_000)
        let fd = RawHTTP.connect(port: port)
        #expect(fd >= 0)
        defer { close(fd) }
        let request = RawHTTP.requestBytes("POST", "/echo", port: port, body: body)
        // Headers, then the body in three writes with pauses: many receive callbacks, with gaps.
        let cuts = [0, request.count - 200_000, request.count - 7, request.count]
        for i in 0..<3 {
            RawHTTP.sendAll(fd, Array(request[cuts[i]..<cuts[i + 1]]))
            try await Task.sleep(for: .milliseconds(30))
        }
        let r = try #require(await RawHTTP.response(fd))
        #expect(r.status == 200)
        #expect(r.body.count == body.count)
        #expect(r.body == body)
        await h.server.shutdown()
    }

    @Test func tooLargeIsRefusedFromTheHeaderWithoutReadingTheBody() async throws {
        let calls = Counter()
        let h = try Self.echoServer(limit: 1000, calls: calls)
        let port = h.server.boundPort
        // Only the headers: the answer comes without any body being sent.
        let fd = RawHTTP.connect(port: port)
        defer { close(fd) }
        RawHTTP.sendAll(fd, RawHTTP.requestBytes("POST", "/echo", port: port, contentLength: 5_000_000, close: false))
        let r = try #require(await RawHTTP.response(fd))
        #expect(r.status == 413)
        #expect(Self.json(r)["code"] as? String == "too-large")
        #expect(RawHTTP.header("connection", in: r.headers) == "close")
        // The server closes the connection after the answer.
        #expect(
            await io {
                var byte: UInt8 = 0
                return recv(fd, &byte, 1, 0)
            } <= 0)

        // A client that already sent part of a big body still reads the answer.
        let fd2 = RawHTTP.connect(port: port)
        defer { close(fd2) }
        RawHTTP.sendAll(
            fd2,
            RawHTTP.requestBytes("POST", "/echo", port: port, body: Self.pattern(64 * 1024), contentLength: 10_000_000))
        let r2 = try #require(await RawHTTP.response(fd2))
        #expect(r2.status == 413)
        #expect(calls.value == 0)
        // One byte over the limit is refused too; the limit itself is accepted.
        #expect(await RawHTTP.postAsync(port: port, "/echo", body: Self.pattern(1001))?.status == 413)
        #expect(await RawHTTP.postAsync(port: port, "/echo", body: Self.pattern(1000))?.status == 200)
        await h.server.shutdown()
    }

    @Test func missingOrMalformedContentLength() async throws {
        let calls = Counter()
        let h = try Self.echoServer(calls: calls)
        let port = h.server.boundPort
        let missing = try #require(
            await RawHTTP.exchangeAsync(
                port: port,
                String(decoding: RawHTTP.requestBytes("POST", "/echo", port: port, sendsLength: false), as: UTF8.self)))
        #expect(missing.status == 411)
        #expect(Self.json(missing)["code"] as? String == "length-required")
        let chunked = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        #expect(await RawHTTP.exchangeAsync(port: port, chunked)?.status == 411)
        let bad = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\nhello"
        #expect(await RawHTTP.exchangeAsync(port: port, bad)?.status == 400)
        #expect(calls.value == 0)
        await h.server.shutdown()
    }

    @Test func concurrentUploadsStayApart() async throws {
        let h = try Self.echoServer()
        let port = h.server.boundPort
        let bodies = (0..<8).map { Self.pattern(40_000 + $0 * 997, seed: $0) }
        let requests = bodies.map { RawHTTP.requestBytes("POST", "/echo", port: port, body: $0) }
        let fds = bodies.map { _ in RawHTTP.connect(port: port) }
        defer { for fd in fds { close(fd) } }
        #expect(fds.allSatisfy { $0 >= 0 })
        // Interleave: every connection sends its first half, then every one its second half.
        for (fd, request) in zip(fds, requests) { RawHTTP.sendAll(fd, Array(request[..<(request.count / 2)])) }
        try await Task.sleep(for: .milliseconds(20))
        for (fd, request) in zip(fds, requests).reversed() {
            RawHTTP.sendAll(fd, Array(request[(request.count / 2)...]))
        }
        for (fd, body) in zip(fds, bodies) {
            let r = try #require(await RawHTTP.response(fd))
            #expect(r.status == 200)
            #expect(r.body == body)
        }
        await h.server.shutdown()
    }

    @Test func keepAliveCarriesSeveralPostsOnOneConnection() async throws {
        let h = try Self.echoServer()
        let port = h.server.boundPort
        let fd = RawHTTP.connect(port: port)
        defer { close(fd) }
        // Each request follows the last answer at once, on a thread of its own: lws closes a
        // keep-alive connection left idle for 5 s, and a starved pool could resume this test later.
        let exchanges = await io {
            (1...3).map { n in
                let body = Self.pattern(5000 * n, seed: n)
                RawHTTP.sendAll(fd, RawHTTP.requestBytes("POST", "/echo", port: port, body: body, close: false))
                return (body, RawHTTP.parse(RawHTTP.readAll(fd, stopWhenComplete: true)))
            }
        }
        for (body, response) in exchanges {
            let r = try #require(response)
            #expect(r.status == 200)
            #expect(r.body == body)
        }
        await h.server.shutdown()
    }

    @Test func aSlowHandlerDoesNotHoldUpTheServer() async throws {
        let h = try ServerHarness()
        let port = h.server.boundPort
        let (gate, opener) = AsyncStream.makeStream(of: Void.self)
        h.server.addRoute(.post, .exact("/slow"), maxBodyBytes: 100) { _ in
            for await _ in gate { break }
            return .text("finally")
        }
        let fd = RawHTTP.connect(port: port)
        defer { close(fd) }
        RawHTTP.sendAll(fd, RawHTTP.requestBytes("POST", "/slow", port: port, body: Array("x".utf8)))
        // While the handler waits, other requests are answered.
        for _ in 0..<3 { #expect(await RawHTTP.getAsync(port: port, "/ping")?.status == 200) }
        opener.yield()
        let r = try #require(await RawHTTP.response(fd))
        #expect(r.status == 200 && r.text == "finally")
        await h.server.shutdown()
    }

    @Test func aConnectionClosedWhileItsHandlerRunsIsForgotten() async throws {
        let h = try ServerHarness()
        let port = h.server.boundPort
        let (gate, opener) = AsyncStream.makeStream(of: Void.self)
        let finished = Counter()
        h.server.addRoute(.post, .exact("/slow"), maxBodyBytes: 100) { _ in
            for await _ in gate { break }
            finished.increment()
            return .text("nobody listens")
        }
        h.server.addRoute(.post, .exact("/fast"), maxBodyBytes: 100) { _ in .text("fast") }
        let fd = RawHTTP.connect(port: port)
        RawHTTP.sendAll(fd, RawHTTP.requestBytes("POST", "/slow", port: port, body: Array("x".utf8)))
        try await Task.sleep(for: .milliseconds(50))
        close(fd)
        try await Task.sleep(for: .milliseconds(50))
        // New connections (which may reuse the closed one's slot) get their own answers.
        for _ in 0..<4 {
            #expect(await RawHTTP.postAsync(port: port, "/fast", body: Array("y".utf8))?.text == "fast")
        }
        opener.yield()
        #expect(await eventually { finished.value == 1 })
        #expect(await RawHTTP.postAsync(port: port, "/fast", body: Array("z".utf8))?.text == "fast")
        await h.server.shutdown()
    }

    @Test func routingByMethodAndPrefix() async throws {
        let h = try ServerHarness()
        let port = h.server.boundPort
        h.server.addRoute(.get, .prefix("/files/")) { .text("file \($0.path)") }
        h.server.addRoute(.get, .prefix("/files/special/")) { _ in .text("special") }
        h.server.addRoute(.post, .exact("/api/things"), maxBodyBytes: 10) { _ in .text("posted", status: 201) }
        h.server.addRoute(.get, .exact("/api/things")) { request in
            .json("{\"q\":\"\(request.query("q") ?? "")\",\"origin\":\(request.isOriginAllowed)}")
        }
        #expect(await RawHTTP.getAsync(port: port, "/files/a/b.png")?.text == "file /files/a/b.png")
        #expect(await RawHTTP.getAsync(port: port, "/files/special/x")?.text == "special")
        #expect(await RawHTTP.postAsync(port: port, "/api/things", body: [1])?.status == 201)
        #expect(await RawHTTP.getAsync(port: port, "/api/things?q=a%20b")?.text == "{\"q\":\"a b\",\"origin\":true}")
        let wrong = try #require(await RawHTTP.postAsync(port: port, "/files/a", body: [1]))
        #expect(wrong.status == 405)
        #expect(RawHTTP.header("allow", in: wrong.headers) == "GET, HEAD")
        let head = try #require(
            await RawHTTP.exchangeAsync(port: port, "HEAD /files/a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(RawHTTP.header("content-length", in: head.headers) == "13")
        let ping = try #require(
            await RawHTTP.exchangeAsync(port: port, "HEAD /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
        #expect(ping.status == 200 && ping.body.isEmpty)
        let missing = try #require(await RawHTTP.postAsync(port: port, "/nowhere", body: [1, 2, 3]))
        #expect(missing.status == 404)
        #expect(Self.json(missing)["code"] as? String == "not-found")
        // The origin policy is the WebSocket one: a foreign origin is flagged, the own one passes.
        let foreign = "GET /api/things HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: https://evil.example\r\n"
        #expect(
            await RawHTTP.exchangeAsync(port: port, foreign + "Connection: close\r\n\r\n")?.text.contains("false")
                == true)
        let own = "GET /api/things HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
        #expect(
            await RawHTTP.exchangeAsync(port: port, own + "Connection: close\r\n\r\n")?.text.contains("true") == true)
        await h.server.shutdown()
    }

    @Test func fileResponsesCarryTheirHeaders() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("corkboard-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bytes = Self.pattern(200_000)
        try Data(bytes).write(to: dir.appendingPathComponent("blob.bin"))
        let h = try ServerHarness()
        let port = h.server.boundPort
        h.server.addRoute(.get, .prefix("/blob/")) { request in
            .file(
                dir.appendingPathComponent(String(request.path.dropFirst("/blob/".count))).path,
                contentType: "image/png",
                headers: [HTTPHeader("cache-control", "public, max-age=60"), HTTPHeader("x-bad\r\nname", "dropped")])
        }
        let r = try #require(await RawHTTP.getAsync(port: port, "/blob/blob.bin"))
        #expect(r.status == 200)
        #expect(r.body == bytes)
        #expect(RawHTTP.header("content-type", in: r.headers) == "image/png")
        #expect(RawHTTP.header("cache-control", in: r.headers) == "public, max-age=60")
        #expect(r.headers.lowercased().components(separatedBy: "cache-control").count == 2)
        #expect(!r.headers.contains("dropped"))
        #expect(await RawHTTP.getAsync(port: port, "/blob/missing.bin")?.status == 404)
        await h.server.shutdown()
    }

    @Test func bodiesInFlightAreBounded() async throws {
        let h = try Self.echoServer { $0.maxBufferedRequestBytes = 1000 }
        let port = h.server.boundPort
        // One request holds 800 bytes of the budget while its body trickles in.
        let fd = RawHTTP.connect(port: port)
        defer { close(fd) }
        let held = RawHTTP.requestBytes("POST", "/echo", port: port, body: Self.pattern(800))
        RawHTTP.sendAll(fd, Array(held[..<(held.count - 100)]))
        try await Task.sleep(for: .milliseconds(50))
        let busy = try #require(await RawHTTP.postAsync(port: port, "/echo", body: Self.pattern(300)))
        #expect(busy.status == 503)
        #expect(Self.json(busy)["code"] as? String == "busy")
        #expect(await RawHTTP.postAsync(port: port, "/echo", body: Self.pattern(150))?.status == 200)
        RawHTTP.sendAll(fd, Array(held[(held.count - 100)...]))
        let r = try #require(await RawHTTP.response(fd))
        #expect(r.status == 200 && r.body.count == 800)
        // The budget is released once answered.
        #expect(await RawHTTP.postAsync(port: port, "/echo", body: Self.pattern(900))?.status == 200)
        await h.server.shutdown()
    }
}
