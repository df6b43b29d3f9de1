// Deletes (and moves out to another board) and content updates of items (R12 versions).

extension Board {
    /// Removes items; with `trashAs` (a `delete`'s opId, not a `moveOut`) what it removes, less
    /// placeholders, goes to the Trash (R15).
    mutating func applyDelete(_ delete: BoardOperation.Delete, clientId: String, verb: String, trashAs opId: String?)
        throws(Rejection) -> Effect
    {
        let (slots, skipped) = try liveItems(delete.items, verb: verb)
        for slot in slots {
            if let placeholder = nodes[Int(slot)].placeholder, placeholder.owner != clientId,
                clientId != ClientIdentity.system
            {
                let id = nodes[Int(slot)].id
                throw Rejection(
                    .notOwner, "\(id) is a placeholder owned by \(placeholder.owner); only its owner can remove it.",
                    field: "items", item: id)
            }
        }
        let changes = slots.map { ItemChange(item: nodes[Int($0)].id, from: position(ofSlot: $0), to: nil) }
        // Items inside another removed item go with it.
        let roots = slots.filter { slot in !slots.contains { $0 != slot && isAncestorOrSelf($0, of: slot) } }
        let removed = roots.map(tree(of:))
        let trashed = opId.map { _ in
            runs(of: roots.map { nodes[Int($0)].id }).compactMap { run in
                let trees = Self.withoutPlaceholders(run.elements.compactMap(item))
                return trees.isEmpty ? nil : UndoRecipe.Run(origin: run.origin, elements: trees)
            }
        }
        for slot in roots {
            detach(slot)
            free(slot)
        }
        var effect = Effect(changes: changes, skipped: skipped, removed: removed)
        if let opId, let trashed, !trashed.isEmpty {
            let evicted = putInTrash(.cards(trashed), name: delete.name, at: delete.at, clientId: clientId, opId: opId)
            if !evicted.isEmpty { effect.evicted = evicted }
        }
        return effect
    }

    /// The slot of an item whose content or details an update changes: `gone` when it was deleted,
    /// `invalid` for a placeholder (its owner gives it content with `commitPlaceholder`).
    func updatableSlot(_ item: ItemID) throws(Rejection) -> Slot {
        guard let slot = itemSlots[item] else {
            throw Rejection(
                .gone, "\(item) was deleted before the change arrived; nothing changed.", field: "item", item: item)
        }
        guard nodes[Int(slot)].placeholder == nil else {
            throw Rejection(
                .invalid, "\(item) is a placeholder; its owner gives it content with commitPlaceholder.",
                field: "item", item: item)
        }
        return slot
    }

    mutating func applyUpdate(_ update: BoardOperation.UpdateItem) throws(Rejection) -> Effect {
        let slot = try updatableSlot(update.item)
        if let version = update.version, version != nodes[Int(slot)].version {
            // R12: made on a version the item has moved past; nobody's text is silently replaced.
            throw Rejection(
                .conflict,
                "\(quotedName(ofSlot: slot)) changed while you were editing it, so your change was not saved; "
                    + "your text is kept: look at the new version and save again.", field: "version",
                item: update.item)
        }
        let accepts = accepts(ofSection: rootSection(of: slot))
        let old = nodes[Int(slot)].representations
        let before = itemBytes(nodes[Int(slot)])
        nodes[Int(slot)].representations = update.representations
        guard matches(accepts, slot: slot) else {
            nodes[Int(slot)].representations = old
            throw Rejection(
                .forbidden,
                "The collection accepts only \(accepts.joined(separator: ", ")); keep a representation of one of "
                    + "those types.", field: "representations", item: update.item)
        }
        nodes[Int(slot)].version += 1
        contentBytes += itemBytes(nodes[Int(slot)]) - before
        return unmoved(slot)
    }

    /// The effect of a change to an item that stays where it is.
    func unmoved(_ slot: Slot) -> Effect {
        let position = position(ofSlot: slot)
        return Effect(changes: [ItemChange(item: nodes[Int(slot)].id, from: position, to: position)])
    }
}
