import CorkboardModel
import CorkboardProtocol

/// What a slow member missed of one drag (R11).
enum MissedDrag {
    /// The drag changed; send its whole state if it is still live.
    case changed
    /// The drag ended; send this.
    case ended(ServerMessage.DragEnded)
}

extension Room {
    /// Queues an ephemeral message about a drag for every member but `except`, encoded once.
    ///
    /// A slow member (R11) does not get it; the room remembers that the drag changed (or ended) and
    /// sends the latest state when the member drains.
    func broadcastEphemeral(
        _ message: ServerMessage, drag key: SessionKey, ended: ServerMessage.DragEnded? = nil,
        except: ConnectionHandle?
    ) {
        var recipients: [ConnectionHandle] = []
        recipients.reserveCapacity(memberOrder.count)
        for handle in memberOrder where handle != except {
            if members[handle]?.isSlow == true {
                members[handle]?.missedDrags[key] = ended.map(MissedDrag.ended) ?? .changed
            } else {
                recipients.append(handle)
            }
        }
        guard !recipients.isEmpty else { return }
        outbox.append(.send(WireCodec.encode(message), recipients))
    }

    func moveCursor(_ cursor: ClientMessage.Cursor, from handle: ConnectionHandle) {
        guard let id = members[handle]?.member.id else { return }
        members[handle]?.cursor = ServerMessage.CursorMessage(
            member: id, x: cursor.x, y: cursor.y, collection: cursor.collection)
        if !pendingCursors.contains(handle) { pendingCursors.append(handle) }
    }

    func changePresence(_ presence: ClientMessage.Presence, from handle: ConnectionHandle) {
        guard members[handle]?.presence != presence.state else { return }
        members[handle]?.presence = presence.state
        if !pendingPresence.contains(handle) { pendingPresence.append(handle) }
    }

    /// Sends the coalesced updates: each changed drag's latest hover, each moved cursor, each changed
    /// presence, one message each, encoded once for all recipients.
    func tick() {
        tickScheduled = false
        checkSlowMembers()
        let hovers = pendingHovers
        pendingHovers.removeAll(keepingCapacity: true)
        for key in hovers {
            guard let drag = drags[key], let target = drag.target, let proposal = drag.proposal else { continue }
            let hover = ServerMessage.DragHover(
                session: key.session, member: key.member, target: target, proposal: proposal)
            broadcastEphemeral(.dragHover(hover), drag: key, except: drag.handle)
        }
        let cursors = pendingCursors
        pendingCursors.removeAll(keepingCapacity: true)
        for handle in cursors {
            guard let cursor = members[handle]?.cursor else { continue }
            broadcastMemberUpdate(.cursor(cursor), about: handle, missed: \.missedCursors)
        }
        let presences = pendingPresence
        pendingPresence.removeAll(keepingCapacity: true)
        for handle in presences {
            guard let state = members[handle] else { continue }
            broadcastMemberUpdate(
                .presence(ServerMessage.PresenceMessage(member: state.member.id, state: state.presence)), about: handle,
                missed: \.missedPresence)
        }
    }

    private func broadcastMemberUpdate(
        _ message: ServerMessage, about member: ConnectionHandle,
        missed: WritableKeyPath<MemberState, Set<ConnectionHandle>>
    ) {
        var recipients: [ConnectionHandle] = []
        recipients.reserveCapacity(memberOrder.count)
        for handle in memberOrder where handle != member {
            if members[handle]?.isSlow == true {
                members[handle]?[keyPath: missed].insert(member)
            } else {
                recipients.append(handle)
            }
        }
        guard !recipients.isEmpty else { return }
        outbox.append(.send(WireCodec.encode(message), recipients))
    }

    /// R11: marks members whose unsent output passed the bound as slow, closes those far past it,
    /// and catches up members that drained with the latest state of what they missed.
    func checkSlowMembers() {
        for handle in memberOrder {
            guard let state = members[handle] else { continue }
            let pending = sink.pendingBytes(of: handle)
            if pending > configuration.slowClientCloseBytes {
                logger.notice(
                    "closing a slow connection",
                    metadata: ["member": "\(state.member.id)", "pendingBytes": "\(pending)"])
                leave(handle, now: clock.now())
                closeConnection(
                    handle, code: CloseCode.policyViolation,
                    reason: "too slow to keep up; reconnect with your last seq to resume", discardingPending: true)
                continue
            }
            let slow = pending > configuration.slowClientBytes
            if slow != state.isSlow { members[handle]?.isSlow = slow }
            if !slow, state.isSlow { catchUp(handle) }
        }
    }

    /// Sends a member that drained the latest state of every drag, cursor and presence it missed.
    private func catchUp(_ handle: ConnectionHandle) {
        guard var state = members[handle] else { return }
        for (key, missed) in state.missedDrags {
            switch missed {
            case .ended(let ended): reply(handle, .dragEnded(ended))
            case .changed:
                if let drag = drags[key] { reply(handle, .dragStarted(drag.state)) }
            }
        }
        for member in state.missedCursors {
            if let cursor = members[member]?.cursor { reply(handle, .cursor(cursor)) }
        }
        for member in state.missedPresence {
            if let peer = members[member] {
                reply(handle, .presence(ServerMessage.PresenceMessage(member: peer.member.id, state: peer.presence)))
            }
        }
        state.missedDrags = [:]
        state.missedCursors = []
        state.missedPresence = []
        members[handle] = state
    }
}
