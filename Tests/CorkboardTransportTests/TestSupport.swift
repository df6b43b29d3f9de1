import CorkboardTesting
import CorkboardTransport
import Foundation
import Logging
import Synchronization
import Testing

/// Collects events from a stream so tests can poll with deadlines.
final class Recorder<Event: Sendable>: Sendable {
    private let items = Mutex<[Event]>([])
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ stream: AsyncStream<Event>) {
        let t = Task { [weak self] in
            for await e in stream { self?.append(e) }
        }
        task.withLock { $0 = t }
    }

    init() {}

    func append(_ e: Event) { items.withLock { $0.append(e) } }

    var all: [Event] { items.withLock { $0 } }

    deinit { task.withLock { $0?.cancel() } }
}

/// A started server on 127.0.0.1 and an ephemeral port, plus a recorder of its events.
struct ServerHarness {
    let server: WebSocketServer
    let events: Recorder<ServerEvent>

    /// Starts a server; with `echo`, every message is sent straight back (from the service thread).
    init(echo: Bool = false, _ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var c = ServerConfiguration(host: "127.0.0.1", port: 0)
        configure(&c)
        let recorder = Recorder<ServerEvent>()
        let box = Mutex<WebSocketServer?>(nil)
        let server = WebSocketServer(configuration: c, logger: testLogger("server")) { event in
            recorder.append(event)
            if echo, case .message(let id, let m) = event, let s = box.withLock({ $0 }) {
                s.send(m.isText ? OutboundFrame(utf8: m.bytes) : OutboundFrame(binary: m.bytes), to: id)
            }
        }
        box.withLock { $0 = server }
        // A cheap synchronous route, answered on the service thread.
        server.addRoute("/ping") { _ in .text("pong") }
        self.server = server
        events = recorder
        try server.start()
    }

    var url: String { "ws://127.0.0.1:\(server.boundPort)/ws" }

    /// A raw socket that has sent the WebSocket upgrade and does nothing by itself afterwards (no
    /// pongs, no reads): the caller closes it.
    func rawWebSocket() -> Int32 {
        let fd = RawHTTP.connect(port: server.boundPort)
        RawHTTP.sendAll(fd, Array(RawHTTP.upgrade(port: server.boundPort).utf8))
        return fd
    }

    var connectedIDs: [ConnectionID] {
        events.all.compactMap { if case .connected(let id, _) = $0 { id } else { nil } }
    }

    var messages: [(ConnectionID, InboundMessage)] {
        events.all.compactMap { if case .message(let id, let m) = $0 { (id, m) } else { nil } }
    }
}

/// A started client plus a recorder of its events.
struct ClientHarness {
    let client: WebSocketClient
    let events: Recorder<ClientEvent>

    init(configuration: ClientConfiguration = ClientConfiguration()) throws {
        let recorder = Recorder<ClientEvent>()
        client = WebSocketClient(configuration: configuration, logger: testLogger("client")) { recorder.append($0) }
        events = recorder
        try client.start()
    }

    /// Connects to `url` and waits until the connection is open (an expectation fails if it never is).
    func connectAndWait(
        to url: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ClientConnectionID {
        let id = try client.connect(to: url)
        #expect(await eventually { connected(id) }, sourceLocation: sourceLocation)
        return id
    }

    func connected(_ id: ClientConnectionID) -> Bool {
        events.all.contains { if case .connected(id) = $0 { true } else { false } }
    }

    func messages(_ id: ClientConnectionID) -> [InboundMessage] {
        events.all.compactMap { if case .message(id, let m) = $0 { m } else { nil } }
    }

    /// The close code of the first disconnection of `id`, if any yet.
    func closeCode(_ id: ClientConnectionID) -> Int?? {
        for e in events.all {
            if case .disconnected(id, let code, _, _) = e { return .some(code) }
        }
        return nil
    }

    func failure(_ id: ClientConnectionID) -> TransportError? {
        for e in events.all {
            if case .failed(id, let error, _) = e { return error }
        }
        return nil
    }
}

/// Starts a server harness (echoing every message with `echo`) and a client harness, runs `body`
/// with them, then shuts both down, also when `body` throws.
func withServerAndClient(
    echo: Bool = false, _ body: (ServerHarness, ClientHarness) async throws -> Void
) async throws {
    let h = try ServerHarness(echo: echo)
    let c = try ClientHarness()
    do {
        try await body(h, c)
    } catch {
        await c.client.shutdown()
        await h.server.shutdown()
        throw error
    }
    await c.client.shutdown()
    await h.server.shutdown()
}
