extension Board {
    /// Applies a committed operation, as every replica does for each seq in order.
    ///
    /// Deterministic: it depends only on the board, the operation and its `(clientId, opId)`;
    /// leases are not consulted (the sequencer checked them when it committed the operation).
    ///
    /// - Returns: The effect, equal to `committed.effect` on a replica in step with the server.
    /// - Throws: `Rejection` if the operation does not apply to this board, which for a committed
    ///   operation means the replica diverged; the board is then unchanged.
    /// - Complexity: see `apply(_:clientId:opId:)`.
    @discardableResult
    public mutating func apply(_ committed: CommittedOperation) throws(Rejection) -> Effect {
        try apply(committed.op, clientId: committed.clientId, opId: committed.opId)
    }

    /// Applies an operation submitted by `clientId` as `opId`, or throws and changes nothing.
    ///
    /// The rules of `semantics.md`: anchored destinations (R3), vanished items skipped and a
    /// vanished destination refused (R4), `accepts` (R5), deep copies with derived ids (R6), drops
    /// into items and cycles (R7), placeholder ownership (R8). Leases (R9) are the sequencer's job.
    ///
    /// - Parameters:
    ///   - op: The operation.
    ///   - clientId: The submitting client; owns new placeholders and seeds derived ids.
    ///   - opId: The operation id; seeds derived ids.
    /// - Returns: What changed.
    /// - Throws: `Rejection`; the board is then unchanged.
    /// - Complexity: a move of k items costs O(k · (s + k)) where s is the length of the lists the
    ///   items leave and enter (one hash lookup per id, scans of those sections); a single-item move
    ///   is O(s). Copies and inserts are O(size of the new trees + s); deletes are O(removed items +
    ///   s); section and collection changes are O(sections + removed items).
    @discardableResult
    public mutating func apply(_ op: BoardOperation, clientId: String, opId: String) throws(Rejection) -> Effect {
        switch op {
        case .move(let move): return try applyMove(move)
        case .copy(let copy): return try applyCopy(copy, clientId: clientId, opId: opId)
        case .insert(let insert): return try applyInsert(insert, clientId: clientId, opId: opId)
        case .insertPlaceholder(let p): return try applyInsertPlaceholder(p, clientId: clientId, opId: opId)
        case .commitPlaceholder(let p): return try applyCommitPlaceholder(p, clientId: clientId)
        case .deletePlaceholder(let p): return try applyDeletePlaceholder(p, clientId: clientId)
        case .delete(let d): return try applyDelete(d, clientId: clientId, verb: "delete")
        case .moveOut(let d): return try applyDelete(d, clientId: clientId, verb: "move out")
        case .updateItem(let u): return try applyUpdate(u)
        case .createCollection(let c): return try applyCreateCollection(c)
        case .renameCollection(let r):
            let index = try collectionIndex(r.collection)
            contentBytes += SnapshotSize.string(r.title) - SnapshotSize.string(collectionNodes[index].title)
            collectionNodes[index].title = r.title
            return Effect()
        case .deleteCollection(let d): return try applyDeleteCollection(d)
        case .moveCollection(let m):
            let index = try collectionIndex(m.collection)
            let node = collectionNodes.remove(at: index)
            collectionNodes.insert(node, at: clamp(m.index, collectionNodes.count))
            rebuildCollectionIndex()
            return Effect()
        case .setAccepts(let s):
            let index = try collectionIndex(s.collection)
            contentBytes += SnapshotSize.accepts(s.accepts) - SnapshotSize.accepts(collectionNodes[index].accepts)
            collectionNodes[index].accepts = s.accepts
            return Effect()
        case .createSection(let c): return try applyCreateSection(c)
        case .renameSection(let r):
            let slot = try sectionSlot(r.section)
            contentBytes += SnapshotSize.string(r.title) - SnapshotSize.string(sectionNodes[Int(slot)].title)
            sectionNodes[Int(slot)].title = r.title
            return Effect()
        case .deleteSection(let d): return try applyDeleteSection(d)
        case .moveSection(let m):
            let slot = try sectionSlot(m.section)
            let index = sectionNodes[Int(slot)].collectionOrdinal
            let from = collectionNodes[index].sections.firstIndex(of: slot)!
            collectionNodes[index].sections.remove(at: from)
            collectionNodes[index].sections.insert(slot, at: clamp(m.index, collectionNodes[index].sections.count))
            return Effect()
        }
    }
}

// MARK: - Destinations

extension Board {
    /// A destination checked against the board.
    enum ResolvedDestination {
        /// Insert into this section at an anchored index.
        case section(Slot, CollectionID, SectionID)
        /// Append to this item's children.
        case into(Slot)
    }

    /// Resolves a destination (R4, R7) and returns it with the accepts list that applies there.
    func resolve(_ destination: Destination) throws(Rejection) -> (ResolvedDestination, [String]) {
        if destination.intent == .insertIntoDestinationIndexPath {
            guard let target = destination.target else {
                throw Rejection(
                    .invalid, "A drop into an item must name the target item; set destination.target.",
                    field: "destination.target")
            }
            guard let slot = itemSlots[target] else {
                throw Rejection(
                    .destinationGone, "The item you dropped into (\(target)) was deleted; nothing moved. Drop again.",
                    field: "destination.target", item: target)
            }
            if nodes[Int(slot)].placeholder != nil {
                throw Rejection(
                    .forbidden, "\(target) is a placeholder, which cannot receive a drop; drop beside it instead.",
                    field: "destination.target", item: target)
            }
            return (.into(slot), accepts(ofSection: rootSection(of: slot)))
        }
        guard let slot = sectionSlots[destination.section], sectionNodes[Int(slot)].collection == destination.collection
        else {
            guard collectionIndex[destination.collection] != nil else {
                throw Rejection(
                    .destinationGone,
                    "Collection \(destination.collection) was deleted before the drop arrived; nothing moved.",
                    field: "destination.collection")
            }
            guard sectionSlots[destination.section] != nil else {
                throw Rejection(
                    .destinationGone,
                    "Section \(destination.section) was deleted before the drop arrived; nothing moved.",
                    field: "destination.section")
            }
            throw Rejection(
                .invalid,
                "Section \(destination.section) is not in collection \(destination.collection); "
                    + "name the collection that holds it.",
                field: "destination.section")
        }
        return (.section(slot, destination.collection, destination.section), accepts(ofSection: slot))
    }

    /// R3: the index in the (already emptied of moving items) section where a drop lands.
    func anchoredIndex(_ destination: Destination, section: Slot, isMoving: (Slot) -> Bool) -> Int {
        func usable(_ anchor: ItemID?) -> Slot? {
            guard let anchor, let slot = itemSlots[anchor], nodes[Int(slot)].parent == .section(section),
                !isMoving(slot)
            else { return nil }
            return slot
        }
        if let after = usable(destination.after) { return sectionNodes[Int(section)].items.firstIndex(of: after)! + 1 }
        if let before = usable(destination.before) { return sectionNodes[Int(section)].items.firstIndex(of: before)! }
        return clamp(destination.index, sectionNodes[Int(section)].items.count)
    }

    /// Links unlinked item slots at a resolved destination, in order, and returns their positions.
    mutating func link(
        _ slots: [Slot], at resolved: ResolvedDestination, destination: Destination, moving: [Slot]
    ) -> [Position] {
        switch resolved {
        case .section(let section, let collectionID, let sectionID):
            let index = anchoredIndex(destination, section: section, isMoving: { moving.contains($0) })
            sectionNodes[Int(section)].items.insert(contentsOf: slots, at: index)
            for slot in slots { nodes[Int(slot)].parent = .section(section) }
            return slots.indices.map { Position(collection: collectionID, section: sectionID, index: index + $0) }
        case .into(let target):
            let start = nodes[Int(target)].children?.count ?? 0
            if nodes[Int(target)].children == nil {
                nodes[Int(target)].children = []
                contentBytes += SnapshotSize.childrenField
            }
            nodes[Int(target)].children!.append(contentsOf: slots)
            for slot in slots { nodes[Int(slot)].parent = .group(target) }
            let section = sectionNodes[Int(rootSection(of: target))]
            let targetID = nodes[Int(target)].id
            return slots.indices.map {
                Position(collection: section.collection, section: section.id, group: targetID, index: start + $0)
            }
        }
    }

    func clamp(_ index: Int, _ count: Int) -> Int { Swift.max(0, Swift.min(index, count)) }

    func collectionIndex(_ id: CollectionID) throws(Rejection) -> Int {
        guard let index = collectionIndex[id] else {
            throw Rejection(
                .notFound, "Collection \(id) does not exist (it may have been deleted); reload the board.",
                field: "collection")
        }
        return index
    }

    func sectionSlot(_ id: SectionID) throws(Rejection) -> Slot {
        guard let slot = sectionSlots[id] else {
            throw Rejection(
                .notFound, "Section \(id) does not exist (it may have been deleted); reload the board.",
                field: "section")
        }
        return slot
    }

    /// Validates a non-empty, duplicate-free item list and splits it into live slots and skipped ids.
    func liveItems(_ items: [ItemID], verb: String) throws(Rejection) -> (slots: [Slot], skipped: [ItemID]) {
        guard !items.isEmpty else {
            throw Rejection(.invalid, "The \(verb) names no items; list at least one.", field: "items")
        }
        if items.count > 1, Set(items).count != items.count {
            throw Rejection(.invalid, "The \(verb) names an item twice; list each item once.", field: "items")
        }
        var slots: [Slot] = []
        slots.reserveCapacity(items.count)
        var skipped: [ItemID] = []
        for id in items {
            if let slot = itemSlots[id] { slots.append(slot) } else { skipped.append(id) }
        }
        guard !slots.isEmpty else {
            let names = items.map(\.rawValue).joined(separator: ", ")
            throw Rejection(
                .gone, "Every item in the \(verb) (\(names)) was deleted before it arrived; nothing changed.",
                field: "items", item: items.first)
        }
        return (slots, skipped)
    }

    func rejectIfNotAccepted(_ accepts: [String], slot: Slot) throws(Rejection) {
        guard matches(accepts, slot: slot) else {
            let id = nodes[Int(slot)].id
            throw Rejection(
                .forbidden,
                "The destination accepts only \(accepts.joined(separator: ", ")) and \(id) has none of those types; "
                    + "drop it in a collection that accepts it.", field: "destination", item: id)
        }
    }
}

// MARK: - Item operations

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
            return NewItem(id: id, representations: node.representations, children: node.children?.map(clone))
        }
        let trees = slots.map(clone)
        try checkNewIDs(trees)
        return insertNew(trees, resolved: resolved, destination: copy.destination, skipped: skipped)
    }

    mutating func applyInsert(_ insert: BoardOperation.Insert, clientId: String, opId: String) throws(Rejection)
        -> Effect
    {
        let (trees, resolved) = try prepareInsert(insert, clientId: clientId, opId: opId)
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
    private func checkNewIDs(_ trees: [NewItem]) throws(Rejection) {
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
    private mutating func insertNew(
        _ trees: [NewItem], resolved: ResolvedDestination, destination: Destination, skipped: [ItemID]
    ) -> Effect {
        func item(_ new: NewItem) -> Item {
            Item(id: new.id!, representations: new.representations, children: new.children?.map(item))
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
        contentBytes += itemBytes(nodes[Int(slot)]) - before
        let position = position(ofSlot: slot)
        return Effect(changes: [ItemChange(item: commit.item, from: position, to: position)])
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

    mutating func applyDelete(_ delete: BoardOperation.Delete, clientId: String, verb: String) throws(Rejection)
        -> Effect
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
        for slot in roots {
            detach(slot)
            free(slot)
        }
        return Effect(changes: changes, skipped: skipped, removed: removed)
    }

    mutating func applyUpdate(_ update: BoardOperation.UpdateItem) throws(Rejection) -> Effect {
        guard let slot = itemSlots[update.item] else {
            throw Rejection(
                .gone, "\(update.item) was deleted before the update arrived; nothing changed.", field: "item",
                item: update.item)
        }
        guard nodes[Int(slot)].placeholder == nil else {
            throw Rejection(
                .invalid, "\(update.item) is a placeholder; give it content with commitPlaceholder.", field: "item",
                item: update.item)
        }
        let accepts = accepts(ofSection: rootSection(of: slot))
        let old = nodes[Int(slot)].representations
        nodes[Int(slot)].representations = update.representations
        guard matches(accepts, slot: slot) else {
            nodes[Int(slot)].representations = old
            throw Rejection(
                .forbidden,
                "The collection accepts only \(accepts.joined(separator: ", ")); keep a representation of one of "
                    + "those types.", field: "representations", item: update.item)
        }
        contentBytes += SnapshotSize.representations(update.representations) - SnapshotSize.representations(old)
        let position = position(ofSlot: slot)
        return Effect(changes: [ItemChange(item: update.item, from: position, to: position)])
    }
}

// MARK: - Collections and sections

extension Board {
    mutating func applyCreateCollection(_ create: BoardOperation.CreateCollection) throws(Rejection) -> Effect {
        guard collectionIndex[create.id] == nil else {
            throw Rejection(
                .duplicateID, "Collection id \(create.id) is already in use; choose another id.", field: "id")
        }
        let node = CollectionNode(
            id: create.id, title: create.title, layout: create.layout, accepts: create.accepts, sections: [])
        collectionNodes.insert(node, at: clamp(create.index ?? collectionNodes.count, collectionNodes.count))
        contentBytes += collectionBytes(node)
        rebuildCollectionIndex()
        return Effect()
    }

    mutating func applyDeleteCollection(_ delete: BoardOperation.DeleteCollection) throws(Rejection) -> Effect {
        let index = try collectionIndex(delete.collection)
        var effect = Effect()
        for section in collectionNodes[index].sections { removeSection(section, into: &effect) }
        contentBytes -= collectionBytes(collectionNodes.remove(at: index))
        rebuildCollectionIndex()
        return effect
    }

    mutating func applyCreateSection(_ create: BoardOperation.CreateSection) throws(Rejection) -> Effect {
        let index = try collectionIndex(create.collection)
        guard sectionSlots[create.id] == nil else {
            throw Rejection(.duplicateID, "Section id \(create.id) is already in use; choose another id.", field: "id")
        }
        let node = SectionNode(
            id: create.id, collection: create.collection, title: create.title, items: [], collectionOrdinal: index)
        let slot: Slot
        if let free = freeSectionSlots.popLast() {
            slot = free
            sectionNodes[Int(slot)] = node
        } else {
            slot = Slot(sectionNodes.count)
            sectionNodes.append(node)
        }
        sectionSlots[create.id] = slot
        contentBytes += sectionBytes(node)
        let count = collectionNodes[index].sections.count
        collectionNodes[index].sections.insert(slot, at: clamp(create.index ?? count, count))
        return Effect()
    }

    mutating func applyDeleteSection(_ delete: BoardOperation.DeleteSection) throws(Rejection) -> Effect {
        let slot = try sectionSlot(delete.section)
        let index = sectionNodes[Int(slot)].collectionOrdinal
        collectionNodes[index].sections.removeAll { $0 == slot }
        var effect = Effect()
        removeSection(slot, into: &effect)
        return effect
    }

    /// Frees a section and its items (the caller unlinks it from its collection).
    private mutating func removeSection(_ slot: Slot, into effect: inout Effect) {
        let section = sectionNodes[Int(slot)]
        for (index, item) in section.items.enumerated() {
            effect.changes.append(
                ItemChange(
                    item: nodes[Int(item)].id,
                    from: Position(collection: section.collection, section: section.id, index: index), to: nil))
            free(item)
        }
        contentBytes -= sectionBytes(section)
        sectionSlots[section.id] = nil
        sectionNodes[Int(slot)] = .freed
        freeSectionSlots.append(slot)
    }
}
