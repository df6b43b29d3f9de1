import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Logging

/// Joining, catching up and leaving (R10, R14): `Members` decides who joins, `SnapshotTransfers`
/// how the board reaches them; the room puts the answers together.
extension RoomState {
    /// Joins a connection: in the role its key opens, or, with `resolved` (its invite or device
    /// resolved in the catalog before the room, issue 45), as that person in the person's role.
    mutating func join(
        _ handle: ConnectionHandle, _ hello: ClientMessage.Hello, as resolved: PersonJoin? = nil, now: BoardTime
    ) {
        var person: Person?
        if let resolved {
            adopt(resolved.people)
            // The room's people may be newer than the transaction's (removed or re-roled since).
            let current = people.person(resolved.person.id) ?? resolved.person
            guard !current.removed else {
                let refusal = PeopleRefusal(
                    .removed, "You were removed from this board; ask an admin of the board if this is a mistake.")
                return refuseJoin(handle, ProtocolError(refusal, ref: hello.ref))
            }
            person = current
        }
        var role = person?.role
        if person == nil, !hello.asksForPerson {
            role = keys.role(for: hello.key)
            if let opened = role, refusesLink(opened) {
                return refuseJoin(
                    handle,
                    ProtocolError(
                        .linksOff,
                        "This board's share links were turned off; ask an admin of the board for an invite.",
                        field: "key", ref: hello.ref))
            }
        }
        let admission = members.admit(
            hello, on: handle, role: role, board: info,
            isKnown: { [histories = undo.history] in histories.holds($0) })
        switch admission {
        case .refused(let error, let close):
            outbox.reply(handle, .error(error))
            if let close { outbox.close(handle, code: close.code, reason: close.reason) }
        case .admitted(let clientId, let resumeToken, let role, let previous):
            if let previous {
                // The same client resumed on a new connection before the old one noticed it was dead.
                leave(previous, now: now)
                outbox.close(previous, code: CloseCode.replaced, reason: "resumed on another connection")
            }
            let alias = person.flatMap { person in
                hello.displayName.lowercased() == person.name.lowercased() ? nil : hello.displayName
            }
            let member = members.add(
                handle, clientId: clientId, name: person?.name ?? hello.displayName, role: role,
                preferred: hello.color, person: person?.id, alias: alias)
            if person != nil { peopleNoticeDue = true }
            var ops: [CommittedOperation]? = nil
            if let lastSeq = hello.lastSeq, hello.history == nil || hello.history == history {
                ops = sequencer.operations(after: lastSeq)
            }
            let live = drags.states
            let listed = members.welcomeList(for: handle, dragHolders: live.map(\.member))
            let memberCount = members.count
            let (board, edits, undoable, shared) = (
                currentInfo, editStates, undo.welcomed(clientId), sharedKeys(for: role)
            )
            let personInfo = person.map { self.personInfo($0, online: true, alias: alias) }
            let (head, tick, history) = (sequencer.head, configuration.tickMilliseconds, history)
            let welcome = catchUp(from: ops) { ops, snapshot, parts in
                .welcome(
                    ServerMessage.Welcome(
                        ref: hello.ref, board: board, member: member, head: head, snapshot: snapshot,
                        ops: ops, snapshotParts: parts, members: listed, memberCount: memberCount, drags: live,
                        tickMilliseconds: tick, resumeToken: resumeToken, history: history,
                        edits: edits, undoable: undoable, keys: shared, person: personInfo))
            }
            // Peers learn of the join at the next tick, in one `membersChanged` for every join.
            announce(welcome, to: handle, now: now)
            logger.debug(
                "member joined",
                metadata: [
                    "connection": "\(handle)", "member": "\(member.id)", "client": "\(clientId)",
                    "role": "\(role.rawValue)",
                    "resume": "\(hello.lastSeq.map(String.init) ?? "-")", "ops": "\(welcome.operations ?? -1)",
                ])
        }
    }

    /// Refuses a `hello` with its error, then closes 4003 (a failed join the throttle counts).
    private mutating func refuseJoin(_ handle: ConnectionHandle, _ error: ProtocolError) {
        outbox.reply(handle, .error(error))
        outbox.close(handle, code: CloseCode.badKey, reason: error.code.rawValue)
    }

    mutating func leave(_ handle: ConnectionHandle, now: BoardTime) {
        guard let (state, forgotten) = members.remove(handle) else { return }
        if state.member.person != nil { peopleNoticeDue = true }
        for client in forgotten { undo.forget(client) }
        transfers.cancel(handle)
        for key in drags.keys(of: state.member.id) {
            drags.end(key, reason: .disconnected, leases: &leases.drags, members: &members, outbox: &outbox)
        }
        endEdits(of: state.member)
        ephemeral.forget(handle)
        activity.forget(handle)
        if !sequencer.board.placeholders(ownedBy: state.member.clientId).isEmpty {
            members.noteDeparture(of: state.member.clientId, at: now)
        }
        logger.debug("member left", metadata: ["member": "\(state.member.id)"])
    }

    /// Answers `sync`: the operations after `lastSeq`, or the board.
    mutating func sync(_ sync: ClientMessage.Sync, from handle: ConnectionHandle, now: BoardTime) {
        transfers.cancel(handle)
        let head = sequencer.head
        let synced = catchUp(from: sequencer.operations(after: sync.lastSeq)) { ops, snapshot, parts in
            .synced(ServerMessage.Synced(ref: sync.ref, head: head, snapshot: snapshot, ops: ops, snapshotParts: parts))
        }
        announce(synced, to: handle, now: now)
    }

    /// A `welcome` or `synced` with the operations `ops`, or with the board (see
    /// `SnapshotTransfers.catchUp`).
    private mutating func catchUp(
        from ops: [CommittedOperation]?,
        _ message: ([CommittedOperation]?, Snapshot?, ServerMessage.SnapshotParts?) -> ServerMessage
    ) -> CatchUpMessage {
        let logger = self.logger
        return transfers.catchUp(
            ops: ops, sequencer: sequencer, durableHead: durableHead, configuration,
            encoded: { encoding in
                logger.debug(
                    "snapshot encoded in parts",
                    metadata: [
                        "seq": "\(encoding.seq)", "parts": "\(encoding.parts.count)", "bytes": "\(encoding.bytes)",
                    ])
            }, message: message)
    }

    /// Queues the message announcing a member's board, then the start of its parts' transfer. A
    /// rollback closes the member instead, since the message was built on state it undid.
    mutating func announce(_ message: CatchUpMessage, to handle: ConnectionHandle, now: BoardTime) {
        outbox.send(message.encoded, to: [handle], onRollback: .closeRecipients)
        for op in message.following {
            outbox.send(WireCodec.encode(.op(op)), to: [handle], onRollback: .closeRecipients)
        }
        guard let parts = message.parts else { return }
        transfers.begin(handle, parts, now: now)
        outbox.startTransfer(handle)
    }

    /// The announcement went out (the actor performed it): the first parts, to send at once; the
    /// rest follow as the member reads.
    mutating func startTransfer(_ handle: ConnectionHandle, now: BoardTime) -> [EncodedMessage] {
        guard let seq = transfers.seq(of: handle) else { return [] }
        guard members[handle] != nil, seq <= durableHead else {
            // The member left, or a store failure rolled the board back past the snapshot (its
            // connection was closed for that).
            transfers.cancel(handle)
            return []
        }
        return transfers.start(
            handle, now: now, window: configuration.snapshotWindowBytes,
            pendingBytes: backlogs.pendingBytes(of: handle))
    }

    /// Sends each transfer the parts that fit its window; closes members whose transfer stalled,
    /// as slow clients (R11).
    mutating func pumpTransfers(now: BoardTime) {
        guard !transfers.isEmpty else { return }
        let backlogs = self.backlogs
        let step = transfers.pump(
            now: now, window: configuration.snapshotWindowBytes, stallTimeout: configuration.snapshotStallTimeout,
            pendingBytes: { backlogs.pendingBytes(of: $0) })
        if !step.sends.isEmpty {
            actions.append(.outputs(step.sends.map { part, handle in .send(part, [handle], .keep) }))
        }
        for handle in step.stalled {
            guard let member = members.member(on: handle) else { continue }
            logger.notice(
                "closing a member whose snapshot transfer stalled",
                metadata: ["member": "\(member.id)", "pendingBytes": "\(backlogs.pendingBytes(of: handle))"])
            leave(handle, now: now)
            outbox.close(
                handle, code: CloseCode.policyViolation,
                reason: "too slow to keep up; reconnect with your last seq to resume", discardingPending: true)
        }
    }
}
