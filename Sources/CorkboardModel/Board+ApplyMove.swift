// Moves and copies of items (R2, R3, R5, R6, R7).

extension Board {
    mutating func applyMove(_ move: BoardOperation.Move) throws(Rejection) -> Effect {
        if move.items.count == 1, move.destination.intent != .insertIntoDestinationIndexPath,
            let slot = itemSlots[move.items[0]]
        {
            return try applySingleMove(slot, move.destination)
        }
        let (slots, skipped) = try liveItems(move.items, verb: "move")
        let (resolved, accepts) = try resolve(move.destination)
        for slot in slots {
            try rejectIfPlaceholder(slot, verb: "dragged")
            try rejectIfNotAccepted(accepts, slot: slot)
        }
        if case .into(let target) = resolved {
            for slot in slots where isAncestorOrSelf(slot, of: target) {
                let id = nodes[Int(slot)].id
                throw Rejection(
                    .cycle,
                    "Dropping \(id) into \(nodes[Int(target)].id) would put it inside itself; drop it elsewhere.",
                    field: "destination.target", item: id)
            }
        }
        var changes: [ItemChange] = []
        changes.reserveCapacity(slots.count)
        for slot in slots {
            changes.append(ItemChange(item: nodes[Int(slot)].id, from: position(ofSlot: slot), to: nil))
        }
        for slot in slots { detach(slot) }
        let positions = link(slots, at: resolved, destination: move.destination, moving: slots)
        for index in changes.indices { changes[index].to = positions[index] }
        return Effect(changes: changes, skipped: skipped)
    }

    /// Rejects `forbidden` when `slot` is a placeholder (R8: nobody drags or copies one).
    private func rejectIfPlaceholder(_ slot: Slot, verb: String) throws(Rejection) {
        guard nodes[Int(slot)].placeholder != nil else { return }
        let id = nodes[Int(slot)].id
        throw Rejection(
            .forbidden, "\(id) is a placeholder and cannot be \(verb); wait for its owner to commit it.",
            field: "items", item: id)
    }

    /// The common drop: one live item into a section. Same rules as the general path, no
    /// intermediate arrays, one scan to find the item and one to place it.
    private mutating func applySingleMove(_ slot: Slot, _ destination: Destination) throws(Rejection) -> Effect {
        let (resolved, accepts) = try resolve(destination)
        guard case .section(let section, let collectionID, let sectionID) = resolved else { preconditionFailure() }
        try rejectIfPlaceholder(slot, verb: "dragged")
        try rejectIfNotAccepted(accepts, slot: slot)
        let from = position(ofSlot: slot)
        if case .section(let old) = nodes[Int(slot)].parent {
            sectionNodes[Int(old)].items.remove(at: from.index)
        } else {
            detach(slot)
        }
        let index = anchoredIndex(destination, section: section, isMoving: { $0 == slot })
        sectionNodes[Int(section)].items.insert(slot, at: index)
        nodes[Int(slot)].parent = .section(section)
        let to = Position(collection: collectionID, section: sectionID, index: index)
        return Effect(changes: [ItemChange(item: nodes[Int(slot)].id, from: from, to: to)])
    }

    mutating func applyCopy(_ copy: BoardOperation.Copy, clientId: String, opId: String) throws(Rejection) -> Effect {
        let (slots, skipped) = try liveItems(copy.items, verb: "copy")
        let (resolved, accepts) = try resolve(copy.destination)
        for slot in slots {
            try rejectIfPlaceholder(slot, verb: "copied")
            try rejectIfNotAccepted(accepts, slot: slot)
        }
        var n = 0
        func clone(_ slot: Slot) -> NewItem {
            let node = nodes[Int(slot)]
            let id = Board.derivedID(clientId: clientId, opId: opId, n: n)
            n += 1
            return NewItem(
                id: id, representations: node.representations, children: node.children?.map(clone),
                details: cardDetails[slot])
        }
        let trees = slots.map(clone)
        try checkNewIDs(trees)
        return insertNew(trees, resolved: resolved, destination: copy.destination, skipped: skipped)
    }
}
