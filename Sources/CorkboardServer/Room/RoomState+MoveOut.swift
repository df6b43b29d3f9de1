import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// A move of a drag's items from this board to another (R6), all or nothing (R14): this board's
/// side, as the explicit states of `CrossBoardMoves` that events advance.
///
/// To a room of this server: both rooms are held (`BoardHold`, taken in board-id order), the
/// source sequences `moveOut` and holds it back, the destination sequences the insert of the same
/// trees (ids kept) and answers with its part of the append, and the source hands both parts to
/// the store as one atomic append before either room sequences anything else. If the destination
/// refuses, the source returns to the sequencer it had before `moveOut`: its exact inverse, since
/// nothing else was sequenced, sent or stored in between. The dragger's ack goes once the append
/// is durable and names the destination's outcome, which is where the items are.
///
/// To a board of another node, through `RemoteBoards`: holding this room, the source sequences
/// `moveOut` and asks the destination's node to sequence the insert, which holds that room until
/// the move is decided; both operations then go with the move's record into one transaction of
/// this node's store, each part fenced by its own board's epoch. Moves in opposite directions
/// between nodes (or any cycle of them) would each hold their source while waiting for the other:
/// a destination with a move of its own to another node in progress answers `busy` to a move from
/// a board whose id sorts after its own (wait-die), and that move undoes its `moveOut`, lets its
/// room go and tries again a few milliseconds later.
extension RoomState {
    /// Starts moving a drag's items to another board.
    mutating func startMove(_ drop: CrossBoardDrop, to target: CrossBoardMoves.Target, now: BoardTime) {
        let id = moves.newID(from: info.id)
        let patience: Duration = if case .node(let remote) = target { remote.callTimeout } else { .zero }
        moves.outgoing[id] = CrossBoardMoves.Outgoing(
            drop: drop, target: target, phase: .reserving, deadline: now.advanced(by: patience))
        switch target {
        case .room(let board):
            // Rooms are held in board-id order: this one first when its id sorts first.
            if info.id < board { hold.take(id) }
            let gone = Rejection(.gone, "Board \(board) stopped before the drop could apply; drop again.")
            post(.reserve(id, from: info.id), to: board, ifGone: .reserved(id, by: board, refusal: gone))
        case .node:
            attemptOnNode(id, now: now)
        }
    }

    /// The destination room is held for the move (or refused to be): this room is held too, and
    /// `moveOut` is sequenced and held back while the destination inserts.
    mutating func reserved(_ id: MoveID, by board: String, refusal: Rejection?, now: BoardTime) {
        guard let move = moves.outgoing[id], case .reserving = move.phase else {
            // Not a move of this room any more: the destination must not stay held.
            if refusal == nil { post(.release(id, appended: nil), to: board) }
            return
        }
        if let refusal {
            letGo(id)
            endMove(id, outcome: .rejected(refusal), movedOut: nil)
            return
        }
        if !hold.isHeld { hold.take(id) }  // the destination's id sorted first
        switch takeOut(move.drop, now: now) {
        case .refused(let outcome):
            post(.release(id, appended: nil), to: board)
            letGo(id)
            endMove(id, outcome: outcome, movedOut: nil)
        case .taken(let committed, let insert, let before):
            moves.outgoing[id]?.phase = .inserting(committed, insert, before: before)
            let gone = Rejection(.gone, "Board \(board) stopped before the drop could apply; drop again.")
            post(
                .moveIn(id, movedIn(move.drop, insert), from: info.id), to: board,
                ifGone: .movedIn(id, .rejected(gone), nil, by: board))
        }
    }

    /// The destination room's answer to the insert: both halves go to the store as one append
    /// and `moveOut` to the members, or `moveOut` is undone; both rooms are let go.
    mutating func movedIn(_ id: MoveID, outcome: Outcome, part: BoardAppend?, by board: String) {
        guard let move = moves.outgoing[id], case .inserting(let committed, _, let before) = move.phase else {
            // Not a move of this room any more: the destination undoes its part and is let go.
            post(.release(id, appended: part == nil ? nil : false), to: board)
            return
        }
        guard outcome.committed != nil else {
            sequencer = before
            post(.release(id, appended: nil), to: board)
            letGo(id)
            endMove(id, outcome: outcome, movedOut: nil)
            return
        }
        let mine = announceMoveOut(committed)
        actions.append(.crossBoard(.appendMove(mine, .local(part, board: board))))
        // After the append is queued: the destination sequences nothing before it.
        post(.release(id, appended: true), to: board)
        letGo(id)
        awaitStored(id, committed.seq, outcome: outcome)
    }

    // MARK: To another node

    /// One attempt at a move to a board of another node: this room is held, `moveOut` sequenced
    /// and held back, and the destination's node asked to insert.
    mutating func attemptOnNode(_ id: MoveID, now: BoardTime) {
        guard var move = moves.outgoing[id], case .node(let remote) = move.target else { return }
        hold.take(id)
        move.attempts += 1
        switch takeOut(move.drop, now: now) {
        case .refused(let outcome):
            moves.outgoing[id] = move
            letGo(id)
            endMove(id, outcome: outcome, movedOut: nil)
        case .taken(let committed, let insert, let before):
            move.phase = .inserting(committed, insert, before: before)
            moves.outgoing[id] = move
            yieldToMovesFromNodes()
            actions.append(.crossBoard(.prepareOnNode(id, move.drop, movedIn(move.drop, insert), remote)))
        }
    }

    /// The destination's node answered (`nil`: not in time): both operations go to this node's
    /// store as one transaction, or `moveOut` is undone; a destination that yielded is asked again.
    mutating func preparedOnNode(
        _ id: MoveID, answer: ClusterMessage.Body?, node: String?, token: String, now: BoardTime
    ) {
        guard let move = moves.outgoing[id], case .inserting(let committed, _, let before) = move.phase,
            case .node(let remote) = move.target
        else { return }
        let board = move.drop.board
        guard case .prepared(let placed, let epoch, let operations, let activity)? = answer, let node,
            relinquished == nil,
            hasStore
        else {
            // The exact inverse of the moveOut: nothing was sequenced here since (the room is held),
            // and nothing of it was sent or stored.
            sequencer = before
            letGo(id)
            // A destination that prepared after all learns at once that nothing was written.
            if let node { actions.append(.crossBoard(.abandonOnNode(move: token, node: node, remote))) }
            switch answer {
            case .busy? where now < move.deadline:
                // It yielded to a move of its own: back off a little, at random, and retry.
                moves.outgoing[id]?.phase = .yielded
                let delay = Duration.milliseconds(Int.random(in: 2...10) * min(move.attempts, 8))
                actions.append(.crossBoard(.retry(CrossBoardEvent(.retry(id)), after: delay)))
            case .busy?:
                endMove(
                    id,
                    outcome: .rejected(
                        Rejection(.gone, "Board \(board) was busy with moves of its own; nothing moved. Drop again.")),
                    movedOut: nil)
            case .outcome(let outcome)?:
                endMove(id, outcome: outcome, movedOut: nil)
            case .unavailable(let reason)?:
                endMove(id, outcome: .rejected(Rejection(.gone, reason + " Nothing moved.")), movedOut: nil)
            default:
                endMove(
                    id,
                    outcome: .rejected(
                        Rejection(.gone, "The server of \(board) did not answer in time; nothing moved.")),
                    movedOut: nil)
            }
            return
        }
        let mine = announceMoveOut(committed)
        actions.append(
            .crossBoard(
                .appendMove(
                    mine,
                    .remote(
                        board: board, epoch: epoch, operations: operations, activity: activity?.records ?? .init(),
                        move: token, node: node, remote))))
        letGo(id)
        awaitStored(id, committed.seq, outcome: placed)
    }

    /// A move whose destination's node yielded tries again.
    mutating func retryMove(_ id: MoveID, now: BoardTime) {
        guard let move = moves.outgoing[id], case .yielded = move.phase else { return }
        attemptOnNode(id, now: now)
    }

    // MARK: Steps of both

    /// What taking a drag's items out for a move to another board did.
    enum MoveOut {
        /// Nothing changed: the outcome says why (the drag ended, a lease, a vanished item).
        case refused(Outcome)
        /// `moveOut` is sequenced (and neither sent nor recorded yet): the insert of the same trees
        /// for the destination, and the sequencer as it was before, to undo it exactly.
        case taken(CommittedOperation, BoardOperation.Insert, before: Sequencer)
    }

    /// Sequences the `moveOut` half of a move to `drop.board`; the move holds this room, so
    /// nothing else is sequenced here until it is announced (`announceMoveOut`) or undone.
    mutating func takeOut(_ drop: CrossBoardDrop, now: BoardTime) -> MoveOut {
        // The drag may have ended (its owner left) before the rooms were held.
        guard relinquished == nil, let drag = drags[drop.key], drag.dropping else {
            return .refused(.rejected(Rejection(.gone, "The drag ended before the drop could apply; drag again.")))
        }
        let out = ClientOperation(
            opId: CrossBoardIdentity.movedOut(drop.drop.opId, to: drop.board), clientId: drop.clientId,
            base: sequencer.head,
            op: .moveOut(BoardOperation.Delete(items: drag.items, session: drag.leased ? drop.key.leaseID : nil)))
        let before = sequencer
        let taken = sequencer.submit(out, now: now.secondsSince1970, leases: leases)
        guard case .committed(let committed) = taken else { return .refused(taken) }
        let insert = BoardOperation.Insert(
            items: committed.effect.removed.map { NewItem($0) }, destination: drop.drop.destination,
            labels: sequencer.board.labelDefinitions(for: committed.effect.removed).nilIfEmpty)
        return .taken(committed, insert, before: before)
    }

    /// The destination took the items: `moveOut` goes to the members and ends the batch; returns
    /// this board's part of the one append holding both halves (`nil` without a store).
    mutating func announceMoveOut(_ committed: CommittedOperation) -> StoreWrite? {
        announce(committed)
        return endBatch()
    }

    /// The dragger's ack waits until `moveOut` (`seq`) is durable (at once without a store).
    private mutating func awaitStored(_ id: MoveID, _ seq: Int, outcome: Outcome) {
        guard durability.isPending(seq) else { return endMove(id, outcome: outcome, movedOut: seq) }
        moves.outgoing[id]?.phase = .storing(outcome, seq: seq)
        moves.afterDurable.append((seq, .moveStored(id)))
    }

    /// A move stored (`error == nil`) or lost with its transaction: the ack tells the dragger.
    mutating func moveStored(_ id: MoveID, error: StoreError?) {
        guard let move = moves.outgoing[id], case .storing(let outcome, let seq) = move.phase else { return }
        if let error {
            endMove(id, outcome: .rejected(.storeFailed(error)), movedOut: nil)
        } else {
            endMove(id, outcome: outcome, movedOut: seq)
        }
    }

    /// The move is over: the dragger's ack, and the drag ends.
    private mutating func endMove(_ id: MoveID, outcome: Outcome, movedOut: Int?) {
        guard let move = moves.outgoing.removeValue(forKey: id) else { return }
        let sameServer = if case .room = move.target { true } else { false }
        dropOnOtherBoardEnded(move.drop, outcome: outcome, movedOut: movedOut, sameServer: sameServer)
    }

    /// The insert half of a move, for the destination.
    private func movedIn(_ drop: CrossBoardDrop, _ insert: BoardOperation.Insert) -> MovedIn {
        MovedIn(
            insert: insert, opId: CrossBoardIdentity.movedIn(drop.drop.opId, from: info.id), clientId: drop.clientId,
            key: drop.drop.key)
    }

    /// Posts a move's event to a room of this server; `ifGone` comes back here if it has stopped.
    mutating func post(_ event: CrossBoardEvent.Event, to board: String, ifGone: CrossBoardEvent.Event? = nil) {
        actions.append(.crossBoard(.post(CrossBoardEvent(event), to: board, ifGone: ifGone.map(CrossBoardEvent.init))))
    }

    /// The move lets this room go: the events that waited for it are handled next, in order.
    mutating func letGo(_ id: MoveID) {
        released.append(contentsOf: hold.release(id))
    }
}
