import CoreMetrics
import CorkboardProtocol
import CorkboardServer
import CorkboardTransport
import Foundation
import Logging

/// Feeds the transport's events to the board hub, which decodes them and routes them to rooms.
///
/// It also throttles by remote address (``AddressThrottles``: too many failed joins or rate-limit
/// closes): the transport answers a throttled address's new connections 429 at accept, and the
/// few that were already on their way when the throttle began are closed 1008 here, before the
/// hub sees them.
struct ConnectionGateway: Sendable {
    let server: WebSocketServer
    let hub: BoardHub
    let logger: Logger
    /// Shared with the rooms' sink, which counts the closes.
    let throttles: AddressThrottles
    /// Connections closed for their address's failed joins (`corkboard_connections_refused_total`).
    let refusedJoins = Counter(
        label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", "failed-joins")])
    /// Connections closed for their address's rate-limit closes.
    let refusedFlooders = Counter(
        label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", "rate-limit-closes")])

    /// Consumes the server's events until the stream ends (at shutdown) or the task is cancelled.
    func run() async {
        var refused: Set<ConnectionID> = []
        for await event in server.events {
            switch event {
            case .connected(let id, let info):
                if let refusal = throttles.admit(id, from: info.remoteAddress) {
                    refused.insert(id)
                    switch refusal {
                    case .failedJoins:
                        refusedJoins.increment()
                        logger.debug("throttled failed joins", metadata: ["remote": "\(info.remoteAddress)"])
                    case .rateLimitCloses:
                        refusedFlooders.increment()
                        logger.debug("throttled rate-limit closes", metadata: ["remote": "\(info.remoteAddress)"])
                    }
                    server.close(id, code: 1008, reason: refusal.closeReason)
                    continue
                }
                hub.connected(ConnectionHandle(rawValue: id.rawValue))
                logger.debug(
                    "connected",
                    metadata: [
                        "connection": "\(id)", "remote": "\(info.remoteAddress)", "origin": "\(info.origin ?? "-")",
                    ]
                )
            case .message(let id, let message):
                if refused.contains(id) { continue }
                hub.received(ConnectionHandle(rawValue: id.rawValue), bytes: message.bytes, isText: message.isText)
            case .disconnected(let id, let code, let reason):
                if refused.remove(id) != nil { continue }
                throttles.forget(id)
                hub.disconnected(ConnectionHandle(rawValue: id.rawValue))
                logger.debug(
                    "disconnected",
                    metadata: ["connection": "\(id)", "code": "\(code.map(String.init) ?? "-")", "reason": "\(reason)"]
                )
            }
        }
    }
}
