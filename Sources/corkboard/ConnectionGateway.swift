import CorkboardTransport
import Foundation
import Logging

/// Bridges transport events to the application.
///
/// This build has no board rooms yet (they arrive with the wire protocol), so every WebSocket
/// message is answered with an `error` naming what happened, and nothing else changes. Connection
/// and disconnection are logged with the connection's metadata.
struct ConnectionGateway: Sendable {
    let server: WebSocketServer
    let logger: Logger

    /// The `error` reply sent for every message; encoded once and shared by every connection.
    private static let unsupported = OutboundFrame(
        text:
            #"{"type":"error","code":"unsupported","message":"This server has no board rooms yet; no message types are accepted."}"#
    )

    /// Consumes the server's events until the stream ends (at shutdown) or the task is cancelled.
    func run() async {
        for await event in server.events {
            switch event {
            case .connected(let id, let info):
                logger.debug(
                    "connected",
                    metadata: [
                        "connection": "\(id)", "remote": "\(info.remoteAddress)", "origin": "\(info.origin ?? "-")",
                    ]
                )
            case .message(let id, _):
                server.send(Self.unsupported, to: id)
            case .disconnected(let id, let code, let reason):
                logger.debug(
                    "disconnected",
                    metadata: ["connection": "\(id)", "code": "\(code.map(String.init) ?? "-")", "reason": "\(reason)"]
                )
            }
        }
    }
}
