import CorkboardModel
import CorkboardProtocol

/// What a room knows about one connected member.
struct MemberState {
    /// The member as peers see it.
    var member: Member
    /// The member's live drag sessions, by the client's session id.
    var sessions: Set<String> = []
    /// The last cursor, sent to peers on the next tick.
    var cursor: ServerMessage.CursorMessage?
    /// The presence state.
    var presence: PresenceState = .active
    /// Times of recent invalid messages (for the 1008 limit).
    var invalid = InvalidMessageLog()
    /// Set while the connection's unsent output is over the slow-client bound (R11).
    var isSlow = false
    /// Drag sessions whose updates this slow member missed; the latest state goes out when it drains.
    var missedDrags: [SessionKey: MissedDrag] = [:]
    /// Members whose cursor or presence this slow member missed.
    var missedCursors: Set<ConnectionHandle> = []
    var missedPresence: Set<ConnectionHandle> = []
}

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
    var lastActivity: Double
    /// Counts hovers, so an answer from another board that arrives late is not shown over a newer one.
    var hoverVersion = 0
    /// Set while a drop on another board is in flight.
    var dropping = false

    var state: DragState {
        DragState(
            session: key.session, member: key.member, items: items, external: external, target: target,
            proposal: proposal)
    }
}
