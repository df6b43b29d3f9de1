import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// Drops from other boards onto this one (R6, R14): the destination's side of moves and copies,
/// and what it remembers of them for resent drops. Requests come as `RoomEvent.crossBoard` events
/// posted by the source's room (or by `RemoteBoards` for another node); answers leave as actions.
extension RoomState {
    // MARK: Moves from a room of this server

    /// Holds this room for a move from `source` and tells it so. The event waited while another
    /// move held the room (`BoardHold`).
    mutating func reserve(for id: MoveID, from source: String) {
        hold.take(id)
        moves.incoming = CrossBoardMoves.Incoming(id: id)
        post(.reserved(id, by: info.id, refusal: nil), to: source, ifGone: .release(id, appended: nil))
    }

    /// Sequences the insert half of the move holding this room and answers with its outcome and
    /// this board's part of the append, which the source queues with its `moveOut`.
    mutating func moveIn(_ id: MoveID, _ movedIn: MovedIn, from source: String, now: BoardTime) {
        guard hold.holder == id else {
            let gone = Rejection(.gone, "Board \(info.id) was not ready for the drop; nothing moved. Drop again.")
            post(.movedIn(id, .rejected(gone), nil, by: info.id), to: source)
            return
        }
        let (outcome, part) = commitMovedIn(movedIn, now: now)
        moves.incoming?.insertedUpTo = outcome.committed?.seq
        actions.append(.crossBoard(.answerMovedIn(id, outcome, part, to: source)))
    }

    /// The move holding this room is over. An insert the source did not hand to the store
    /// (`appended == false`) is undone as a failed write would be.
    mutating func release(_ id: MoveID, appended: Bool?) {
        guard hold.holder == id else { return }
        if appended == false, let upTo = moves.incoming?.insertedUpTo {
            stored(upTo: upTo, error: StoreError(.io, "The move from another board did not complete; nothing moved."))
        }
        moves.incoming = nil
        letGo(id)
    }

    /// Sequences the insert half of a move from another board; this room is held by the move, and
    /// the source queues the returned part with its own `moveOut` as one atomic append.
    ///
    /// - Returns: the outcome, and this board's part of the append (`nil` without a store, or when
    ///   the insert was refused: then nothing changed here).
    mutating func commitMovedIn(_ movedIn: MovedIn, now: BoardTime) -> (Outcome, StoreWrite?) {
        guard keys.role(for: movedIn.key)?.may(.edit) == true else {
            return (.rejected(cannotEdit(movedIn.key)), nil)
        }
        let envelope = ClientOperation(
            opId: movedIn.opId, clientId: movedIn.clientId, base: sequencer.head, op: .insert(movedIn.insert))
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
        return (outcome, endBatch())
    }

    // MARK: Moves from another node

    /// A move from a board of another node asks to hold this room: it yields (`busy`) to a move
    /// of this room's own to another node when this board's id sorts first (wait-die), and waits
    /// otherwise until the room is free and every operation before it is durable, since the
    /// source's transaction writes this board's next seq.
    mutating func prepareFromNode(
        _ id: MoveID, _ movedIn: MovedIn, source: String, reply: CheckedContinuation<Room.PreparedMove, Never>,
        now: BoardTime
    ) {
        if moves.attemptsOnNodes > 0, info.id < source {
            actions.append(.reply(.prepared(reply, .busy)))
            return
        }
        moves.waitingPrepares.append(
            CrossBoardMoves.WaitingPrepare(id: id, movedIn: movedIn, source: source, reply: reply))
        admitMovesFromNodes(now: now)
    }

    /// Lets the first waiting move from another node hold this room when it is free and durable
    /// at its head: its insert is sequenced, and the room stays held until `finishFromNode`.
    mutating func admitMovesFromNodes(now: BoardTime) {
        while !moves.waitingPrepares.isEmpty, !hold.isHeld, relinquished == nil, !durability.isPending(sequencer.head) {
            let waiting = moves.waitingPrepares.removeFirst()
            hold.take(waiting.id)
            let (outcome, part) = commitMovedIn(waiting.movedIn, now: now)
            guard case .committed(let committed) = outcome, let part else {
                letGo(waiting.id)
                actions.append(.reply(.prepared(waiting.reply, .refused(outcome))))
                continue
            }
            moves.incoming = CrossBoardMoves.Incoming(id: waiting.id, insertedUpTo: committed.seq)
            actions.append(.crossBoard(.answerPrepared(waiting.reply, outcome, part)))
        }
    }

    /// A move of this room's own to another node started: moves from other nodes waiting here
    /// from boards that sort after this one yield (wait-die).
    mutating func yieldToMovesFromNodes() {
        guard !moves.waitingPrepares.isEmpty else { return }
        let board = info.id
        var yielding: [CrossBoardMoves.WaitingPrepare] = []
        moves.waitingPrepares.removeAll { waiting in
            guard board < waiting.source else { return false }
            yielding.append(waiting)
            return true
        }
        for waiting in yielding { actions.append(.reply(.prepared(waiting.reply, .busy))) }
    }

    /// Ends the move from another node holding this room: its insert goes out (`committed`), is
    /// undone (`false`), or, when the outcome could not be learned, the room gives the board up so
    /// it is loaded again from the database. Applied before the room is let go: nothing waiting
    /// must be sequenced on top of an insert being undone.
    mutating func finishFromNode(_ id: MoveID, committed: Bool?) {
        guard hold.holder == id, let incoming = moves.incoming, incoming.id == id else { return }
        let upTo = incoming.insertedUpTo ?? sequencer.head
        switch committed {
        case true?:
            stored(upTo: upTo, error: nil)
        case false?:
            stored(
                upTo: upTo, error: StoreError(.io, "The move from another server did not complete; nothing moved."))
        case nil:
            relinquish(
                RoomHandoff(url: nil, reason: "this server could not learn how a move ended; reconnect and resume"))
        }
        moves.incoming = nil
        letGo(id)
    }

    // MARK: Copies and resent drops

    /// Sequences copies coming from another board (a resend gets its first outcome), answered
    /// once they are durable.
    mutating func copyIn(_ movedIn: MovedIn, reply: CheckedContinuation<Outcome, Never>, now: BoardTime) {
        let outcome = insertCopies(movedIn, now: now)
        if case .committed(let committed) = outcome, durability.isPending(committed.seq) {
            moves.afterDurable.append((committed.seq, .copied(reply, outcome)))
        } else {
            actions.append(.reply(.outcome(reply, outcome)))
        }
    }

    /// Sequences copies coming from another board; a resend gets its first outcome.
    mutating func insertCopies(_ movedIn: MovedIn, now: BoardTime) -> Outcome {
        guard keys.role(for: movedIn.key)?.may(.edit) == true else { return .rejected(cannotEdit(movedIn.key)) }
        let envelope = ClientOperation(
            opId: movedIn.opId, clientId: movedIn.clientId, base: sequencer.head, op: .insert(movedIn.insert))
        let fresh = if case .fresh = sequencer.recall(envelope) { true } else { false }
        let outcome = sequencer.submit(envelope, now: now.secondsSince1970, leases: leases)
        if fresh, case .committed(let committed) = outcome {
            announce(committed)
        }
        return outcome
    }

    /// Answers what this board remembers of the insert half of a drop from another board,
    /// matched by its destination (a resent drop no longer carries its items). An insert not yet
    /// durable (a move being decided, a transaction in flight) is answered once it is: if it is
    /// undone instead, the drop did not happen.
    mutating func answerRecall(
        opId: String, clientId: String, destination: Destination, reply: CheckedContinuation<Sequencer.Recall?, Never>
    ) {
        // A room that gave its board up cannot tell: the node that holds the board next answers
        // from the database (`nil`: ask again there), since the insert may well be committed.
        guard relinquished == nil else { return actions.append(.reply(.recall(reply, nil))) }
        let recall = sequencer.recall(clientId: clientId, opId: opId) { op in
            if case .insert(let insert) = op { return insert.destination == destination }
            return false
        }
        if case .resend(let first) = recall, let seq = first.committed?.seq, durability.isPending(seq) {
            moves.afterDurable.append((seq, .recall(opId: opId, clientId: clientId, destination, reply)))
        } else {
            actions.append(.reply(.recall(reply, recall)))
        }
    }

    /// Settles what waited for seqs up to `seq` (every one when `seq` is `nil`): stored, or lost
    /// with `error`.
    mutating func settleAfterDurable(upTo seq: Int?, error: StoreError?) {
        guard !moves.afterDurable.isEmpty else { return }
        for waiting in moves.takeAfterDurable(upTo: seq ?? .max) {
            switch waiting {
            case .moveStored(let id):
                moveStored(id, error: error)
            case .copied(let reply, let outcome):
                actions.append(.reply(.outcome(reply, error.map { .rejected(.storeFailed($0)) } ?? outcome)))
            case .recall(let opId, let clientId, let destination, let reply):
                answerRecall(opId: opId, clientId: clientId, destination: destination, reply: reply)
            }
        }
    }

    /// Answers the cross-board events that reach a room after it gave its board up, so no other
    /// room or node waits for it.
    mutating func refuseAfterRelinquishing(_ step: CrossBoardEvent) {
        let gone = Rejection(.gone, "Board \(info.id) moved to another server; try again.")
        switch step.event {
        case .reserve(let id, let source):
            post(.reserved(id, by: info.id, refusal: gone), to: source)
        case .reserved(let id, let board, nil):
            post(.release(id, appended: nil), to: board)
        case .moveIn(let id, _, let source):
            post(.movedIn(id, .rejected(gone), nil, by: info.id), to: source)
        case .movedIn(let id, _, let part, let board):
            post(.release(id, appended: part == nil ? nil : false), to: board)
        case .copyIn(_, let reply):
            actions.append(.reply(.outcome(reply, .rejected(gone))))
        case .recall(_, _, _, let reply):
            actions.append(.reply(.recall(reply, nil)))
        case .prepareFromNode(_, _, _, let reply):
            actions.append(.reply(.prepared(reply, .refused(.rejected(gone)))))
        case .proposal, .recalled, .copied, .reserved, .preparedOnNode, .retry, .release, .finishFromNode:
            break
        }
    }

    /// The refusal of a drop whose key does not open this board for editing (R17: naming the role
    /// it opens, if any).
    private func cannotEdit(_ key: String?) -> Rejection {
        let opens = keys.role(for: key).map { " (it opens it for a \($0.rawValue))" } ?? ""
        return Rejection(
            .readOnly, "The key does not open \(info.title) for editing\(opens); ask for its edit link.", field: "key")
    }
}
