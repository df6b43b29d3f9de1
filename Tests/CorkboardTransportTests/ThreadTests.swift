import CorkboardTesting
import CorkboardTransport
import Foundation
import Testing

/// A server with several service threads (``ServerConfiguration/threads``), on both event loops:
/// connections spread over the threads, broadcasts reach every thread, closes and backlogs stay
/// per connection, shutdown stops every thread and frees the port, and each thread carries its name.
@Suite(.timeLimit(.minutes(1))) struct ThreadTests {
    static let loops = ServerConfiguration.EventLoop.allCases

    /// A started server with `threads` service threads on `loop` (echoing every message with `echo`).
    static func server(threads: Int, loop: ServerConfiguration.EventLoop, echo: Bool = false) throws -> ServerHarness {
        try ServerHarness(echo: echo) {
            $0.threads = threads
            $0.eventLoop = loop
        }
    }

    /// A client with `count` connections to `h`, returned once the server counts them all.
    static func connections(
        _ count: Int, to h: ServerHarness, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (ClientHarness, [ClientConnectionID]) {
        let c = try ClientHarness()
        let ids = try (0..<count).map { _ in try c.client.connect(to: h.url) }
        #expect(await eventually { h.server.connectionCount == count }, sourceLocation: sourceLocation)
        return (c, ids)
    }

    @Test(arguments: loops)
    func connectionsSpreadEvenlyOverThreads(loop: ServerConfiguration.EventLoop) async throws {
        let h = try Self.server(threads: 3, loop: loop)
        let (c, ids) = try await Self.connections(30, to: h)
        #expect(h.server.connectionCountsByThread == [10, 10, 10], "round robin gives each thread a third")
        #expect(await eventually { ids.allSatisfy { c.connected($0) } })
        await c.client.shutdown()
        await h.server.shutdown()
    }

    @Test(arguments: loops)
    func broadcastReachesEveryConnectionOnEveryThread(loop: ServerConfiguration.EventLoop) async throws {
        let h = try Self.server(threads: 2, loop: loop)
        let (c, ids) = try await Self.connections(24, to: h)
        let targets = h.connectedIDs
        let server = h.server
        // From two threads at once: every frame once, in its sender's order, on every connection.
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<2 {
                group.addTask {
                    for i in 0..<40 { server.broadcast(OutboundFrame(text: "s\(sender)-\(i)"), to: targets) }
                }
            }
        }
        #expect(await eventually { ids.allSatisfy { c.messages($0).count == 80 } })
        for id in ids {
            let texts = c.messages(id).map(\.text)
            for sender in 0..<2 {
                #expect(texts.filter { $0.hasPrefix("s\(sender)-") } == (0..<40).map { "s\(sender)-\($0)" })
            }
        }
        await c.client.shutdown()
        await h.server.shutdown()
    }

    @Test(arguments: loops)
    func closeAndBacklogArePerConnectionAcrossThreads(loop: ServerConfiguration.EventLoop) async throws {
        let h = try Self.server(threads: 2, loop: loop, echo: true)
        let (c, ids) = try await Self.connections(4, to: h)
        let server = try #require(h.connectedIDs.first)
        // The first connection (thread 0) is closed with a code; the others keep echoing.
        h.server.close(server, code: 4000, reason: "bye")
        #expect(await eventually { ids.contains { c.closeCode($0) == .some(4000) } })
        #expect(ids.filter { c.closeCode($0) != nil }.count == 1)
        for id in ids where c.closeCode(id) == nil { c.client.send(text: "still here", to: id) }
        #expect(await eventually { ids.filter { c.messages($0).map(\.text) == ["still here"] }.count == 3 })
        #expect(h.server.backlog(of: server) == (0, 0), "a closed connection has no backlog")
        await c.client.shutdown()
        await h.server.shutdown()
    }

    @Test(arguments: loops)
    func shutdownStopsEveryThreadAndFreesThePort(loop: ServerConfiguration.EventLoop) async throws {
        let h = try Self.server(threads: 3, loop: loop)
        let port = h.server.boundPort
        let (c, ids) = try await Self.connections(9, to: h)
        await h.server.shutdown(timeout: .seconds(4))
        #expect(await eventually { ids.allSatisfy { c.closeCode($0) == .some(1001) } })
        #expect(h.server.connectionCountsByThread == [0, 0, 0])
        // The listening socket is gone with the threads: the port can be bound again at once.
        let again = try ServerHarness {
            $0.port = port
            $0.threads = 2
            $0.eventLoop = loop
        }
        #expect(again.server.boundPort == port)
        await again.server.shutdown()
        await c.client.shutdown()
    }

    @Test(arguments: loops)
    func httpIsAnsweredOnEveryThread(loop: ServerConfiguration.EventLoop) async throws {
        let h = try Self.server(threads: 2, loop: loop)
        h.server.addRoute(.get, .exact("/async")) { _ in .text("async") }
        let port = h.server.boundPort
        // Each request is a new TCP connection, so they alternate between the threads.
        for _ in 0..<6 {
            #expect(await RawHTTP.getAsync(port: port, "/ping")?.text == "pong")
            #expect(await RawHTTP.getAsync(port: port, "/async")?.text == "async")
        }
        await h.server.shutdown()
    }

    /// Each service thread is named after its position (`top -H`, `ps -L`, profiles): a
    /// synchronous route answers with the name of the thread that runs it.
    @Test(arguments: loops)
    func serviceThreadsAreNamed(loop: ServerConfiguration.EventLoop) async throws {
        let h = try Self.server(threads: 3, loop: loop)
        h.server.addRoute("/thread-name") { _ in
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable"
            return .text(name.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        var names: Set<String> = []
        // Each request is a new TCP connection, handed to the threads in turn.
        for _ in 0..<6 {
            if let name = await RawHTTP.getAsync(port: h.server.boundPort, "/thread-name")?.text { names.insert(name) }
        }
        #expect(names == ["cb-service-0", "cb-service-1", "cb-service-2"])
        await h.server.shutdown()
    }

    @Test func threadCountIsChecked() {
        let server = WebSocketServer(configuration: ServerConfiguration(port: 0, threads: 0), logger: testLogger())
        #expect(throws: TransportError.self) { try server.start() }
    }
}
