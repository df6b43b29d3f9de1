import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// Drops between two boards of one server (R6), all or nothing (R14).
///
/// The drag lives in the source room, which holds the lease. A move holds both rooms' gates
/// (entered in board-id order), so nothing is sequenced on either board while it commits: the
/// source sequences `moveOut`, the destination sequences the insert of the same trees (ids kept),
/// and both operations go to the store as one atomic append. If the destination refuses, the
/// source returns to the sequencer it had before `moveOut`, which is the exact inverse of what was
/// done since nothing else was sequenced, sent or stored in between. The gates are released before
/// waiting for the store, and the dragger's ack is sent once the transaction committed: it names
/// the destination's outcome, which is where the items are.
///
/// Each half has its own identity, derived from the drop's opId with the character clients may
/// not use (`ProtocolLimits.reservedOpIdCharacter`), so no other operation can be mistaken for it
/// and a resend is answered only from the half of the same drop.
extension Room {
    /// A hover over another board: that board's room proposes (asked with `await`), and the
    /// answer is shown unless a newer hover came first.
    func hoverOtherBoard(_ update: ClientMessage.DropUpdate, _ foreign: Drags.ForeignHover) {
        guard let room = registry.open(foreign.board) else {
            if let remote = registry.remote, remote.isKnown(foreign.board) {
                hoverRemoteBoard(update, foreign, remote: remote)
                return
            }
            drags.show(
                foreign.key, version: foreign.version, target: update.target,
                proposal: Proposal(
                    operation: .cancel, intent: update.target.intent, reason: "Board \(foreign.board) does not exist."),
                ref: update.ref, outbox: &outbox)
            return
        }
        Task {
            var proposal = await room.foreignProposal(types: foreign.types, at: update.target.hover, key: update.key)
            if proposal.operation == .copy, foreign.movable { proposal.operation = .move }
            self.drags.show(
                foreign.key, version: foreign.version, target: update.target, proposal: proposal, ref: update.ref,
                outbox: &self.outbox)
            self.finishAsyncWork()
        }
    }

    func dropOnOtherBoard(_ drop: ClientMessage.Drop, from handle: ConnectionHandle, member: Member, board: String)
        throws(ProtocolError)
    {
        guard let room = registry.open(board) else {
            if let remote = registry.remote, remote.isKnown(board) {
                try dropOnRemoteBoard(drop, from: handle, member: member, board: board, remote: remote)
                return
            }
            throw ProtocolError(.unknownBoard, "Board \(board) does not exist.", field: "board", ref: drop.ref)
        }
        let key = SessionKey(member: member.id, session: drop.session)
        guard let drag = drags[key], !drag.dropping else {
            Task {
                await self.answerResentDrop(drop, clientId: member.clientId, to: handle, room: room)
                self.finishAsyncWork()
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
                ? (await self.copyToOtherBoard(drop, key: key, clientId: member.clientId, room: room), nil)
                : await self.moveToOtherBoard(drop, key: key, clientId: member.clientId, room: room)
            if case .rejected(let rejection) = outcome { self.configuration.metrics.countRejected(rejection.code) }
            self.outbox.reply(
                handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: outcome)))
            if outcome.committed != nil {
                // R13: the dragger's Undo here does not reach the other board; it says so.
                self.recordOtherBoardDrop(
                    clientId: member.clientId, seq: movedOut ?? self.sequencer.head, copy: copy, on: handle)
            }
            self.drags.end(
                key, reason: .dropped, seq: movedOut, leases: &self.leases.drags, members: &self.members,
                outbox: &self.outbox)
            self.finishAsyncWork()
        }
    }

    /// Inserts copies of the dragged trees on the other board; this board does not change.
    private func copyToOtherBoard(_ drop: ClientMessage.Drop, key: SessionKey, clientId: String, room: Room) async
        -> Outcome
    {
        let trees = (drags[key]?.items ?? []).compactMap { sequencer.board.item($0) }
        let insert = BoardOperation.Insert(items: trees.map { NewItem(copying: $0) }, destination: drop.destination)
        return await room.insertCopies(
            insert, opId: CrossBoardIdentity.movedIn(drop.opId, from: info.id), clientId: clientId, key: drop.key)
    }

    /// Moves the dragged items to the other board, all or nothing; returns the destination's
    /// outcome and, when the move committed, the seq of its `moveOut` here.
    private func moveToOtherBoard(_ drop: ClientMessage.Drop, key: SessionKey, clientId: String, room: Room) async
        -> (Outcome, Int?)
    {
        if info.id < room.info.id {
            await enterGate()
            await room.enterGate()
        } else {
            await room.enterGate()
            await enterGate()
        }
        let (outcome, movedOut) = await moveHoldingBothGates(drop, key: key, clientId: clientId, room: room)
        await room.leaveGate()
        leaveGate()
        guard let movedOut else { return (outcome, nil) }
        // The ack goes out once the one transaction holding both halves committed.
        if let error = await durability(of: movedOut) { return (.rejected(.storeFailed(error)), nil) }
        return (outcome, movedOut)
    }

    /// The move itself, with both rooms' gates held: nothing else is sequenced on either board.
    private func moveHoldingBothGates(
        _ drop: ClientMessage.Drop, key: SessionKey, clientId: String, room: Room
    ) async -> (Outcome, Int?) {
        // The drag may have ended (its owner left) before the gates were free.
        guard let drag = drags[key], drag.dropping else {
            return (.rejected(Rejection(.gone, "The drag ended before the drop could apply; drag again.")), nil)
        }
        let out = ClientOperation(
            opId: CrossBoardIdentity.movedOut(drop.opId, to: room.info.id), clientId: clientId, base: sequencer.head,
            op: .moveOut(BoardOperation.Delete(items: drag.items, session: drag.leased ? key.leaseID : nil)))
        let before = sequencer
        let taken = sequencer.submit(out, now: clock.now.secondsSince1970, leases: leases)
        guard case .committed(let committed) = taken else { return (taken, nil) }
        let insert = BoardOperation.Insert(
            items: committed.effect.removed.map { NewItem($0) }, destination: drop.destination)
        let (placed, theirs) = await room.commitMovedIn(
            insert, opId: CrossBoardIdentity.movedIn(drop.opId, from: info.id), clientId: clientId, key: drop.key)
        guard case .committed = placed else {
            // The exact inverse of the moveOut: nothing was sequenced here since (this room's gate is
            // held), and nothing of it was sent or stored.
            sequencer = before
            return (placed, nil)
        }
        durability.record(committed, sender: nil)
        members.broadcast(.op(committed), into: &outbox)
        let parts = [endBatch(), theirs].compactMap { $0 }
        if !parts.isEmpty, let store = store ?? room.store { store.append(atomically: parts) }
        return (placed, committed.seq)
    }

    /// Answers a drop resent after a reconnect (its drag ended with the old connection) from the
    /// destination's half of the same drop, if it happened.
    private func answerResentDrop(_ drop: ClientMessage.Drop, clientId: String, to handle: ConnectionHandle, room: Room)
        async
    {
        let recall = await room.recallMovedIn(
            CrossBoardIdentity.movedIn(drop.opId, from: info.id), clientId: clientId, destination: drop.destination)
        let board = room.info.id
        switch recall {
        case .resend(let first):
            outbox.reply(handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: first)))
        case .conflict(let rejection):
            outbox.reply(
                handle,
                .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: .rejected(rejection))))
        case .fresh:
            refuse(handle, Drags.unknownSession(drop.session, ref: drop.ref), now: clock.now)
        }
    }

    /// Sends what async cross-board work produced and asks for the alarms it may need.
    func finishAsyncWork() {
        flush()
        scheduleTimers(now: clock.now)
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
    /// and queues the returned part with its own `moveOut` as one atomic append.
    ///
    /// - Returns: the outcome, and this board's part of the append (`nil` without a store, or when
    ///   the insert was refused: then nothing changed here).
    func commitMovedIn(_ insert: BoardOperation.Insert, opId: String, clientId: String, key: String?)
        -> (Outcome, BoardAppend?)
    {
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
        let outcome = sequencer.submit(envelope, now: clock.now.secondsSince1970, leases: leases)
        guard case .committed(let committed) = outcome else { return (outcome, nil) }
        durability.record(committed, sender: nil)
        members.broadcast(.op(committed), into: &outbox)
        let part = endBatch()
        scheduleTimers(now: clock.now)
        return (outcome, part)
    }

    /// Sequences copies coming from another board and returns once they are durable.
    func insertCopies(_ insert: BoardOperation.Insert, opId: String, clientId: String, key: String?) async -> Outcome {
        guard keys.role(for: key) == .editor else { return .rejected(cannotEdit) }
        await enterGate()
        let envelope = ClientOperation(opId: opId, clientId: clientId, base: sequencer.head, op: .insert(insert))
        let fresh = if case .fresh = sequencer.recall(envelope) { true } else { false }
        let outcome = sequencer.submit(envelope, now: clock.now.secondsSince1970, leases: leases)
        if fresh, case .committed(let committed) = outcome {
            durability.record(committed, sender: nil)
            members.broadcast(.op(committed), into: &outbox)
        }
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
            let recall = sequencer.recall(clientId: clientId, opId: opId) { op in
                if case .insert(let insert) = op { return insert.destination == destination }
                return false
            }
            guard case .resend(let first) = recall, let seq = first.committed?.seq, durability.isPending(seq) else {
                return recall
            }
            // Stored, or undone (then forgotten, and asked again); a room that gave its board up
            // forgets everything pending, and its members are sent to the board's new node.
            if await durability(of: seq) != nil, relinquished != nil { return .fresh }
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
