import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// Drops between two boards (R6, R14): the decisions of the source's side and of the destination's
/// side; the awaiting is the `Room` actor's (`Room+CrossBoard.swift`, `Room+RemoteBoard.swift`).
///
/// Each half has its own identity, derived from the drop's opId with the character clients may
/// not use (`ProtocolLimits.reservedOpIdCharacter`), so no other operation can be mistaken for it
/// and a resend is answered only from the half of the same drop.
extension RoomState {
    // MARK: The source's side

    /// Another board's answer to a step this room asked for.
    mutating func answered(_ answer: CrossBoardAnswer, now: BoardTime) {
        switch answer.answer {
        case .proposal(let proposal, let update, let foreign):
            showForeignProposal(proposal, for: update, foreign)
        case .recalled(let recall, let drop, let handle, let board):
            answerResentDrop(drop, to: handle, board: board, recall: recall, now: now)
        case .dropEnded(let step, let outcome, let movedOut, let sameServer):
            dropOnOtherBoardEnded(step, outcome: outcome, movedOut: movedOut, sameServer: sameServer)
        }
    }

    /// A hover over another board: that board's room proposes (the actor asks it).
    mutating func hoverOtherBoard(_ update: ClientMessage.DropUpdate, _ foreign: Drags.ForeignHover) {
        let other = registry.locate(foreign.board)
        guard case .unknown = other else {
            actions.append(.crossBoard(.hover(update, foreign, other)))
            return
        }
        drags.show(
            foreign.key, version: foreign.version, target: update.target,
            proposal: Proposal(
                operation: .cancel, intent: update.target.intent, reason: "Board \(foreign.board) does not exist."),
            ref: update.ref, outbox: &outbox)
    }

    /// The other board's proposal for a hover: shown unless a newer hover came first.
    mutating func showForeignProposal(
        _ proposal: Proposal, for update: ClientMessage.DropUpdate, _ foreign: Drags.ForeignHover
    ) {
        var proposal = proposal
        if proposal.operation == .copy, foreign.movable { proposal.operation = .move }
        drags.show(
            foreign.key, version: foreign.version, target: update.target, proposal: proposal, ref: update.ref,
            outbox: &outbox)
    }

    /// A drop on another board: a move or a copy of the live drag's items, or the answer to a
    /// resent drop whose drag ended with the old connection.
    mutating func dropOnOtherBoard(
        _ drop: ClientMessage.Drop, from handle: ConnectionHandle, member: Member, board: String
    ) throws(ProtocolError) {
        let other = registry.locate(board)
        if case .unknown = other {
            throw ProtocolError(.unknownBoard, "Board \(board) does not exist.", field: "board", ref: drop.ref)
        }
        let key = SessionKey(member: member.id, session: drop.session)
        guard let drag = drags[key], !drag.dropping else {
            actions.append(.crossBoard(.recall(drop, handle, clientId: member.clientId, board: board, other)))
            return
        }
        guard !drag.items.isEmpty else {
            throw ProtocolError(
                .invalidField, "This drag carries only content from outside; drop it with submit on that board.",
                field: "session", ref: drop.ref)
        }
        _ = drags.beginDropping(key)
        let step = CrossBoardDrop(
            drop: drop, handle: handle, clientId: member.clientId, board: board, key: key,
            copy: drop.copy == true || member.role == .viewer)
        actions.append(.crossBoard(.drop(step, other)))
    }

    /// The insert of copies of the dragged trees, for the other board; this board does not change.
    func copies(for step: CrossBoardDrop) -> BoardOperation.Insert {
        let trees = (drags[step.key]?.items ?? []).compactMap { sequencer.board.item($0) }
        return BoardOperation.Insert(items: trees.map { NewItem(copying: $0) }, destination: step.drop.destination)
    }

    /// What taking a drag's items out for a move to another board did.
    enum MoveOut {
        /// Nothing changed: the outcome says why (the drag ended, a lease, a vanished item).
        case refused(Outcome)
        /// `moveOut` is sequenced (and neither sent nor recorded yet): the insert of the same trees
        /// for the destination, and the sequencer as it was before, to undo it exactly.
        case taken(CommittedOperation, BoardOperation.Insert, before: Sequencer)
    }

    /// Sequences the `moveOut` half of a move to `step.board`; the caller holds this room's gate,
    /// so nothing else is sequenced here until it is announced (`announceMoveOut`) or undone
    /// (`undoMoveOut`).
    mutating func takeOut(_ step: CrossBoardDrop, now: BoardTime) -> MoveOut {
        // The drag may have ended (its owner left) before the gates were free.
        guard relinquished == nil, let drag = drags[step.key], drag.dropping else {
            return .refused(.rejected(Rejection(.gone, "The drag ended before the drop could apply; drag again.")))
        }
        let out = ClientOperation(
            opId: CrossBoardIdentity.movedOut(step.drop.opId, to: step.board), clientId: step.clientId,
            base: sequencer.head,
            op: .moveOut(BoardOperation.Delete(items: drag.items, session: drag.leased ? step.key.leaseID : nil)))
        let before = sequencer
        let taken = sequencer.submit(out, now: now.secondsSince1970, leases: leases)
        guard case .committed(let committed) = taken else { return .refused(taken) }
        let insert = BoardOperation.Insert(
            items: committed.effect.removed.map { NewItem($0) }, destination: step.drop.destination)
        return .taken(committed, insert, before: before)
    }

    /// The destination refused or never answered: back to the sequencer before `moveOut`, its
    /// exact inverse, since nothing was sequenced here since (the gate is held) and nothing of it
    /// was sent or stored.
    mutating func undoMoveOut(to before: Sequencer) { sequencer = before }

    /// The destination took the items: `moveOut` goes to the members and ends the batch; returns
    /// this board's part of the one append holding both halves (`nil` without a store).
    mutating func announceMoveOut(_ committed: CommittedOperation) -> StoreWrite? {
        announce(committed)
        return endBatch()
    }

    /// A drop on another board ended (`movedOut`: the seq of its `moveOut` here, for a move that
    /// committed): the dragger's ack names the destination's outcome, and the drag ends. A drop on
    /// a board of this server (`sameServer`) also counts its refusal and notes a committed drop in
    /// the dragger's history, which cannot undo it from here (R13).
    mutating func dropOnOtherBoardEnded(
        _ step: CrossBoardDrop, outcome: Outcome, movedOut: Int?, sameServer: Bool
    ) {
        if sameServer, case .rejected(let rejection) = outcome { countRejected(rejection.code) }
        outbox.reply(
            step.handle,
            .ack(ServerMessage.Ack(ref: step.drop.ref, opId: step.drop.opId, board: step.board, outcome: outcome)))
        if sameServer, outcome.committed != nil {
            recordOtherBoardDrop(
                clientId: step.clientId, seq: movedOut ?? sequencer.head, copy: step.copy, on: step.handle)
        }
        drags.end(
            step.key, reason: .dropped, seq: movedOut, leases: &leases.drags, members: &members, outbox: &outbox)
    }

    /// Answers a drop resent after a reconnect from what the destination remembers of its half
    /// (`nil`: the destination's node could not be reached).
    mutating func answerResentDrop(
        _ drop: ClientMessage.Drop, to handle: ConnectionHandle, board: String, recall: Sequencer.Recall?,
        now: BoardTime
    ) {
        switch recall {
        case .resend(let first)?:
            outbox.reply(handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: first)))
        case .conflict(let rejection)?:
            outbox.reply(
                handle,
                .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: .rejected(rejection))))
        case .fresh?:
            refuse(handle, Drags.unknownSession(drop.session, ref: drop.ref), now: now)
        case nil:
            refuse(
                handle,
                ProtocolError(
                    .internalError,
                    "The server of \(board) could not be reached to tell how this drop ended; resend it in a moment.",
                    ref: drop.ref), now: now)
        }
    }

    // MARK: The destination's side

    /// The proposal for content from another board hovering here.
    func foreignProposal(types: [[String]], at hover: HoverTarget, key: String?) -> Proposal {
        guard keys.role(for: key) == .editor else {
            return Proposal(
                operation: .forbidden, intent: hover.intent,
                reason: "You cannot edit \(info.title); ask for its edit link.")
        }
        return sequencer.board.proposal(items: [], foreignTypes: types, at: hover)
    }

    /// Sequences the insert half of a move from another board; the caller holds this room's gate
    /// and queues the returned part with the source's `moveOut` as one atomic append.
    ///
    /// - Returns: the outcome, and this board's part of the append (`nil` without a store, or when
    ///   the insert was refused: then nothing changed here).
    mutating func commitMovedIn(
        _ insert: BoardOperation.Insert, opId: String, clientId: String, key: String?, now: BoardTime
    ) -> (Outcome, StoreWrite?) {
        guard keys.role(for: key) == .editor else { return (.rejected(cannotEdit), nil) }
        let envelope = ClientOperation(opId: opId, clientId: clientId, base: sequencer.head, op: .insert(insert))
        guard case .fresh = sequencer.recall(envelope) else {
            // The source's moveOut is new, so a remembered insert here is not this move's half.
            return (
                .rejected(
                    Rejection(
                        .conflict,
                        "This drop's opId was already used for a drop on \(info.title); nothing moved. "
                            + "Give every new operation its own opId.", field: "opId")), nil
            )
        }
        let outcome = sequencer.submit(envelope, now: now.secondsSince1970, leases: leases)
        guard case .committed(let committed) = outcome else { return (outcome, nil) }
        announce(committed)
        let part = endBatch()
        scheduleTimers(now: now)
        return (outcome, part)
    }

    /// Sequences copies coming from another board (a resend gets its first outcome); the caller
    /// then waits until they are durable.
    mutating func insertCopies(
        _ insert: BoardOperation.Insert, opId: String, clientId: String, key: String?, now: BoardTime
    ) -> Outcome {
        guard keys.role(for: key) == .editor else { return .rejected(cannotEdit) }
        let envelope = ClientOperation(opId: opId, clientId: clientId, base: sequencer.head, op: .insert(insert))
        let fresh = if case .fresh = sequencer.recall(envelope) { true } else { false }
        let outcome = sequencer.submit(envelope, now: now.secondsSince1970, leases: leases)
        if fresh, case .committed(let committed) = outcome {
            announce(committed)
        }
        return outcome
    }

    /// What this board remembers of the insert half of a drop from another board, matched by its
    /// destination (a resent drop no longer carries its items).
    func recallMovedIn(_ opId: String, clientId: String, destination: Destination) -> Sequencer.Recall {
        sequencer.recall(clientId: clientId, opId: opId) { op in
            if case .insert(let insert) = op { return insert.destination == destination }
            return false
        }
    }

    private var cannotEdit: Rejection {
        Rejection(.readOnly, "The key does not open \(info.title) for editing; ask for its edit link.", field: "key")
    }
}

/// The identities of the two halves of a drop across boards (R14): derived from the drop's opId
/// with the character no client opId contains, so neither half can be confused with another
/// operation.
enum CrossBoardIdentity {
    /// The `moveOut` half on the source board.
    static func movedOut(_ opId: String, to board: String) -> String {
        "\(opId)\(ProtocolLimits.reservedOpIdCharacter)to:\(board)"
    }

    /// The insert half on the destination board (a move's trees, or a copy's new items).
    static func movedIn(_ opId: String, from board: String) -> String {
        "\(opId)\(ProtocolLimits.reservedOpIdCharacter)from:\(board)"
    }
}

extension NewItem {
    /// A copy of a tree with every id left to be derived from the copying operation (R6 copy).
    init(copying item: Item) {
        self.init(representations: item.representations, children: item.children.map { $0.map(NewItem.init(copying:)) })
    }
}
