import CorkboardModel
import CorkboardProtocol

/// Drops between two boards of one server (R6).
///
/// The drag lives in the source room, which holds the lease. A move first asks the destination
/// room to validate the insert, then sequences `moveOut` here, then asks the destination to insert
/// the same trees (ids kept). If that insert fails after all (the destination changed in between),
/// the trees are put back here with a sequenced insert, so no item is ever lost. A copy inserts
/// fresh ids derived from the operation in the destination only. Both rooms re-check their state
/// after every await.
extension Room {
    func hoverOtherBoard(
        _ update: ClientMessage.DropUpdate, drag: DragSession, role: Role, board: String
    ) {
        let key = drag.key
        let version = drag.hoverVersion
        let types = drag.items.compactMap { sequencer.board.item($0)?.types } + drag.external
        let copyRequested = update.copy ?? false
        let movable = role == .editor && !copyRequested && drag.external.isEmpty && !drag.items.isEmpty
        guard let room = registry.room(board) else {
            showHover(
                key, version: version, target: update.target,
                proposal: Proposal(
                    operation: .cancel, intent: update.target.intent, reason: "Board \(board) does not exist."),
                ref: update.ref)
            return
        }
        Task {
            var proposal = await room.foreignProposal(types: types, at: update.target.hover, key: update.key)
            if proposal.operation == .copy, movable { proposal.operation = .move }
            self.showHover(key, version: version, target: update.target, proposal: proposal, ref: update.ref)
            self.finishAsyncWork()
        }
    }

    func dropOnOtherBoard(_ drop: ClientMessage.Drop, key: SessionKey, member: Member, board: String) {
        guard let handle = memberOrder.first(where: { members[$0]?.member.id == member.id }) else { return }
        guard let room = registry.room(board) else {
            refuse(
                handle,
                ProtocolError(.unknownBoard, "Board \(board) does not exist.", field: "board", ref: drop.ref),
                now: clock.now())
            return
        }
        guard var drag = drags[key], !drag.dropping else {
            Task {
                // A resend after a reconnect: answer with the destination's first outcome, if any.
                let first = await room.rememberedOutcome(clientId: member.clientId, opId: drop.opId)
                if let first {
                    self.reply(
                        handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: first)))
                } else {
                    self.refuse(handle, self.unknownSession(drop.session, ref: drop.ref), now: self.clock.now())
                }
                self.finishAsyncWork()
            }
            return
        }
        guard !drag.items.isEmpty else {
            refuse(
                handle,
                ProtocolError(
                    .invalidField, "This drag carries only content from outside; drop it with submit on that board.",
                    field: "session", ref: drop.ref), now: clock.now())
            return
        }
        drag.dropping = true
        drags[key] = drag
        let trees = drag.items.compactMap { sequencer.board.item($0) }
        let copy = drop.copy == true || member.role == .viewer
        Task {
            let outcome: Outcome
            if copy {
                let insert = BoardOperation.Insert(
                    items: trees.map { NewItem(copying: $0) }, destination: drop.destination)
                outcome = await room.receiveForeign(
                    insert, opId: drop.opId, clientId: member.clientId, base: drop.base, key: drop.key)
            } else {
                outcome = await self.moveToOtherBoard(drop, key: key, clientId: member.clientId, room: room)
            }
            self.reply(handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: outcome)))
            self.endDrag(key, reason: .dropped)
            self.finishAsyncWork()
        }
    }

    private func moveToOtherBoard(_ drop: ClientMessage.Drop, key: SessionKey, clientId: String, room: Room) async
        -> Outcome
    {
        let trees = (drags[key]?.items ?? []).compactMap { sequencer.board.item($0) }
        let probe = BoardOperation.Insert(items: trees.map { NewItem($0) }, destination: drop.destination)
        if let rejection = await room.validateForeign(probe, opId: drop.opId, clientId: clientId, key: drop.key) {
            return .rejected(rejection)
        }
        // Back on this board after the await: the drag may have expired or its owner left.
        guard let drag = drags[key], drag.dropping else {
            return .rejected(Rejection(.gone, "The drag ended before the drop could apply; drag again."))
        }
        let out = ClientOperation(
            opId: "\(drop.opId)/out", clientId: clientId, base: sequencer.head,
            op: .moveOut(BoardOperation.Delete(items: drag.items, session: drag.leased ? key.leaseID : nil)))
        let taken = sequencer.submit(out, now: clock.now())
        guard case .committed(let committed) = taken else { return taken }
        recordCommit(committed, sender: nil)
        broadcast(.op(committed))
        flush()
        // The items must have left this board durably before they appear on the other one.
        if let error = await durability(of: committed.seq) { return .rejected(storeFailed(error)) }
        let insert = BoardOperation.Insert(
            items: committed.effect.removed.map { NewItem($0) }, destination: drop.destination)
        let placed = await room.receiveForeign(
            insert, opId: drop.opId, clientId: clientId, base: drop.base, key: drop.key)
        if case .rejected(let rejection) = placed {
            logger.warning(
                "putting items back after a failed drop on another board",
                metadata: ["opId": "\(drop.opId)", "reason": "\(rejection)"])
            putBack(committed, opId: drop.opId)
        }
        return placed
    }

    /// Re-inserts trees taken by `moveOut` where they stood (or in the first section if that is gone).
    private func putBack(_ committed: CommittedOperation, opId: String) {
        let now = clock.now()
        let origins = Dictionary(committed.effect.changes.compactMap { c in c.from.map { (c.item, $0) } }) { a, _ in a }
        let ordered = committed.effect.removed.sorted { (origins[$0.id]?.index ?? 0) < (origins[$1.id]?.index ?? 0) }
        for (number, tree) in ordered.enumerated() {
            var destination: Destination?
            if let from = origins[tree.id], sequencer.board.collection(of: from.section) == from.collection {
                destination = Destination(collection: from.collection, section: from.section, index: from.index)
            } else if let collection = sequencer.board.collectionIDs.first,
                let section = sequencer.board.sectionIDs(in: collection)?.first
            {
                destination = Destination(collection: collection, section: section, index: 0)
            }
            guard let destination else {
                logger.critical("no section left to put an item back into", metadata: ["item": "\(tree.id)"])
                continue
            }
            sequenceSystem(
                .insert(BoardOperation.Insert(items: [NewItem(tree)], destination: destination)),
                opId: "\(opId)/back/\(number)", now: now)
        }
    }

    /// Sends what async cross-board work produced and schedules the tick it may need.
    func finishAsyncWork() {
        flush()
        scheduleTickIfNeeded()
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

    /// Whether an insert from another board would apply here now.
    func validateForeign(_ insert: BoardOperation.Insert, opId: String, clientId: String, key: String?) -> Rejection? {
        guard keys.role(for: key) == .editor else { return cannotEdit }
        return sequencer.board.validate(insert, clientId: clientId, opId: opId)
    }

    /// Sequences an insert coming from another board, broadcasts it to every member here, and
    /// returns once it is durable.
    func receiveForeign(
        _ insert: BoardOperation.Insert, opId: String, clientId: String, base: Int, key: String?
    ) async -> Outcome {
        guard keys.role(for: key) == .editor else { return .rejected(cannotEdit) }
        let envelope = ClientOperation(
            opId: opId, clientId: clientId, base: min(base, sequencer.head), op: .insert(insert))
        let isResend = sequencer.outcome(clientId: clientId, opId: opId) != nil
        let outcome = sequencer.submit(envelope, now: clock.now())
        if !isResend, case .committed(let committed) = outcome {
            recordCommit(committed, sender: nil)
            broadcast(.op(committed))
        }
        finishAsyncWork()
        if case .committed(let committed) = outcome, let error = await durability(of: committed.seq) {
            return .rejected(storeFailed(error))
        }
        return outcome
    }

    /// The outcome this board remembers for an operation.
    func rememberedOutcome(clientId: String, opId: String) -> Outcome? {
        sequencer.outcome(clientId: clientId, opId: opId)
    }

    private var cannotEdit: Rejection {
        Rejection(.readOnly, "The key does not open \(info.title) for editing; ask for its edit link.", field: "key")
    }
}

extension NewItem {
    /// A copy of a tree with every id left to be derived from the copying operation (R6 copy).
    init(copying item: Item) {
        self.init(representations: item.representations, children: item.children.map { $0.map(NewItem.init(copying:)) })
    }
}
