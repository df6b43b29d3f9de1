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

    /// A hover over a board of another node: that node's room proposes.
    func hoverRemoteBoard(_ update: ClientMessage.DropUpdate, _ foreign: Drags.ForeignHover, remote: RemoteBoards) {
        Task {
            var proposal = await remote.proposal(
                board: foreign.board, types: foreign.types, hover: update.target.hover, key: update.key)
            if proposal.operation == .copy, foreign.movable { proposal.operation = .move }
            self.drags.show(
                foreign.key, version: foreign.version, target: update.target, proposal: proposal, ref: update.ref,
                outbox: &self.outbox)
            self.finishAsyncWork()
        }
    }

    /// A drop on a board of another node: a move, a copy, or the answer to a resent drop.
    func dropOnRemoteBoard(
        _ drop: ClientMessage.Drop, from handle: ConnectionHandle, member: Member, board: String, remote: RemoteBoards
    ) throws(ProtocolError) {
        let key = SessionKey(member: member.id, session: drop.session)
        guard let drag = drags[key], !drag.dropping else {
            Task {
                let recall = await remote.recall(
                    board: board, opId: CrossBoardIdentity.movedIn(drop.opId, from: info.id), clientId: member.clientId,
                    destination: drop.destination)
                switch recall {
                case .resend(let first):
                    outbox.reply(
                        handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: first)))
                case .conflict(let rejection):
                    outbox.reply(
                        handle,
                        .ack(
                            ServerMessage.Ack(
                                ref: drop.ref, opId: drop.opId, board: board, outcome: .rejected(rejection))))
                case .fresh:
                    refuse(handle, Drags.unknownSession(drop.session, ref: drop.ref), now: clock.now)
                case nil:
                    refuse(
                        handle,
                        ProtocolError(
                            .internalError,
                            "The server of \(board) could not be reached to tell how this drop ended; "
                                + "resend it in a moment.", ref: drop.ref),
                        now: clock.now)
                }
                finishAsyncWork()
            }
            return
        }
        guard !drag.items.isEmpty else {
            throw ProtocolError(
                .invalidField, "This drag carries only content from outside; drop it with submit on that board.",
                field: "session", ref: drop.ref)
        }
        _ = drags.beginDropping(key)
        let copy = drop.copy == true || member.role == .viewer
        Task {
            let (outcome, movedOut) =
                copy
                ? (
                    await self.copyToRemoteBoard(
                        drop, key: key, clientId: member.clientId, board: board, remote: remote),
                    nil
                )
                : await self.moveToRemoteBoard(
                    drop, key: key, clientId: member.clientId, board: board, remote: remote)
            self.outbox.reply(
                handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: outcome)))
            self.drags.end(
                key, reason: .dropped, seq: movedOut, leases: &self.leases.drags, members: &self.members,
                outbox: &self.outbox)
            self.finishAsyncWork()
        }
    }

    private func copyToRemoteBoard(
        _ drop: ClientMessage.Drop, key: SessionKey, clientId: String, board: String, remote: RemoteBoards
    ) async -> Outcome {
        let trees = (drags[key]?.items ?? []).compactMap { sequencer.board.item($0) }
        let insert = BoardOperation.Insert(items: trees.map { NewItem(copying: $0) }, destination: drop.destination)
        return await remote.copy(
            board: board, insert: insert, opId: CrossBoardIdentity.movedIn(drop.opId, from: info.id),
            clientId: clientId, key: drop.key)
    }

    /// The move, all or nothing; returns the destination's outcome and, when the move committed,
    /// the seq of its `moveOut` here.
    private func moveToRemoteBoard(
        _ drop: ClientMessage.Drop, key: SessionKey, clientId: String, board: String, remote: RemoteBoards
    ) async -> (Outcome, Int?) {
        let deadline = ContinuousClock.now + remote.callTimeout
        var attempt = 0
        while true {
            attempt += 1
            outgoingRemoteMoves += 1
            let result = await attemptMoveToRemoteBoard(
                drop, key: key, clientId: clientId, board: board, remote: remote)
            outgoingRemoteMoves -= 1
            guard let result else {
                // The destination yielded to a move of its own; back off a little, at random, and retry.
                guard ContinuousClock.now < deadline else {
                    return (
                        .rejected(
                            Rejection(
                                .gone, "Board \(board) was busy with moves of its own; nothing moved. Drop again.")),
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
    private func attemptMoveToRemoteBoard(
        _ drop: ClientMessage.Drop, key: SessionKey, clientId: String, board: String, remote: RemoteBoards
    ) async -> (Outcome, Int?)? {
        await enterGate()
        guard relinquished == nil, let drag = drags[key], drag.dropping else {
            leaveGate()
            return (.rejected(Rejection(.gone, "The drag ended before the drop could apply; drag again.")), nil)
        }
        let out = ClientOperation(
            opId: CrossBoardIdentity.movedOut(drop.opId, to: board), clientId: clientId, base: sequencer.head,
            op: .moveOut(BoardOperation.Delete(items: drag.items, session: drag.leased ? key.leaseID : nil)))
        let before = sequencer
        let taken = sequencer.submit(out, now: clock.now.secondsSince1970, leases: leases)
        guard case .committed(let committed) = taken else {
            leaveGate()
            return (taken, nil)
        }
        let move = RandomToken.make(prefix: "mv-", bytes: 12)
        let insert = BoardOperation.Insert(
            items: committed.effect.removed.map { NewItem($0) }, destination: drop.destination)
        let (answer, node) = await remote.prepareMove(
            board: board, source: info.id, insert: insert, opId: CrossBoardIdentity.movedIn(drop.opId, from: info.id),
            clientId: clientId, key: drop.key, move: move)
        if case .busy? = answer {
            sequencer = before
            leaveGate()
            return nil
        }
        guard case .prepared(let placed, let epoch, let operations)? = answer, let node, relinquished == nil,
            let store
        else {
            // The exact inverse of the moveOut: nothing was sequenced here since (the gate is held),
            // and nothing of it was sent or stored.
            sequencer = before
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
        durability.record(committed, sender: nil)
        members.broadcast(.op(committed), into: &outbox)
        var parts: [BoardAppend] = []
        if var mine = endBatch() {
            mine.moveID = move
            parts.append(mine)
        }
        parts.append(
            BoardAppend(board: board, operations: operations, epoch: epoch) { error in
                Task { await remote.decided(move: move, committed: error == nil, node: node) }
            })
        store.append(atomically: parts)
        scheduleTimers(now: clock.now)
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
            if outgoingRemoteMoves > 0, info.id < source { return .busy }
            if relinquished != nil {
                return .refused(.rejected(Rejection(.gone, "Board \(info.id) moved to another server; try again.")))
            }
            if durability.isPending(sequencer.head) {
                try? await Task.sleep(for: .milliseconds(2))
                continue
            }
            // No suspension between the checks and taking (or queueing for) the gate.
            await enterGate()
            if relinquished == nil, !durability.isPending(sequencer.head) { break }
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
        let upTo = part.operations.last?.seq ?? sequencer.head
        switch committed {
        case true?:
            stored(upTo: upTo, error: nil)
            finishAsyncWork()
        case false?:
            stored(
                upTo: upTo, error: StoreError(.io, "The move from another server did not complete; nothing moved."))
            finishAsyncWork()
        case nil:
            relinquish(
                RoomHandoff(url: nil, reason: "this server could not learn how a move ended; reconnect and resume"))
        }
        leaveGate()
    }
}
