import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// Drops between two boards (R6), all or nothing (R14): what the actor awaits for its state.
///
/// The state decides (`RoomState+CrossBoard.swift`); the actor asks the other board, a room of
/// this server or a node of the cluster (`Room+RemoteBoard.swift`), and hands the answer back to
/// its state as an event (`RoomEvent.crossBoard`). Only a move's commit calls the state between
/// awaits, while it holds the gates that keep anything else from being sequenced meanwhile. A move between two rooms of this server holds both rooms' gates (entered in board-id
/// order), so nothing is sequenced on either board while it commits: the source sequences
/// `moveOut`, the destination sequences the insert of the same trees (ids kept), and both
/// operations go to the store as one atomic append. If the destination refuses, the source returns
/// to the sequencer it had before `moveOut`, which is the exact inverse of what was done since
/// nothing else was sequenced, sent or stored in between. The gates are released before waiting
/// for the store, and the dragger's ack is sent once the transaction committed: it names the
/// destination's outcome, which is where the items are.
extension Room {
    /// Starts what the state asked of another board; its answer goes back to the state as an
    /// event (`answer(_:)`).
    func start(_ step: CrossBoardStep) {
        switch step {
        case .hover(let update, let foreign, let other):
            Task {
                let proposal: Proposal
                switch other {
                case .local(let room):
                    proposal = await room.foreignProposal(
                        types: foreign.types, at: update.target.hover, key: update.key)
                case .remote(let remote):
                    proposal = await remote.proposal(
                        board: foreign.board, types: foreign.types, hover: update.target.hover, key: update.key)
                case .unknown:
                    return
                }
                await self.answer(CrossBoardAnswer(.proposal(proposal, update, foreign)))
            }
        case .recall(let drop, let handle, let clientId, let board, let other):
            Task {
                let opId = CrossBoardIdentity.movedIn(drop.opId, from: self.info.id)
                let recall: Sequencer.Recall?
                switch other {
                case .local(let room):
                    recall = await room.recallMovedIn(opId, clientId: clientId, destination: drop.destination)
                case .remote(let remote):
                    recall = await remote.recall(
                        board: board, opId: opId, clientId: clientId, destination: drop.destination)
                case .unknown:
                    return
                }
                await self.answer(CrossBoardAnswer(.recalled(recall, drop, handle, board: board)))
            }
        case .drop(let step, let other):
            Task {
                let (outcome, movedOut): (Outcome, Int?)
                switch other {
                case .local(let room):
                    (outcome, movedOut) =
                        step.copy ? (await self.copy(step, to: room), nil) : await self.move(step, to: room)
                case .remote(let remote):
                    (outcome, movedOut) =
                        step.copy
                        ? (await self.copy(step, to: remote), nil) : await self.moveToRemoteBoard(step, remote: remote)
                case .unknown:
                    return
                }
                let sameServer = if case .local = other { true } else { false }
                await self.answer(
                    CrossBoardAnswer(.dropEnded(step, outcome, movedOut: movedOut, sameServer: sameServer)))
            }
        }
    }

    /// Hands another board's answer to the state, as the event of a batch of its own, under this
    /// room's gate (a move between boards may hold the room).
    private func answer(_ answer: CrossBoardAnswer) async {
        await enterGate()
        perform(state.handle([.crossBoard(answer)], now: clock.now, busy: timers.isBusy))
        leaveGate()
    }

    /// Inserts copies of the dragged trees on the other board; this board does not change.
    private func copy(_ step: CrossBoardDrop, to room: Room) async -> Outcome {
        await room.insertCopies(
            state.copies(for: step), opId: CrossBoardIdentity.movedIn(step.drop.opId, from: info.id),
            clientId: step.clientId, key: step.drop.key)
    }

    /// Inserts copies of the dragged trees on a board of another node.
    private func copy(_ step: CrossBoardDrop, to remote: RemoteBoards) async -> Outcome {
        await remote.copy(
            board: step.board, insert: state.copies(for: step),
            opId: CrossBoardIdentity.movedIn(step.drop.opId, from: info.id), clientId: step.clientId,
            key: step.drop.key)
    }

    /// Moves the dragged items to the other board, all or nothing; returns the destination's
    /// outcome and, when the move committed, the seq of its `moveOut` here.
    private func move(_ step: CrossBoardDrop, to room: Room) async -> (Outcome, Int?) {
        if info.id < room.info.id {
            await enterGate()
            await room.enterGate()
        } else {
            await room.enterGate()
            await enterGate()
        }
        let (outcome, movedOut) = await moveHoldingBothGates(step, to: room)
        await room.leaveGate()
        leaveGate()
        guard let movedOut else { return (outcome, nil) }
        // The ack goes out once the one transaction holding both halves committed.
        if let error = await durability(of: movedOut) { return (.rejected(.storeFailed(error)), nil) }
        return (outcome, movedOut)
    }

    /// The move itself, with both rooms' gates held: nothing else is sequenced on either board.
    private func moveHoldingBothGates(_ step: CrossBoardDrop, to room: Room) async -> (Outcome, Int?) {
        let (committed, insert, before): (CommittedOperation, BoardOperation.Insert, Sequencer)
        switch state.takeOut(step, now: clock.now) {
        case .refused(let outcome): return (outcome, nil)
        case .taken(let out, let trees, let previous): (committed, insert, before) = (out, trees, previous)
        }
        let (placed, theirs) = await room.commitMovedIn(
            insert, opId: CrossBoardIdentity.movedIn(step.drop.opId, from: info.id), clientId: step.clientId,
            key: step.drop.key)
        guard case .committed = placed else {
            state.undoMoveOut(to: before)
            return (placed, nil)
        }
        let mine = state.announceMoveOut(committed).map(append)
        perform(state.takeActions())
        let parts = [mine, theirs].compactMap { $0 }
        if !parts.isEmpty, let store = store ?? room.store { store.append(atomically: parts) }
        return (placed, committed.seq)
    }

    // MARK: The destination's side

    /// The proposal for content from another board hovering here.
    func foreignProposal(types: [[String]], at hover: HoverTarget, key: String?) -> Proposal {
        state.foreignProposal(types: types, at: hover, key: key)
    }

    /// Sequences the insert half of a move from another board; the caller holds this room's gate
    /// and queues the returned part with its own `moveOut` as one atomic append.
    ///
    /// - Returns: the outcome, and this board's part of the append (`nil` without a store, or when
    ///   the insert was refused: then nothing changed here).
    func commitMovedIn(_ insert: BoardOperation.Insert, opId: String, clientId: String, key: String?)
        -> (Outcome, BoardAppend?)
    {
        let (outcome, part) = state.commitMovedIn(insert, opId: opId, clientId: clientId, key: key, now: clock.now)
        perform(state.takeActions())
        return (outcome, part.map(append))
    }

    /// Sequences copies coming from another board and returns once they are durable.
    func insertCopies(_ insert: BoardOperation.Insert, opId: String, clientId: String, key: String?) async -> Outcome {
        await enterGate()
        let outcome = state.insertCopies(insert, opId: opId, clientId: clientId, key: key, now: clock.now)
        finishAsyncWork()
        leaveGate()
        if case .committed(let committed) = outcome, let error = await durability(of: committed.seq) {
            return .rejected(.storeFailed(error))
        }
        return outcome
    }

    /// What this board remembers of the insert half of a drop from another board, matched by its
    /// destination (a resent drop no longer carries its items). An insert not yet durable (a move
    /// from another node still being decided, a transaction in flight) is answered once it is: if
    /// it is undone instead, the drop did not happen.
    func recallMovedIn(_ opId: String, clientId: String, destination: Destination) async -> Sequencer.Recall {
        while true {
            let recall = state.recallMovedIn(opId, clientId: clientId, destination: destination)
            guard case .resend(let first) = recall, let seq = first.committed?.seq, state.durability.isPending(seq)
            else { return recall }
            // Stored, or undone (then forgotten, and asked again); a room that gave its board up
            // forgets everything pending, and its members are sent to the board's new node.
            if await durability(of: seq) != nil, state.relinquished != nil { return .fresh }
        }
    }
}
