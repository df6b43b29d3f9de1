// The Trash (R15): deletes put what they remove in it; `restore` puts an entry back, once;
// `emptyTrash` lets everything go for good.

extension Board {
    /// The id a delete of `clientId`'s `opId` gives its Trash entry: `"<clientId>:<opId>"`, with
    /// `":2"`, `":3"` … when a part of the same batch took it already. The same on every replica,
    /// and known before the delete applies (an undo recipe keeps it).
    ///
    /// - Complexity: O(entries).
    public func trashID(clientId: String, opId: String) -> String {
        let base = "\(clientId):\(opId)"
        var id = base
        var n = 1
        while trash.entry(id) != nil {
            n += 1
            id = "\(base):\(n)"
        }
        return id
    }

    /// Puts what a delete removed in the Trash; returns the ids that fell out of it.
    mutating func putInTrash(
        _ content: TrashEntry.Content, name: String?, at: Int?, clientId: String, opId: String
    ) -> [String] {
        let entry = TrashEntry(
            id: trashID(clientId: clientId, opId: opId), name: name ?? "Someone", clientId: clientId, at: at ?? 0,
            content: content)
        return trash.add(entry)
    }

    /// `items` without placeholders, inside groups too: a placeholder is never trashed (R8).
    static func withoutPlaceholders(_ items: [Item]) -> [Item] {
        items.compactMap { item in
            guard item.placeholder == nil else { return nil }
            var item = item
            item.children = item.children.map(withoutPlaceholders)
            return item
        }
    }

    /// A section's tree without its placeholders.
    static func withoutPlaceholders(_ section: Section) -> Section {
        Section(id: section.id, title: section.title, items: withoutPlaceholders(section.items))
    }

    mutating func applyRestore(_ restore: BoardOperation.Restore, clientId: String, opId: String) throws(Rejection)
        -> Effect
    {
        guard let entry = trash.entry(restore.entry) else {
            throw Rejection(
                .gone,
                "That Trash entry (\(restore.entry)) was already restored, emptied or fell out of the Trash; "
                    + "nothing changed.", field: "entry")
        }
        // On a copy, so that a part refused leaves the board as it was.
        var board = self
        var effect = Effect()
        switch entry.content {
        case .cards(let runs):
            for run in runs {
                let trees = run.elements.filter { !board.contains($0.id) }
                if trees.isEmpty { continue }
                let destination = try board.restoreDestination(run.origin)
                let part = try board.applyInsert(
                    BoardOperation.Insert(items: trees.map(NewItem.init), destination: destination), clientId: clientId,
                    opId: opId)
                effect.changes += part.changes
            }
        case .section(let collection, let section, let index):
            guard board.collectionIndex[collection] != nil else {
                throw Rejection(
                    .gone,
                    "The section's collection was deleted since; restore the collection from the Trash first.",
                    field: "entry")
            }
            _ = try board.applyCreateSection(
                BoardOperation.CreateSection(collection: collection, id: section.id, title: section.title, index: index)
            )
            try board.restoreItems(section.items, into: section.id, effect: &effect)
        case .collection(let collection, let index):
            _ = try board.applyCreateCollection(
                BoardOperation.CreateCollection(
                    id: collection.id, title: collection.title, layout: collection.layout,
                    accepts: collection.accepts, index: index,
                    sections: collection.sections.map { BoardOperation.NewSection(id: $0.id, title: $0.title) }))
            for section in collection.sections {
                try board.restoreItems(section.items, into: section.id, effect: &effect)
            }
        }
        _ = board.trash.remove(entry.id)
        let evicted = board.trash.evictOlder(at: restore.at ?? 0)
        if !evicted.isEmpty { effect.evicted = evicted }
        self = board
        return effect
    }

    mutating func applyEmptyTrash() -> Effect {
        let evicted = trash.removeAll()
        return Effect(evicted: evicted.isEmpty ? nil : evicted)
    }

    /// Where a run of restored cards goes: its R3 anchors in its section or its group when that is
    /// still there, else the end of its collection's last section; `gone` when the collection is
    /// gone or has no section.
    func restoreDestination(_ origin: UndoRecipe.Origin) throws(Rejection) -> Destination {
        if let group = origin.group, let slot = itemSlots[group], nodes[Int(slot)].placeholder == nil {
            let root = sectionNodes[Int(rootSection(of: slot))]
            return .into(group, collection: root.collection, section: root.id)
        }
        if origin.group == nil, let slot = sectionSlots[origin.section],
            sectionNodes[Int(slot)].collection == origin.collection
        {
            return origin.destination
        }
        guard let index = collectionIndex[origin.collection], let last = collectionNodes[index].sections.last else {
            throw Rejection(
                .gone,
                "The cards' collection was deleted since; restore the collection from the Trash first, "
                    + "then the cards.", field: "entry")
        }
        let section = sectionNodes[Int(last)]
        return Destination(collection: origin.collection, section: section.id, index: section.items.count)
    }

    /// Inserts a restored section's cards at its end, skipping any already back on the board.
    private mutating func restoreItems(_ items: [Item], into section: SectionID, effect: inout Effect)
        throws(Rejection)
    {
        let slot = try sectionSlot(section)
        for item in items where !contains(item.id) {
            let itemSlot = try insertTree(item, parent: .section(slot))
            sectionNodes[Int(slot)].items.append(itemSlot)
            effect.changes.append(
                ItemChange(item: item.id, from: nil, to: position(ofSlot: itemSlot)))
        }
    }
}

extension BoardOperation {
    /// Payload of `restore`: `{"entry":"c-1:op-7"}`.
    public struct Restore: Hashable, Codable, Sendable {
        /// The Trash entry.
        public var entry: String
        /// When, in milliseconds since 1970: set by the sequencer (ages the Trash).
        public var at: Int?
        /// Creates a restore.
        public init(entry: String, at: Int? = nil) {
            self.entry = entry
            self.at = at
        }
    }

    /// Payload of `emptyTrash`: no fields.
    public struct EmptyTrash: Hashable, Codable, Sendable {
        /// Creates an emptying.
        public init() {}
    }

    /// The operation with the server's time (ms since 1970) set where the Trash needs it: deletes
    /// and restores, inside a batch too (R15).
    public func stampedForTrash(at ms: Int) -> BoardOperation {
        switch self {
        case .delete(var delete):
            delete.at = ms
            return .delete(delete)
        case .deleteSection(var delete):
            delete.at = ms
            return .deleteSection(delete)
        case .deleteCollection(var delete):
            delete.at = ms
            return .deleteCollection(delete)
        case .restore(var restore):
            restore.at = ms
            return .restore(restore)
        case .batch(var batch):
            batch.ops = batch.ops.map { $0.stampedForTrash(at: ms) }
            return .batch(batch)
        default:
            return self
        }
    }

    /// The operation with who did it set on its deletes, inside a batch too (the room's member name).
    public func named(_ name: String) -> BoardOperation {
        switch self {
        case .delete(var delete):
            delete.name = name
            return .delete(delete)
        case .deleteSection(var delete):
            delete.name = name
            return .deleteSection(delete)
        case .deleteCollection(var delete):
            delete.name = name
            return .deleteCollection(delete)
        case .batch(var batch):
            batch.ops = batch.ops.map { $0.named(name) }
            return .batch(batch)
        default:
            return self
        }
    }
}
