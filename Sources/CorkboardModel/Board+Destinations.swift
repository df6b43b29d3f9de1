// Destinations: where a drop lands (R3 anchors, R4 vanished destinations, R7 drops into items).

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
        try Self.existing(collectionIndex[id], "Collection \(id)", field: "collection")
    }

    func sectionSlot(_ id: SectionID) throws(Rejection) -> Slot {
        try Self.existing(sectionSlots[id], "Section \(id)", field: "section")
    }

    /// The value a lookup found, or `not-found` naming `what` (built only when it is missing).
    static func existing<Value>(_ value: Value?, _ what: @autoclosure () -> String, field: String) throws(Rejection)
        -> Value
    {
        guard let value else {
            throw Rejection(
                .notFound, "\(what()) does not exist (it may have been deleted); reload the board.", field: field)
        }
        return value
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
