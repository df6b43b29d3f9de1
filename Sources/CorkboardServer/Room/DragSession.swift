import CorkboardModel
import CorkboardProtocol

/// A drag session's identity in a room: the member and the client's session id (clients choose
/// session ids, so two members may both use `d1`).
struct SessionKey: Hashable, Sendable {
    var member: String
    var session: String

    /// The id under which the lease table and operations know the session.
    var leaseID: String { "\(member)/\(session)" }
}

/// A live drag.
struct DragSession {
    var key: SessionKey
    var handle: ConnectionHandle
    var clientId: String
    /// Board items in drag order.
    var items: [ItemID]
    /// Type lists of content from outside the board.
    var external: [[String]]
    /// Whether `items` are leased (editors' drags); viewers drag without leases and can only copy.
    var leased: Bool
    var target: DragTarget?
    var proposal: Proposal?
    var lastActivity: BoardTime
    /// Counts hovers, so an answer from another board that arrives late is not shown over a newer one.
    var hoverVersion = 0
    /// How often its hovers may reach peers before the tick.
    var hoverPace = HoverPace()
    /// Set while a drop on another board is in flight.
    var dropping = false

    var state: DragState {
        DragState(
            session: key.session, member: key.member, items: items, external: external, target: target,
            proposal: proposal)
    }
}
