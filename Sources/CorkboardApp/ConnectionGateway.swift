import CoreMetrics
import CorkboardProtocol
import CorkboardServer
import CorkboardTransport
import Foundation
import Logging

/// Feeds the transport's events to the board hub, which decodes them and routes them to rooms.
///
/// It also throttles failed joins by remote address (``JoinThrottle``): a connection closed 4003
/// (wrong key or unknown board, answered alike) counts against its address, and an address over
/// the limit has its new connections closed 1008 before the hub sees them.
struct ConnectionGateway: Sendable {
    let server: WebSocketServer
    let hub: BoardHub
    let logger: Logger
    var throttle = JoinThrottle()
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    /// Connections closed for their address's failed joins (`corkboard_connections_refused_total`).
    let refusedJoins = Counter(
        label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", "failed-joins")])

    /// Consumes the server's events until the stream ends (at shutdown) or the task is cancelled.
    func run() async {
        var throttle = self.throttle
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
                    logger.notice("throttled failed joins", metadata: ["remote": "\(info.remoteAddress)"])
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
                if code == CloseCode.badKey, let address { throttle.failed(address, now: now()) }
                hub.disconnected(ConnectionHandle(rawValue: id.rawValue))
                logger.debug(
                    "disconnected",
                    metadata: ["connection": "\(id)", "code": "\(code.map(String.init) ?? "-")", "reason": "\(reason)"]
                )
            }
        }
    }
}
