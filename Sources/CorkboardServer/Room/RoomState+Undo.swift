import CorkboardModel
import CorkboardProtocol

/// Undo and redo, per client (R13): the room hands `undo` and `redo` to the model's
/// `UndoHistory`, which makes the reverse of the client's newest entry against the board as it is
/// now and runs it through the sequencer like any operation; the room acks the sender, broadcasts
/// the commit and tells the client what its Undo and Redo can do next (`undoable`).
extension RoomState {
    mutating func undoOrRedo(
        _ request: ClientMessage.UndoRequest, _ direction: UndoHistory.Direction, from handle: ConnectionHandle,
        member: Member, now: BoardTime
    ) {
        guard member.role.may(.undo) else {
            outbox.reply(
                handle,
                .ack(
                    ServerMessage.Ack(
                        ref: request.ref, opId: request.opId, outcome: .rejected(member.role.refusal(.undo)))))
            return
        }
        // R17: the reverse is checked like any operation of the member's (a commenter undoes its
        // comments, never a move it made while it could edit).
        let role = member.role
        let answer = undo.history.perform(
            direction, clientId: member.clientId, opId: request.opId, base: request.base, sequencer: &sequencer,
            now: now.secondsSince1970, leases: leases, name: member.name, allowing: { role.refusal(of: $0) })
        switch answer {
        case .committed(let committed):
            announce(committed, to: OperationSender(handle: handle, ref: request.ref, opId: request.opId))
            editsAfterCommit(committed)
        case .rejected(let rejection):
            outbox.reply(
                handle, .ack(ServerMessage.Ack(ref: request.ref, opId: request.opId, outcome: .rejected(rejection))))
        case .resend(let first):
            durability.answerResend(first, opId: request.opId, ref: request.ref, to: handle, outbox: &outbox)
        }
        undo.notify(member.clientId, on: handle, outbox: &outbox)
        undo.notifyTrimmed(members, outbox: &outbox)
    }

    /// After a client's own operation committed: edit leases it ended, and what its Undo can do.
    mutating func afterClientCommit(_ committed: CommittedOperation, on handle: ConnectionHandle) {
        editsAfterCommit(committed)
        undo.notify(committed.clientId, on: handle, outbox: &outbox)
        undo.notifyTrimmed(members, outbox: &outbox)
    }

    /// Records, in the dragger's history, a drop on another board (R6): it is not undone here.
    mutating func recordOtherBoardDrop(clientId: String, seq: Int, copy: Bool, on handle: ConnectionHandle) {
        let recipe: UndoRecipe =
            copy
            ? .notUndoable(
                "copies on another board are not undone from here; delete them on that board",
                summary: "copying cards to another board")
            : .notUndoable(
                "moves to another board cannot be undone; drag the cards back from that board",
                summary: "moving cards to another board")
        undo.history.record(recipe, seq: seq, for: clientId)
        undo.notify(clientId, on: handle, outbox: &outbox)
        undo.notifyTrimmed(members, outbox: &outbox)
    }
}
