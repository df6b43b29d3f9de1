import CoreMetrics
import CorkboardProtocol
import CorkboardServer
import CorkboardTransport
import Foundation
import Logging

/// Feeds the transport's events to the board hub, which decodes them and routes them to rooms.
///
/// It also throttles by remote address (``JoinThrottle``), closing an address's new connections
/// 1008 before the hub sees them:
/// - failed joins: a connection closed 4003 (wrong key or unknown board, answered alike) counts
///   against its address; 10 within a minute throttle it;
/// - rate-limit closes: a connection closed for going on past its rate limit counts against its
///   address; 3 within a minute throttle it, so reconnecting does not buy a fresh burst every time.
struct ConnectionGateway: Sendable {
    let server: WebSocketServer
    let hub: BoardHub
    let logger: Logger
    var throttle = JoinThrottle()
    var rateLimitThrottle = JoinThrottle(limit: 3, window: 60)
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    /// Connections closed for their address's failed joins (`corkboard_connections_refused_total`).
    let refusedJoins = Counter(
        label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", "failed-joins")])
    /// Connections closed for their address's rate-limit closes.
    let refusedFlooders = Counter(
        label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", "rate-limit-closes")])

    /// Consumes the server's events until the stream ends (at shutdown) or the task is cancelled.
    func run() async {
        var throttle = self.throttle
        var rateLimitThrottle = self.rateLimitThrottle
        var addresses: [ConnectionID: String] = [:]
        var refused: Set<ConnectionID> = []
        for await event in server.events {
            switch event {
            case .connected(let id, let info):
                if let wait = throttle.retryAfter(info.remoteAddress, now: now()) {
                    refused.insert(id)
                    refusedJoins.increment()
                    server.close(
                        id, code: 1008,
                        reason: "too many failed joins from your address; try again in \(wait) s")
                    logger.debug("throttled failed joins", metadata: ["remote": "\(info.remoteAddress)"])
                    continue
                }
                if let wait = rateLimitThrottle.retryAfter(info.remoteAddress, now: now()) {
                    refused.insert(id)
                    refusedFlooders.increment()
                    server.close(
                        id, code: 1008,
                        reason: "connections from your address keep passing their rate limit; try again in \(wait) s")
                    logger.debug("throttled rate-limit closes", metadata: ["remote": "\(info.remoteAddress)"])
                    continue
                }
                addresses[id] = info.remoteAddress
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
                let address = addresses.removeValue(forKey: id)
                // Logged once per episode, when an address becomes throttled (a log line per refused
                // connection would let one address flood the log).
                if code == CloseCode.badKey, let address, throttle.failed(address, now: now()) {
                    logger.notice(
                        "throttling an address for its failed joins",
                        metadata: ["remote": "\(address)", "limit": "\(throttle.limit) a minute"])
                }
                if code == CloseCode.policyViolation, reason == BoardHub.rateLimitCloseReason, let address,
                    rateLimitThrottle.failed(address, now: now())
                {
                    logger.notice(
                        "throttling an address whose connections keep passing their rate limit",
                        metadata: ["remote": "\(address)", "limit": "\(rateLimitThrottle.limit) closes a minute"])
                }
                hub.disconnected(ConnectionHandle(rawValue: id.rawValue))
                logger.debug(
                    "disconnected",
                    metadata: ["connection": "\(id)", "code": "\(code.map(String.init) ?? "-")", "reason": "\(reason)"]
                )
            }
        }
    }
}
