import CoreMetrics
import CorkboardProtocol
import CorkboardServer
import CorkboardTransport
import Logging
import Synchronization

/// Feeds the transport's events to the board hub, which decodes them and routes them to rooms.
///
/// It runs on the transport's service threads (the server's event handler): each event is handed
/// on where it arrives, with no task or queue in between, so a message costs one hop (service
/// thread → its room) and decoding is spread over the service threads. Everything it calls only
/// takes short locks and posts to room inboxes; it never blocks.
///
/// It also throttles by client address (``AddressThrottles``: too many rate-limit closes, or failed
/// joins to many boards): the transport answers such an address's new upgrades 429, and the few
/// that were already past their upgrade when the refusal began are closed 1008 here, before the hub
/// sees them. Refusals for one board are the hub's (its join gate).
final class ConnectionGateway: Sendable {
    let server: WebSocketServer
    let hub: BoardHub
    let logger: Logger
    /// Shared with the rooms' sink, which counts the closes.
    let throttles: AddressThrottles
    /// Connections closed here for their address; their later events are dropped.
    private let refused = Mutex<Set<ConnectionID>>([])
    /// How many there are: messages look at the set only when it is not empty.
    private let refusedCount = Atomic<Int>(0)
    /// Connections closed for their address's failed joins (`corkboard_connections_refused_total`).
    let refusedJoins = Counter(
        label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", "failed-joins")])
    /// Connections closed for their address's rate-limit closes.
    let refusedFlooders = Counter(
        label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", "rate-limit-closes")])

    init(server: WebSocketServer, hub: BoardHub, logger: Logger, throttles: AddressThrottles) {
        self.server = server
        self.hub = hub
        self.logger = logger
        self.throttles = throttles
    }

    /// Handles one event on the service thread that owns its connection (events of one connection
    /// arrive in order, on one thread).
    func handle(_ event: ServerEvent) {
        switch event {
        case .connected(let id, let info):
            if let refusal = throttles.admit(id, from: info.remoteAddress) {
                refused.withLock { refused in
                    if refused.insert(id).inserted { refusedCount.add(1, ordering: .releasing) }
                }
                switch refusal {
                case .failedJoins, .failedJoinsToBoard:
                    refusedJoins.increment()
                    logger.debug("throttled failed joins", metadata: ["remote": "\(info.remoteAddress)"])
                case .rateLimitCloses:
                    refusedFlooders.increment()
                    logger.debug("throttled rate-limit closes", metadata: ["remote": "\(info.remoteAddress)"])
                }
                server.close(id, code: 1008, reason: refusal.closeReason)
                return
            }
            hub.connected(ConnectionHandle(rawValue: id.rawValue))
            logger.debug(
                "connected",
                metadata: [
                    "connection": "\(id)", "remote": "\(info.remoteAddress)", "origin": "\(info.origin ?? "-")",
                ]
            )
        case .message(let id, let message):
            if refusedCount.load(ordering: .acquiring) > 0, refused.withLock({ $0.contains(id) }) { return }
            hub.received(ConnectionHandle(rawValue: id.rawValue), bytes: message.bytes, isText: message.isText)
        case .disconnected(let id, let code, let reason):
            if refusedCount.load(ordering: .acquiring) > 0, forgetRefused(id) { return }
            throttles.forget(id)
            hub.disconnected(ConnectionHandle(rawValue: id.rawValue))
            logger.debug(
                "disconnected",
                metadata: ["connection": "\(id)", "code": "\(code.map(String.init) ?? "-")", "reason": "\(reason)"]
            )
        }
    }
}

extension ConnectionGateway {
    /// Forgets a refused connection that closed; `false` when it was not one.
    private func forgetRefused(_ id: ConnectionID) -> Bool {
        refused.withLock { refused in
            guard refused.remove(id) != nil else { return false }
            refusedCount.subtract(1, ordering: .releasing)
            return true
        }
    }
}

/// Hands the transport's events to the ``ConnectionGateway``, which is built after the server whose
/// event handler this is (it needs the server to close connections): set once, before the server starts.
final class GatewayRelay: Sendable {
    private let gateway = AtomicLazyReference<ConnectionGateway>()

    /// Connects the gateway; events before that (none: the server has not started) are dropped.
    func connect(_ gateway: ConnectionGateway) { _ = self.gateway.storeIfNil(gateway) }

    /// The server's event handler.
    func handle(_ event: ServerEvent) { gateway.load()?.handle(event) }
}
