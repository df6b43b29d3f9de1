import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// Drops on a board another node of the cluster sequences (R6, R14), through `RemoteBoards`.
///
/// The source's side mirrors `Room+CrossBoard.swift`, with the destination room on another node:
/// holding this room's gate, the source sequences `moveOut`, asks the destination's node to
/// sequence the insert (`prepareMovedIn`, which holds that room's gate until the move is decided),
/// and stores both operations with the move's record in one transaction of its own store, each
/// part fenced by its own board's epoch. If the destination refuses or does not answer in time,
/// the `moveOut` is undone before anything of it was sent or stored.
///
/// Two moves in opposite directions (or any cycle of moves over several nodes) would each hold
/// their source's gate while waiting for the other's: a cross-node version of the board-id order
/// `Room+CrossBoard.swift` enters two local gates in. A destination that has a move of its own to
/// another node in progress answers `busy` to a move from a board whose id sorts after its own
/// (wait-die): every cycle has such an edge, so one move of it yields, undoes its `moveOut`, lets
/// its gate go and tries again a few milliseconds later, and the others go through.
extension Room {
    /// The answer of a destination room to a move from another node.
    enum PreparedMove {
        /// Nothing was sequenced: the insert's outcome says why.
        case refused(Outcome)
        /// The insert is sequenced and the room's gate stays held until `finishMovedIn`: the
        /// outcome, and this board's part of the source's transaction.
        case prepared(Outcome, BoardAppend)
        /// Nothing was sequenced: this room is moving items to another node itself and yields to
        /// the move from a board that sorts after it; the source tries again.
        case busy
    }

    // MARK: The source's side

    /// The move, all or nothing; returns the destination's outcome and, when the move committed,
    /// the seq of its `moveOut` here.
    func moveToRemoteBoard(_ step: CrossBoardDrop, remote: RemoteBoards) async -> (Outcome, Int?) {
        let deadline = ContinuousClock.now + remote.callTimeout
        var attempt = 0
        while true {
            attempt += 1
            state.outgoingRemoteMoves += 1
            let result = await attemptMoveToRemoteBoard(step, remote: remote)
            state.outgoingRemoteMoves -= 1
            guard let result else {
                // The destination yielded to a move of its own; back off a little, at random, and retry.
                guard ContinuousClock.now < deadline else {
                    return (
                        .rejected(
                            Rejection(
                                .gone, "Board \(step.board) was busy with moves of its own; nothing moved. Drop again.")
                        ),
                        nil
                    )
                }
                try? await Task.sleep(for: .milliseconds(Int.random(in: 2...10) * min(attempt, 8)))
                continue
            }
            return result
        }
    }

    /// One attempt at the move; `nil` when the destination answered `busy` (nothing happened).
    private func attemptMoveToRemoteBoard(_ step: CrossBoardDrop, remote: RemoteBoards) async -> (Outcome, Int?)? {
        await enterGate()
        let (committed, insert, before): (CommittedOperation, BoardOperation.Insert, Sequencer)
        switch state.takeOut(step, now: clock.now) {
        case .refused(let outcome):
            leaveGate()
            return (outcome, nil)
        case .taken(let out, let trees, let previous):
            (committed, insert, before) = (out, trees, previous)
        }
        let board = step.board
        let move = RandomToken.make(prefix: "mv-", bytes: 12)
        let (answer, node) = await remote.prepareMove(
            board: board, source: info.id, insert: insert,
            opId: CrossBoardIdentity.movedIn(step.drop.opId, from: info.id), clientId: step.clientId,
            key: step.drop.key, move: move)
        if case .busy? = answer {
            state.undoMoveOut(to: before)
            leaveGate()
            return nil
        }
        guard case .prepared(let placed, let epoch, let operations)? = answer, let node, state.relinquished == nil,
            let store
        else {
            // The exact inverse of the moveOut: nothing was sequenced here since (the gate is held),
            // and nothing of it was sent or stored.
            state.undoMoveOut(to: before)
            leaveGate()
            // A destination that prepared after all learns at once that nothing was written.
            if let node { Task { await remote.decided(move: move, committed: false, node: node) } }
            switch answer {
            case .outcome(let outcome)?: return (outcome, nil)
            case .unavailable(let reason)?: return (.rejected(Rejection(.gone, reason + " Nothing moved.")), nil)
            default:
                return (
                    .rejected(Rejection(.gone, "The server of \(board) did not answer in time; nothing moved.")), nil
                )
            }
        }
        var parts: [BoardAppend] = []
        if let write = state.announceMoveOut(committed) {
            var mine = append(write)
            mine.moveID = move
            parts.append(mine)
        }
        parts.append(
            BoardAppend(board: board, operations: operations, epoch: epoch) { error in
                Task { await remote.decided(move: move, committed: error == nil, node: node) }
            })
        store.append(atomically: parts)
        finishAsyncWork()
        leaveGate()
        // The ack goes out once the one transaction holding both halves committed.
        if let error = await durability(of: committed.seq) { return (.rejected(.storeFailed(error)), nil) }
        return (placed, committed.seq)
    }

    // MARK: The destination's side

    /// Sequences the insert half of a move from a board of another node and keeps this room's gate
    /// until `finishMovedIn`, so nothing else is sequenced here before the move is decided.
    func prepareMovedIn(
        _ insert: BoardOperation.Insert, from source: String, opId: String, clientId: String, key: String?
    ) async -> PreparedMove {
        // The source's transaction writes this board's next seq: everything before it must be stored
        // first. That is waited for without the gate (the run loop, which takes the gate, handles the
        // store's answers), checking all along for a move of this room's own to another node: one
        // that started here may be waiting for the source's node, so this one yields (wait-die) when
        // this board's id sorts first.
        while true {
            if state.outgoingRemoteMoves > 0, info.id < source { return .busy }
            if state.relinquished != nil {
                return .refused(.rejected(Rejection(.gone, "Board \(info.id) moved to another server; try again.")))
            }
            if state.durability.isPending(state.sequencer.head) {
                try? await Task.sleep(for: .milliseconds(2))
                continue
            }
            // No suspension between the checks and taking (or queueing for) the gate.
            await enterGate()
            if state.relinquished == nil, !state.durability.isPending(state.sequencer.head) { break }
            leaveGate()
        }
        let (outcome, part) = commitMovedIn(insert, opId: opId, clientId: clientId, key: key)
        guard case .committed = outcome, let part else {
            finishAsyncWork()
            leaveGate()
            return .refused(outcome)
        }
        return .prepared(outcome, part)
    }

    /// Ends a move prepared by `prepareMovedIn`: its insert goes out (`committed`), is undone
    /// (`false`), or, when the outcome could not be learned, the room gives the board up so it is
    /// loaded again from the database.
    ///
    /// The outcome is applied before the gate is let go (not posted to the run loop): a move
    /// waiting for the gate must not sequence on top of an insert that is being undone.
    func finishMovedIn(_ part: BoardAppend, committed: Bool?) {
        let upTo = part.operations.last?.seq ?? state.sequencer.head
        switch committed {
        case true?:
            state.stored(upTo: upTo, error: nil)
            finishAsyncWork()
        case false?:
            state.stored(
                upTo: upTo, error: StoreError(.io, "The move from another server did not complete; nothing moved."))
            finishAsyncWork()
        case nil:
            state.relinquish(
                RoomHandoff(url: nil, reason: "this server could not learn how a move ended; reconnect and resume"))
            perform(state.takeActions())
        }
        leaveGate()
    }
}
