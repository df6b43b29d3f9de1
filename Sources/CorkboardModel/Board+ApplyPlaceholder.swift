// Placeholders: inserted for everyone, committed or deleted by their owner only (R8).

extension Board {
    mutating func applyInsertPlaceholder(
        _ insert: BoardOperation.InsertPlaceholder, clientId: String, opId: String
    ) throws(Rejection) -> Effect {
        guard insert.destination.intent != .insertIntoDestinationIndexPath else {
            throw Rejection(
                .invalid,
                "A placeholder stands at an index path, not inside an item; use insertAtDestinationIndexPath.",
                field: "destination.intent")
        }
        let (resolved, _) = try resolve(insert.destination)
        let id = Board.derivedID(clientId: clientId, opId: opId, n: 0)
        guard itemSlots[id] == nil else {
            throw Rejection(
                .duplicateID, "Item id \(id) is already in use; send the placeholder with a new opId.", item: id)
        }
        let slot = allocate(
            Node(
                id: id, representations: insert.representations, children: nil,
                placeholder: PlaceholderInfo(owner: clientId, createdAt: insert.createdAt), parent: .group(0)))
        let positions = link([slot], at: resolved, destination: insert.destination, moving: [slot])
        return Effect(changes: [ItemChange(item: id, from: nil, to: positions[0])])
    }

    private func placeholderSlot(_ item: ItemID, verb: String) throws(Rejection) -> Slot {
        guard let slot = itemSlots[item] else {
            throw Rejection(
                .gone, "Placeholder \(item) no longer exists (it was deleted); insert the item again.",
                field: "item", item: item)
        }
        guard nodes[Int(slot)].placeholder != nil else {
            throw Rejection(
                .invalid, "\(item) is not a placeholder, so it cannot be \(verb); use updateItem or delete instead.",
                field: "item", item: item)
        }
        return slot
    }

    mutating func applyCommitPlaceholder(_ commit: BoardOperation.CommitPlaceholder, clientId: String) throws(Rejection)
        -> Effect
    {
        let slot = try placeholderSlot(commit.item, verb: "committed")
        let owner = nodes[Int(slot)].placeholder!.owner
        guard owner == clientId else {
            throw Rejection(
                .notOwner, "Placeholder \(commit.item) belongs to \(owner); only its owner can commit it.",
                field: "item", item: commit.item)
        }
        let accepts = accepts(ofSection: rootSection(of: slot))
        guard TypeMatching.accepts(accepts, types: commit.representations.map(\.type)) else {
            throw Rejection(
                .forbidden,
                "The collection accepts only \(accepts.joined(separator: ", ")); commit representations of those "
                    + "types, or delete the placeholder.", field: "representations", item: commit.item)
        }
        let before = itemBytes(nodes[Int(slot)])
        nodes[Int(slot)].representations = commit.representations
        nodes[Int(slot)].placeholder = nil
        nodes[Int(slot)].version += 1
        placeholderCount -= 1
        contentBytes += itemBytes(nodes[Int(slot)]) - before
        return unmoved(slot)
    }

    mutating func applyDeletePlaceholder(_ delete: BoardOperation.DeletePlaceholder, clientId: String) throws(Rejection)
        -> Effect
    {
        let slot = try placeholderSlot(delete.item, verb: "deleted as a placeholder")
        let owner = nodes[Int(slot)].placeholder!.owner
        guard owner == clientId || clientId == ClientIdentity.system else {
            throw Rejection(
                .notOwner, "Placeholder \(delete.item) belongs to \(owner); only its owner can delete it.",
                field: "item", item: delete.item)
        }
        let position = position(ofSlot: slot)
        detach(slot)
        free(slot)
        return Effect(changes: [ItemChange(item: delete.item, from: position, to: nil)])
    }
}
