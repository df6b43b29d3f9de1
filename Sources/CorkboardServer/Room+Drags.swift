import CorkboardModel
import CorkboardProtocol

/// Most live drags one member may hold at once.
let maxDragsPerMember = 16

extension Room {
    func dragBegin(_ begin: ClientMessage.DragBegin, from handle: ConnectionHandle, now: Double) {
        guard var state = members[handle] else { return }
        let key = SessionKey(member: state.member.id, session: begin.session)
        guard drags[key] == nil else {
            refuse(
                handle,
                ProtocolError(
                    .invalidField, "Drag session \(begin.session) is already live; use dragAdd, or a new session id.",
                    field: "session", ref: begin.ref), now: now)
            return
        }
        guard state.sessions.count < maxDragsPerMember else {
            refuse(
                handle,
                ProtocolError(
                    .invalidField, "At most \(maxDragsPerMember) drags may be live at once; end one first.",
                    field: "session", ref: begin.ref), now: now)
            return
        }
        let leased = state.member.role == .editor
        let grant = lease(
            begin.items, to: key, clientId: state.member.clientId, holder: state.member.name, leased: leased, now: now)
        let external = begin.external ?? []
        reply(
            handle,
            .dragGranted(
                ServerMessage.DragGranted(
                    ref: begin.ref, session: begin.session, granted: grant.granted, refused: grant.refused)))
        guard !grant.granted.isEmpty || !external.isEmpty else {
            if leased { sequencer.leases.end(session: key.leaseID) }
            return
        }
        let drag = DragSession(
            key: key, handle: handle, clientId: state.member.clientId, items: grant.granted, external: external,
            leased: leased, lastActivity: now)
        drags[key] = drag
        dragOrder.append(key)
        state.sessions.insert(begin.session)
        members[handle] = state
        broadcastEphemeral(.dragStarted(drag.state), drag: key, except: handle)
    }

    func dragAdd(_ add: ClientMessage.DragAdd, from handle: ConnectionHandle, now: Double) {
        guard let state = members[handle], var drag = liveDrag(add.session, from: handle, ref: add.ref, now: now) else {
            return
        }
        guard drag.items.count + add.items.count <= ProtocolLimits.maxItemsPerDrag else {
            refuse(
                handle,
                ProtocolError(
                    .invalidField, "A drag may hold at most \(ProtocolLimits.maxItemsPerDrag) items.", field: "items",
                    ref: add.ref), now: now)
            return
        }
        let fresh = add.items.filter { !drag.items.contains($0) }
        let grant = lease(
            fresh, to: drag.key, clientId: drag.clientId, holder: state.member.name, leased: drag.leased, now: now)
        drag.items += grant.granted
        drag.lastActivity = now
        drags[drag.key] = drag
        let already = add.items.filter { drag.items.contains($0) && !grant.granted.contains($0) }
        reply(
            handle,
            .dragGranted(
                ServerMessage.DragGranted(
                    ref: add.ref, session: add.session, granted: already + grant.granted, refused: grant.refused)))
        if !grant.granted.isEmpty {
            broadcastEphemeral(
                .dragItems(ServerMessage.DragItems(session: add.session, member: drag.key.member, items: drag.items)),
                drag: drag.key, except: handle)
        }
    }

    /// Leases items to a session (editors), or checks they can be dragged for a copy (viewers).
    func lease(
        _ items: [ItemID], to key: SessionKey, clientId: String, holder: String, leased: Bool, now: Double
    ) -> LeaseTable.Grant {
        // An item named twice is dragged once: a drop naming it twice would be rejected.
        var seen = Set<ItemID>()
        let items = items.filter { seen.insert($0).inserted }
        if leased {
            return sequencer.leases.begin(
                session: key.leaseID, client: clientId, holder: holder, items: items, on: sequencer.board, now: now)
        }
        var grant = LeaseTable.Grant()
        for item in items {
            if let refusal = LeaseTable.refusal(dragging: item, on: sequencer.board) {
                grant.refused.append(refusal)
            } else {
                grant.granted.append(item)
            }
        }
        return grant
    }

    func dropUpdate(_ update: ClientMessage.DropUpdate, from handle: ConnectionHandle, now: Double) {
        guard let state = members[handle], var drag = liveDrag(update.session, from: handle, ref: update.ref, now: now),
            !drag.dropping
        else { return }
        drag.lastActivity = now
        drag.hoverVersion += 1
        drags[drag.key] = drag
        if let board = update.target.board, board != info.id {
            hoverOtherBoard(update, drag: drag, role: state.member.role, board: board)
            return
        }
        var target = update.target
        target.board = nil
        let proposal = sequencer.board.proposal(
            items: drag.items, foreignTypes: drag.external, at: target.hover, copyRequested: update.copy ?? false,
            canEdit: state.member.role == .editor)
        showHover(drag.key, version: drag.hoverVersion, target: target, proposal: proposal, ref: update.ref)
    }

    /// Records a drag's hover, answers the dragger at once and queues the hover for peers' next tick.
    func showHover(_ key: SessionKey, version: Int, target: DragTarget, proposal: Proposal, ref: String?) {
        guard var drag = drags[key], drag.hoverVersion == version else { return }
        drag.target = target
        drag.proposal = proposal
        drags[key] = drag
        reply(
            drag.handle,
            .proposal(ServerMessage.ProposalMessage(ref: ref, session: key.session, target: target, proposal: proposal))
        )
        if !pendingHovers.contains(key) { pendingHovers.append(key) }
    }

    func drop(_ drop: ClientMessage.Drop, from handle: ConnectionHandle, now: Double) {
        guard let state = members[handle] else { return }
        let key = SessionKey(member: state.member.id, session: drop.session)
        if let board = drop.board, board != info.id {
            dropOnOtherBoard(drop, key: key, member: state.member, board: board)
            return
        }
        guard let drag = drags[key], !drag.dropping else {
            // A resend after a reconnect: its drag ended with the old connection, so only the kind
            // and destination tell whether the remembered operation is this drop (R14).
            let recall = sequencer.recall(clientId: state.member.clientId, opId: drop.opId) { op in
                switch op {
                case .move(let move): drop.copy != true && move.destination == drop.destination
                case .copy(let copy): drop.copy == true && copy.destination == drop.destination
                default: false
                }
            }
            switch recall {
            case .resend(let first):
                answerResend(first, opId: drop.opId, ref: drop.ref, to: handle)
            case .conflict(let rejection):
                reply(handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, outcome: .rejected(rejection))))
            case .fresh:
                refuse(handle, unknownSession(drop.session, ref: drop.ref), now: now)
            }
            return
        }
        guard !drag.items.isEmpty else {
            refuse(
                handle,
                ProtocolError(
                    .invalidField,
                    "This drag carries only content from outside the board; drop it with submit (insert or "
                        + "insertPlaceholder) naming the session.", field: "session", ref: drop.ref), now: now)
            return
        }
        let op: BoardOperation =
            drop.copy == true
            ? .copy(BoardOperation.Copy(items: drag.items, destination: drop.destination))
            : .move(
                BoardOperation.Move(
                    items: drag.items, destination: drop.destination, session: drag.leased ? key.leaseID : nil))
        let envelope = ClientOperation(opId: drop.opId, clientId: state.member.clientId, base: drop.base, op: op)
        let outcome = sequence(envelope, ref: drop.ref, from: handle, role: state.member.role, now: now)
        endDrag(key, reason: .dropped, seq: outcome.committed?.seq)
    }

    func dragEnd(_ end: ClientMessage.DragEnd, from handle: ConnectionHandle, now: Double) {
        guard let drag = liveDrag(end.session, from: handle, ref: end.ref, now: now),
            !drag.dropping
        else { return }
        endDrag(drag.key, reason: .cancelled)
    }

    /// Ends a drag: releases its lease and tells the peers.
    func endDrag(_ key: SessionKey, reason: ServerMessage.DragEndReason, seq: Int? = nil) {
        guard let drag = drags.removeValue(forKey: key) else { return }
        dragOrder.removeAll { $0 == key }
        pendingHovers.removeAll { $0 == key }
        if drag.leased { sequencer.leases.end(session: key.leaseID) }
        members[drag.handle]?.sessions.remove(key.session)
        let ended = ServerMessage.DragEnded(session: key.session, member: key.member, reason: reason, seq: seq)
        // The dragger learns of an expiry too; it caused every other ending itself.
        broadcastEphemeral(.dragEnded(ended), drag: key, ended: ended, except: reason == .expired ? nil : drag.handle)
    }

    /// The member's live drag named `session`, or `nil` after answering `unknown-session`.
    func liveDrag(_ session: String, from handle: ConnectionHandle, ref: String?, now: Double) -> DragSession? {
        guard let state = members[handle] else { return nil }
        if let drag = drags[SessionKey(member: state.member.id, session: session)] { return drag }
        refuse(handle, unknownSession(session, ref: ref), now: now)
        return nil
    }

    func unknownSession(_ session: String, ref: String?) -> ProtocolError {
        ProtocolError(
            .unknownSession,
            "No live drag \(session) on this connection (it was dropped, cancelled, expired, or never began); "
                + "begin a new drag.", field: "session", ref: ref)
    }
}
