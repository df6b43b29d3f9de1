import CorkboardServer
import CorkboardTransport
import Foundation
import Logging

/// Feeds the transport's events to the board hub, which decodes them and routes them to rooms.
struct ConnectionGateway: Sendable {
    let server: WebSocketServer
    let hub: BoardHub
    let logger: Logger

    /// Consumes the server's events until the stream ends (at shutdown) or the task is cancelled.
    func run() async {
        for await event in server.events {
            switch event {
            case .connected(let id, let info):
                hub.connected(ConnectionHandle(rawValue: id.rawValue))
                logger.debug(
                    "connected",
                    metadata: [
                        "connection": "\(id)", "remote": "\(info.remoteAddress)", "origin": "\(info.origin ?? "-")",
                    ]
                )
            case .message(let id, let message):
                hub.received(ConnectionHandle(rawValue: id.rawValue), bytes: message.bytes, isText: message.isText)
            case .disconnected(let id, let code, let reason):
                hub.disconnected(ConnectionHandle(rawValue: id.rawValue))
                logger.debug(
                    "disconnected",
                    metadata: ["connection": "\(id)", "code": "\(code.map(String.init) ?? "-")", "reason": "\(reason)"]
                )
            }
        }
    }
}
