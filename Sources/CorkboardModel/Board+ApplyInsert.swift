// Inserts of new items, with ids derived from the operation (R6) or kept across boards (R14).

extension Board {
    mutating func applyInsert(_ insert: BoardOperation.Insert, clientId: String, opId: String) throws(Rejection)
        -> Effect
    {
        let (trees, resolved) = try prepareInsert(insert, clientId: clientId, opId: opId)
        adoptLabels(insert.labels)
        return insertNew(trees, resolved: resolved, destination: insert.destination, skipped: [])
    }

    /// Checks whether an insert would apply, without changing the board.
    ///
    /// For moving items between two boards (R6), the room checks the insert on the destination
    /// board, then takes the items off the source board (`moveOut`), then inserts them; if the
    /// destination changed in between and the insert is rejected, it puts them back with an insert
    /// at their `from` positions.
    ///
    /// - Returns: The rejection the insert would get, or `nil` if it would apply.
    /// - Complexity: O(size of the new trees) plus one destination lookup.
    public func validate(_ insert: BoardOperation.Insert, clientId: String, opId: String) -> Rejection? {
        do {
            _ = try prepareInsert(insert, clientId: clientId, opId: opId)
            return nil
        } catch {
            return error
        }
    }

    /// Validates an insert and gives every new item its id.
    private func prepareInsert(_ insert: BoardOperation.Insert, clientId: String, opId: String) throws(Rejection)
        -> ([NewItem], ResolvedDestination)
    {
        guard !insert.items.isEmpty else {
            throw Rejection(.invalid, "The insert names no items; send at least one.", field: "items")
        }
        let (resolved, accepts) = try resolve(insert.destination)
        var n = 0
        func identify(_ new: NewItem) -> NewItem {
            var result = new
            result.id = new.id ?? Board.derivedID(clientId: clientId, opId: opId, n: n)
            n += 1
            result.children = new.children?.map(identify)
            return result
        }
        let trees = insert.items.map(identify)
        if !accepts.isEmpty {
            func matches(_ item: NewItem) -> Bool {
                TypeMatching.accepts(accepts, types: item.representations.map(\.type))
                    || (item.representations.isEmpty && (item.children ?? []).contains(where: matches))
            }
            for tree in trees where !matches(tree) {
                throw Rejection(
                    .forbidden,
                    "The destination accepts only \(accepts.joined(separator: ", ")) and the inserted item has none "
                        + "of those types; insert it into a collection that accepts it.", field: "items", item: tree.id)
            }
        }
        try checkNewIDs(trees)
        return (trees, resolved)
    }

    /// Rejects new trees whose ids are in use or repeated.
    func checkNewIDs(_ trees: [NewItem]) throws(Rejection) {
        var seen = Set<ItemID>()
        func check(_ item: NewItem) -> ItemID? {
            let id = item.id!
            if itemSlots[id] != nil || !seen.insert(id).inserted { return id }
            for child in item.children ?? [] { if let bad = check(child) { return bad } }
            return nil
        }
        for tree in trees {
            if let bad = check(tree) {
                throw Rejection(
                    .duplicateID, "Item id \(bad) is already in use on this board; choose another id.",
                    field: "items", item: bad)
            }
        }
    }

    /// Builds and links new trees whose ids were checked by `checkNewIDs`.
    mutating func insertNew(
        _ trees: [NewItem], resolved: ResolvedDestination, destination: Destination, skipped: [ItemID]
    ) -> Effect {
        func item(_ new: NewItem) -> Item {
            Item(
                id: new.id!, representations: new.representations, children: new.children?.map(item),
                version: new.version, details: new.details)
        }
        var slots: [Slot] = []
        for tree in trees {
            // Cannot fail: ids were checked above and new trees hold no placeholders.
            guard let slot = try? insertTree(item(tree), parent: .group(0)) else { preconditionFailure() }
            slots.append(slot)
        }
        let positions = link(slots, at: resolved, destination: destination, moving: slots)
        var changes: [ItemChange] = []
        for (slot, position) in zip(slots, positions) {
            changes.append(ItemChange(item: nodes[Int(slot)].id, from: nil, to: position))
        }
        return Effect(changes: changes, skipped: skipped)
    }
}
