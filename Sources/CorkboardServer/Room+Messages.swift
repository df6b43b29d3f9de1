import CorkboardModel
import CorkboardProtocol

extension Room {
    func receive(_ message: ClientMessage, from handle: ConnectionHandle, now: Double) {
        guard members[handle] != nil else {
            // A connection that was refused (bad key) or replaced may still have messages in flight.
            reply(handle, .error(ProtocolError(.notJoined, "Send hello before anything else.", ref: message.ref)))
            return
        }
        switch message {
        case .hello(let hello):
            refuse(
                handle, ProtocolError(.alreadyJoined, "This connection already joined the board.", ref: hello.ref),
                now: now)
        case .submit(let submit): self.submit(submit, from: handle, now: now)
        case .dragBegin(let begin): dragBegin(begin, from: handle, now: now)
        case .dragAdd(let add): dragAdd(add, from: handle, now: now)
        case .dropUpdate(let update): dropUpdate(update, from: handle, now: now)
        case .drop(let drop): self.drop(drop, from: handle, now: now)
        case .dragEnd(let end): dragEnd(end, from: handle, now: now)
        case .cursor(let cursor): moveCursor(cursor, from: handle)
        case .presence(let presence): changePresence(presence, from: handle)
        case .sync(let sync): self.sync(sync, from: handle, now: now)
        case .ping(let ping):
            reply(handle, .pong(ServerMessage.Pong(ref: ping.ref, head: sequencer.head)))
        }
    }

    // MARK: Operations

    func submit(_ submit: ClientMessage.Submit, from handle: ConnectionHandle, now: Double) {
        guard let state = members[handle] else { return }
        var op = submit.op
        switch op {
        case .moveOut:
            refuse(
                handle,
                ProtocolError(
                    .invalidField, "moveOut is the server's half of a drop on another board; send drop with board.",
                    field: "op.kind", ref: submit.ref), now: now)
            return
        case .insert(let insert):
            if let index = insert.items.firstIndex(where: { $0.hasChosenID }) {
                refuse(
                    handle,
                    ProtocolError(
                        .invalidField,
                        "Inserted items get ids derived from the opId; leave \"id\" out (items keep ids only when "
                            + "they move between boards).", field: "op.items.\(index).id", ref: submit.ref), now: now)
                return
            }
        case .move(var move):
            move.session = (move.session ?? submit.session).flatMap { leaseID(of: $0, for: state) }
            op = .move(move)
        case .delete(var delete):
            delete.session = (delete.session ?? submit.session).flatMap { leaseID(of: $0, for: state) }
            op = .delete(delete)
        default:
            break
        }
        let envelope = ClientOperation(opId: submit.opId, clientId: state.member.clientId, base: submit.base, op: op)
        let outcome = sequence(envelope, ref: submit.ref, from: handle, role: state.member.role, now: now)
        if let session = submit.session, state.sessions.contains(session) {
            endDrag(
                SessionKey(member: state.member.id, session: session), reason: .dropped, seq: outcome.committed?.seq)
        }
    }

    /// The lease id of one of the member's live sessions, or `nil` when it has no such session.
    func leaseID(of session: String, for state: MemberState) -> String? {
        state.sessions.contains(session) ? SessionKey(member: state.member.id, session: session).leaseID : nil
    }

    /// Runs an operation through the sequencer; acks the sender and broadcasts a new commit to the
    /// other members. A resent operation gets its first outcome again and nothing is broadcast.
    @discardableResult
    func sequence(
        _ envelope: ClientOperation, ref: String?, from handle: ConnectionHandle, role: Role, now: Double
    ) -> Outcome {
        let outcome: Outcome
        let recall = sequencer.recall(envelope)
        if case .resend(let first) = recall {
            answerResend(first, opId: envelope.opId, ref: ref, to: handle)
            return first
        } else if case .conflict(let rejection) = recall {
            // R14: a used opId answers only a resend of the same operation.
            outcome = .rejected(rejection)
        } else if role == .viewer {
            outcome = .rejected(.readOnly)
        } else {
            outcome = sequencer.submit(envelope, now: now)
            if case .committed(let committed) = outcome {
                recordCommit(committed, sender: OperationSender(handle: handle, ref: ref, opId: envelope.opId))
                // One encoding of the operation serves the peers' op and the sender's ack.
                let encoded = WireCodec.encodeCommit(committed, ref: ref, opId: envelope.opId)
                let peers = memberOrder.filter { $0 != handle }
                if !peers.isEmpty { outbox.append(.send(encoded.op, peers, committed: true)) }
                outbox.append(.send(encoded.ack, [handle], committed: true))
                return outcome
            }
        }
        reply(handle, .ack(ServerMessage.Ack(ref: ref, opId: envelope.opId, outcome: outcome)))
        return outcome
    }

    /// Sequences an operation of the room itself (placeholder clean-up) and broadcasts it to every
    /// member.
    @discardableResult
    func sequenceSystem(_ op: BoardOperation, opId: String, now: Double) -> Outcome {
        let envelope = ClientOperation(opId: opId, clientId: ClientIdentity.system, base: sequencer.head, op: op)
        let outcome = sequencer.submit(envelope, now: now)
        switch outcome {
        case .committed(let committed):
            recordCommit(committed, sender: nil)
            broadcast(.op(committed))
        case .rejected(let rejection):
            logger.warning("room operation rejected", metadata: ["op": "\(op.kind)", "reason": "\(rejection)"])
        }
        return outcome
    }
}

extension NewItem {
    /// Whether the item or a child names its own id.
    var hasChosenID: Bool { id != nil || (children ?? []).contains { $0.hasChosenID } }
}
