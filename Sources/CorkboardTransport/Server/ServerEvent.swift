/// Something that happened on a ``WebSocketServer`` connection.
public enum ServerEvent: Sendable {
    /// A WebSocket upgrade was accepted.
    case connected(ConnectionID, ConnectionInfo)
    /// A complete message arrived.
    case message(ConnectionID, InboundMessage)
    /// The connection is gone. `closeCode` is the code the server sent or received, if any.
    case disconnected(ConnectionID, closeCode: Int?, reason: String)
}
