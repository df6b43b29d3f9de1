import ArgumentParser
import CorkboardLoadKit
import CorkboardProtocol
import CorkboardTransport
import Glibc
import Logging
import Synchronization

/// Which WebSocket client runs the light peers (`--client`).
enum LoadClient: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// `lean` for ws://, `lws` for wss://.
    case auto
    /// ``LeanWebSocketClient``: plain ws:// over epoll, frames parsed in place (CorkboardLoadKit).
    case lean
    /// The transport's libwebsockets ``WebSocketClient`` (ws:// and wss://).
    case lws

    /// The client a run on `url` uses.
    func resolved(for url: String) throws -> LoadClient {
        let tls = url.hasPrefix("wss://")
        switch self {
        case .auto: return tls ? .lws : .lean
        case .lean where tls:
            throw ValidationError("--client lean speaks plain ws:// only; use --client lws (or auto) for wss://.")
        default: return self
        }
    }

    /// A transport for one lane.
    func makeTransport(lane: Int, url: String, allowSelfSigned: Bool, logger: Logger) throws -> any PeerTransport {
        switch try resolved(for: url) {
        case .lws: LwsPeerTransport(tls: url.hasPrefix("wss://"), allowSelfSigned: allowSelfSigned, logger: logger)
        default: LeanPeerTransport(lane: lane)
        }
    }
}

/// What carries a ``PeerLane``'s bytes: it opens the lane's peers by index and calls the lane
/// back, on one thread of its own, with `connected`, `received` and `ended`.
protocol PeerTransport: Sendable {
    /// `lean` or `lws`: what the report says ran.
    var name: String { get }
    /// Starts the transport's thread, which calls `lane`.
    func start(_ lane: PeerLane) throws
    /// Opens the connection of peer `index` (once per peer).
    func open(_ index: Int, url: String) throws
    /// Queues one text message to peer `index`'s server.
    func send(_ index: Int, _ bytes: [UInt8])
    /// Closes every connection (1000) and stops the thread.
    func shutdown() async
    /// The loop thread's counts so far (``LeanLoopStats``); `nil` for a client that keeps none.
    var loopStats: LeanLoopStats? { get }
}

/// The lean ws:// client: one ``LeanWebSocketClient`` (one epoll thread) per lane, the lane
/// itself its delegate, a peer's index its connection id.
final class LeanPeerTransport: PeerTransport {
    let client: LeanWebSocketClient
    var name: String { LoadClient.lean.rawValue }

    init(lane: Int) {
        client = LeanWebSocketClient(
            configuration: LeanClientConfiguration(
                connectTimeout: .seconds(20), edgeTriggered: LeanTuning.edgeTriggered,
                delayedAcks: LeanTuning.delayedAcks, socketReceiveBuffer: LeanTuning.socketReceiveBuffer,
                coalesceMicroseconds: LeanTuning.coalesceMicroseconds, threadName: "load-lean-\(lane)"))
    }

    func start(_ lane: PeerLane) throws { try client.start(delegate: lane) }

    func open(_ index: Int, url: String) throws {
        try client.connect(
            to: try LeanURL(parsing: url), subprotocol: ProtocolLimits.subprotocol, id: LeanConnectionID(slot: index))
    }

    func send(_ index: Int, _ bytes: [UInt8]) { client.send(text: bytes, to: LeanConnectionID(slot: index)) }

    func shutdown() async { await client.shutdown() }

    var loopStats: LeanLoopStats? { client.loopStats }
}

extension PeerLane: LeanClientDelegate {
    func leanConnected(_ id: LeanConnectionID) { connected(id.slot) }

    func leanReceived(_ id: LeanConnectionID, _ message: UnsafeRawBufferPointer) { received(id.slot, message) }

    func leanEnded(_ id: LeanConnectionID, _ end: LeanConnectionEnd) {
        switch end {
        case .failed(let text): ended(id.slot, "failed: \(text)")
        case .closed(let code, let reason): ended(id.slot, "closed \(code.map(String.init) ?? "-") \(reason)")
        }
    }
}

/// The libwebsockets client (kept for wss://): one ``WebSocketClient`` service thread per lane.
final class LwsPeerTransport: PeerTransport {
    let client: WebSocketClient
    let allowSelfSigned: Bool
    var name: String { LoadClient.lws.rawValue }
    private let lane = Mutex<PeerLane?>(nil)
    private let links = Mutex<(byIndex: [Int: ClientConnectionID], byLink: [ClientConnectionID: Int])>(([:], [:]))

    init(tls: Bool, allowSelfSigned: Bool, logger: Logger) {
        self.allowSelfSigned = allowSelfSigned
        let box = Mutex<LwsPeerTransport?>(nil)
        client = WebSocketClient(
            configuration: ClientConfiguration(receiveBufferBytes: 16 * 1024, connectTimeout: .seconds(20), tls: tls),
            logger: logger
        ) { event in
            box.withLock { $0 }?.handle(event)
        }
        box.withLock { $0 = self }
    }

    func start(_ lane: PeerLane) throws {
        self.lane.withLock { $0 = lane }
        try client.start()
    }

    func open(_ index: Int, url: String) throws {
        try links.withLock { links throws in
            let link = try client.connect(
                to: url, subprotocol: ProtocolLimits.subprotocol, allowSelfSigned: allowSelfSigned)
            links.byIndex[index] = link
            links.byLink[link] = index
        }
    }

    func send(_ index: Int, _ bytes: [UInt8]) {
        guard let link = links.withLock({ $0.byIndex[index] }) else { return }
        client.send(bytes: bytes, isText: true, to: link)
    }

    func shutdown() async {
        for link in links.withLock({ Array($0.byLink.keys) }) {
            client.close(link, code: 1000, reason: "load run finished")
        }
        try? await Task.sleep(for: .milliseconds(200))
        await client.shutdown()
        lane.withLock { $0 = nil }
    }

    /// libwebsockets' loop is not counted.
    var loopStats: LeanLoopStats? { nil }

    private func handle(_ event: ClientEvent) {
        guard let lane = lane.withLock({ $0 }) else { return }
        switch event {
        case .connected(let link):
            if let index = index(link) { lane.connected(index) }
        case .message(let link, let message):
            guard let index = index(link) else { return }
            message.bytes.withUnsafeBytes { lane.received(index, $0) }
        case .disconnected(let link, let code, let reason, _):
            if let index = index(link) { lane.ended(index, "closed \(code.map(String.init) ?? "-") \(reason)") }
        case .failed(let link, let error, _):
            if let index = index(link) { lane.ended(index, "failed: \(error)") }
        }
    }

    private func index(_ link: ClientConnectionID) -> Int? { links.withLock { $0.byLink[link] } }
}

/// How the lean client's loops are tuned. The defaults are what was measured best for measuring
/// the server (docs/BENCHMARKS.md, "The load tool's own ws:// client"); the environment overrides
/// them for experiments only: `CORKBOARD_LOAD_LEAN_LEVEL=1` level-triggered epoll,
/// `CORKBOARD_LOAD_LEAN_DELAYED_ACKS=1` re-enter delayed ACKs after each read,
/// `CORKBOARD_LOAD_LEAN_RCVBUF=BYTES` a fixed `SO_RCVBUF`, `CORKBOARD_LOAD_LEAN_COALESCE_US=N` a
/// pause of up to N µs after a quiet wake. Delayed ACKs and the pause lower the tool's CPU but move
/// work onto the server's core or batch what it receives, so they stay off; the others changed
/// nothing measurable.
enum LeanTuning {
    static let edgeTriggered = environment("CORKBOARD_LOAD_LEAN_LEVEL") != "1"
    static let delayedAcks = environment("CORKBOARD_LOAD_LEAN_DELAYED_ACKS") == "1"
    static let socketReceiveBuffer = environment("CORKBOARD_LOAD_LEAN_RCVBUF").flatMap { Int($0) }
    static let coalesceMicroseconds = environment("CORKBOARD_LOAD_LEAN_COALESCE_US").flatMap { Int($0) } ?? 0

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
