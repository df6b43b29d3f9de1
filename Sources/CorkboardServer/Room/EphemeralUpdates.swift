import CorkboardProtocol
import OrderedCollections

/// Members' cursors and presence, and the tick that sends what changed: peers get at most one
/// cursor and one presence message per member per tick, however fast a member sends them.
///
/// A value. Drag hovers are coalesced the same way by `Drags`; `Room.tick` sends both. For a slow
/// member (R11) it also builds the catch-up: the latest state of everything it missed.
struct EphemeralUpdates {
    private var cursors: [ConnectionHandle: ServerMessage.CursorMessage] = [:]
    private var presence: [ConnectionHandle: PresenceState] = [:]
    /// Members whose cursor or presence changed since the last tick.
    private var pendingCursors: OrderedSet<ConnectionHandle> = []
    private var pendingPresence: OrderedSet<ConnectionHandle> = []
    /// Whether a `.tick` event is on its way.
    private(set) var tickScheduled = false

    /// A member's latest cursor.
    func cursor(of handle: ConnectionHandle) -> ServerMessage.CursorMessage? { cursors[handle] }

    /// A member's presence (`active` until it says otherwise).
    func presence(of handle: ConnectionHandle) -> PresenceState { presence[handle] ?? .active }

    /// Records a member's cursor, sent to peers at the next tick; the cursor of a member who may
    /// not edit (a viewer, a commenter) drags no checklist item: it could not drop one.
    mutating func moveCursor(_ cursor: ClientMessage.Cursor, of member: Member, on handle: ConnectionHandle) {
        cursors[handle] = ServerMessage.CursorMessage(
            member: member.id, x: cursor.x, y: cursor.y, collection: cursor.collection,
            checklist: member.role.may(.edit) ? cursor.checklist : nil)
        pendingCursors.append(handle)
    }

    /// Records a member's presence when it changed, sent to peers at the next tick.
    mutating func changePresence(_ state: PresenceState, of handle: ConnectionHandle) {
        guard self.presence(of: handle) != state else { return }
        presence[handle] = state
        pendingPresence.append(handle)
    }

    /// Forgets a member that left.
    mutating func forget(_ handle: ConnectionHandle) {
        cursors[handle] = nil
        presence[handle] = nil
        pendingCursors.remove(handle)
        pendingPresence.remove(handle)
    }

    /// Whether a tick must be scheduled for what is pending (`alsoPending`: hovers or member changes); when
    /// it returns `true` the caller schedules one, and no other until `tickStarted()`.
    mutating func needsTick(alsoPending: Bool) -> Bool {
        guard !tickScheduled, alsoPending || !pendingCursors.isEmpty || !pendingPresence.isEmpty else {
            return false
        }
        tickScheduled = true
        return true
    }

    /// The scheduled tick arrived.
    mutating func tickStarted() { tickScheduled = false }

    /// Sends peers each moved cursor and each changed presence, one message each, encoded once.
    mutating func send(members: inout Members, outbox: inout RoomOutbox) {
        for handle in pendingCursors {
            guard let cursor = cursors[handle] else { continue }
            members.broadcastEphemeral(.cursor(cursor), aboutMember: handle, missed: \.cursors, into: &outbox)
        }
        pendingCursors.removeAll(keepingCapacity: true)
        for handle in pendingPresence {
            guard let member = members.member(on: handle) else { continue }
            members.broadcastEphemeral(
                .presence(ServerMessage.PresenceMessage(member: member.id, state: presence(of: handle))),
                aboutMember: handle, missed: \.presence, into: &outbox)
        }
        pendingPresence.removeAll(keepingCapacity: true)
    }

    /// Sends a member that drained (R11) the latest state of every drag, cursor and presence it
    /// missed, in the order it missed them.
    func catchUp(
        _ handle: ConnectionHandle, missed: MissedUpdates, drags: Drags, members: Members, outbox: inout RoomOutbox
    ) {
        for (key, missedDrag) in missed.drags {
            switch missedDrag {
            case .ended(let ended): outbox.reply(handle, .dragEnded(ended))
            case .changed:
                if let drag = drags[key] { outbox.reply(handle, .dragStarted(drag.state)) }
            }
        }
        for member in missed.cursors {
            if let cursor = cursors[member] { outbox.reply(handle, .cursor(cursor)) }
        }
        for member in missed.presence {
            if let peer = members[member]?.member {
                outbox.reply(
                    handle, .presence(ServerMessage.PresenceMessage(member: peer.id, state: presence(of: member))))
            }
        }
    }
}
