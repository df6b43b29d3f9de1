import CorkboardModel
import CorkboardProtocol
import Logging

/// A joined member's messages, and the sequencing of operations (R1–R14): a drop reads in this
/// file (`receive`, `drop`, `sequence`) and `Drags.swift`, and leaves through `RoomOutbox.swift`
/// and `flush()` in `RoomState+Batches.swift`.
extension RoomState {
    // MARK: Messages

    mutating func receive(_ message: ClientMessage, from handle: ConnectionHandle, now: BoardTime, busy: Bool = false) {
        guard let member = members.member(on: handle) else {
            // A connection that was refused (bad key) or replaced may still have messages in flight.
            outbox.reply(
                handle, .error(ProtocolError(.notJoined, "Send hello before anything else.", ref: message.ref)))
            return
        }
        do throws(ProtocolError) {
            switch message {
            case .hello(let hello):
                throw ProtocolError(.alreadyJoined, "This connection already joined the board.", ref: hello.ref)
            case .submit(let submit): try self.submit(submit, from: handle, member: member, now: now)
            case .dragBegin(let begin):
                try drags.begin(
                    begin, by: member, on: handle, now: now, busy: busy, leases: &leases.drags, board: sequencer.board,
                    members: &members, outbox: &outbox)
            case .dragAdd(let add):
                try drags.add(
                    add, by: member, on: handle, now: now, leases: &leases.drags, board: sequencer.board,
                    members: &members, outbox: &outbox)
            case .dropUpdate(let update):
                if let foreign = try drags.hover(
                    update, by: member, now: now, sequencer: &sequencer, boardID: info.id, busy: busy,
                    outbox: &outbox)
                {
                    hoverOtherBoard(update, foreign)
                }
            case .drop(let drop): try self.drop(drop, from: handle, member: member, now: now)
            case .dragEnd(let end):
                try drags.cancel(end, by: member, leases: &leases.drags, members: &members, outbox: &outbox)
            case .cursor(let cursor): ephemeral.moveCursor(cursor, of: member, on: handle)
            case .presence(let presence): ephemeral.changePresence(presence.state, of: handle)
            case .sync(let sync): self.sync(sync, from: handle, now: now)
            case .ping(let ping): outbox.reply(handle, .pong(ServerMessage.Pong(ref: ping.ref, head: sequencer.head)))
            case .editBegin(let begin): editBegin(begin, from: handle, member: member, now: now)
            case .editEnd(let end): editEnd(end, from: handle, member: member)
            case .undo(let request): undoOrRedo(request, .undo, from: handle, member: member, now: now)
            case .redo(let request): undoOrRedo(request, .redo, from: handle, member: member, now: now)
            case .listMembers(let request): outbox.reply(handle, .memberList(members.memberList(request)))
            case .activity(let request): try answerActivity(request, from: handle)
            case .people(let request): try managePeople(request, from: handle, member: member)
            }
        } catch {
            refuse(handle, error, now: now)
        }
    }

    /// Answers an invalid message with its error and closes the connection 1008 when it keeps
    /// sending them.
    mutating func refuse(_ handle: ConnectionHandle, _ error: ProtocolError, now: BoardTime) {
        outbox.reply(handle, .error(error))
        guard members.recordInvalid(from: handle, at: now, configuration) else { return }
        logger.notice(
            "closing a connection that keeps sending invalid messages",
            metadata: ["member": "\(members[handle]?.member.id ?? "-")", "last": "\(error)"])
        outbox.close(handle, code: CloseCode.policyViolation, reason: "too many invalid messages")
    }

    // MARK: Operations

    mutating func submit(_ submit: ClientMessage.Submit, from handle: ConnectionHandle, member: Member, now: BoardTime)
        throws(ProtocolError)
    {
        var op = submit.op
        switch op {
        case .moveOut:
            throw ProtocolError(
                .invalidField, "moveOut is the server's half of a drop on another board; send drop with board.",
                field: "op.kind", ref: submit.ref)
        case .insert(let insert):
            if let (index, field) = insert.items.enumerated().lazy.compactMap({ n, item in
                item.chosenField.map { (n, $0) }
            }).first {
                throw ProtocolError(
                    .invalidField,
                    "Inserted items get ids derived from the opId and start at version 0; leave \"id\" and "
                        + "\"version\" out (items keep them only when they move between boards or an undo brings "
                        + "them back).", field: "op.items.\(index).\(field)", ref: submit.ref)
            }
        case .move(var move):
            move.session = (move.session ?? submit.session).flatMap { drags.leaseID(of: $0, for: member) }
            op = .move(move)
        case .delete(var delete):
            delete.session = (delete.session ?? submit.session).flatMap { drags.leaseID(of: $0, for: member) }
            // Who deleted, for the Trash: the name people know them by (R15).
            delete.name = member.name
            op = .delete(delete)
        case .deleteSection, .deleteCollection:
            op = op.named(member.name)
        case .addComment(var add):
            // The name people know the author by, never one the message claims (R16).
            add.name = member.name
            op = .addComment(add)
        default:
            break
        }
        let envelope = ClientOperation(opId: submit.opId, clientId: member.clientId, base: submit.base, op: op)
        let outcome = sequence(envelope, ref: submit.ref, from: handle, role: member.role, now: now)
        if let session = submit.session {
            drags.end(
                SessionKey(member: member.id, session: session), reason: .dropped, seq: outcome.committed?.seq,
                leases: &leases.drags, members: &members, outbox: &outbox)
        }
    }

    /// A drop on this board sequences the drag's items (R3); one on another board goes to
    /// `dropOnOtherBoard` (R6, R14).
    mutating func drop(_ drop: ClientMessage.Drop, from handle: ConnectionHandle, member: Member, now: BoardTime)
        throws(ProtocolError)
    {
        if let board = drop.board, board != info.id {
            try dropOnOtherBoard(drop, from: handle, member: member, board: board, now: now)
            return
        }
        let plan: Drags.DropPlan
        if let live = try drags.planDrop(drop, by: member) {
            plan = live
        } else {
            plan = try Drags.recallDrop(drop, by: member, in: sequencer)
        }
        switch plan {
        case .sequence(let envelope, let key):
            let outcome = sequence(
                envelope, ref: drop.ref, from: handle, role: member.role, now: now, timedFrom: batchStart)
            drags.end(
                key, reason: .dropped, seq: outcome.committed?.seq, leases: &leases.drags, members: &members,
                outbox: &outbox)
        case .resend(let first):
            durability.answerResend(first, opId: drop.opId, ref: drop.ref, to: handle, outbox: &outbox)
        case .conflict(let rejection):
            countRejected(rejection.code)
            outbox.reply(handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, outcome: .rejected(rejection))))
        }
    }

    /// Runs an operation through the sequencer; acks the sender and broadcasts a new commit to the
    /// other members (`announce`). A resent operation gets its first outcome again and
    /// nothing is broadcast. A drop's broadcast is timed from `timedFrom` until it reached every
    /// peer (`corkboard_drop_broadcast_seconds`).
    @discardableResult
    mutating func sequence(
        _ envelope: ClientOperation, ref: String?, from handle: ConnectionHandle, role: Role, now: BoardTime,
        timedFrom: ContinuousClock.Instant? = nil
    ) -> Outcome {
        let outcome: Outcome
        switch sequencer.recall(envelope) {
        case .resend(let first):
            durability.answerResend(first, opId: envelope.opId, ref: ref, to: handle, outbox: &outbox)
            return first
        case .conflict(let rejection):
            // R14: a used opId answers only a resend of the same operation.
            outcome = .rejected(rejection)
        case .fresh where !role.may(envelope.op):
            // R17: the role decides, kind by kind (`Role.may(_:)`).
            outcome = .rejected(role.refusal(of: envelope.op) ?? .readOnly)
        case .fresh:
            // Recorded in the client's undo history when it commits (R13).
            outcome = undo.history.submit(envelope, to: &sequencer, now: now.secondsSince1970, leases: leases)
            if case .committed(let committed) = outcome {
                announce(
                    committed, to: OperationSender(handle: handle, ref: ref, opId: envelope.opId), timedFrom: timedFrom)
                afterClientCommit(committed, on: handle)
                return outcome
            }
        }
        if case .rejected(let rejection) = outcome { countRejected(rejection.code) }
        outbox.reply(handle, .ack(ServerMessage.Ack(ref: ref, opId: envelope.opId, outcome: outcome)))
        return outcome
    }

    /// Sequences an operation of the room itself (placeholder clean-up) and broadcasts it to every
    /// member.
    mutating func sequenceSystem(_ op: BoardOperation, opId: String, now: BoardTime) {
        let envelope = ClientOperation(opId: opId, clientId: ClientIdentity.system, base: sequencer.head, op: op)
        switch sequencer.submit(envelope, now: now.secondsSince1970, leases: leases) {
        case .committed(let committed):
            announce(committed)
        case .rejected(let rejection):
            logger.warning("room operation rejected", metadata: ["op": "\(op.kind)", "reason": "\(rejection)"])
        }
    }
}

extension NewItem {
    /// The path of the first id or version the item or a child chooses itself (`id`,
    /// `children.0.version`), or `nil` when it leaves them to the board.
    var chosenField: String? {
        if id != nil { return "id" }
        if version != 0 { return "version" }
        for (index, child) in (children ?? []).enumerated() {
            if let field = child.chosenField { return "children.\(index).\(field)" }
        }
        return nil
    }
}
