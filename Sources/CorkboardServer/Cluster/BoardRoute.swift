/// Where a `hello` for a board goes on a node of a cluster.
public enum BoardRoute: Sendable {
    /// This node sequences the board: join its room.
    case local(Room)
    /// Another node does (or will): send the client there (`url`), or, without a URL, let it try
    /// again in a moment (the board is between nodes).
    case redirect(url: String?, reason: String)
    /// No such board, or the key opens nothing on it: answered like a wrong key.
    case refused
}

/// Decides where a `hello` for a board that has no room here goes (`BoardHub` asks it on a node
/// of a cluster).
public protocol BoardRouter: Sendable {
    /// The route for a `hello` naming `board` with `key`; `admitted` when the hello needs no key
    /// (a person's, resolved in the catalog before routing, issue 45).
    func route(board: String, key: String?, admitted: Bool) async -> BoardRoute
}
