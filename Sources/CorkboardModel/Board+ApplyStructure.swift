// Collections and sections: created, deleted, with the items they hold.

extension Board {
    mutating func applyCreateCollection(_ create: BoardOperation.CreateCollection) throws(Rejection) -> Effect {
        guard collectionIndex[create.id] == nil else {
            throw Rejection(
                .duplicateID, "Collection id \(create.id) is already in use; choose another id.", field: "id")
        }
        var seen = Set<SectionID>()
        for (index, section) in create.sections.enumerated()
        where sectionSlots[section.id] != nil || !seen.insert(section.id).inserted {
            throw Rejection(
                .duplicateID, "Section id \(section.id) is already in use; choose another id.",
                field: "sections.\(index).id")
        }
        let node = CollectionNode(
            id: create.id, title: create.title, layout: create.layout, accepts: create.accepts, sections: [])
        collectionNodes.insert(node, at: clamp(create.index ?? collectionNodes.count, collectionNodes.count))
        contentBytes += collectionBytes(node)
        rebuildCollectionIndex()
        let index = collectionIndex[create.id]!
        for section in create.sections {
            let slot = addSection(
                SectionNode(
                    id: section.id, collection: create.id, title: section.title, items: [], collectionOrdinal: index))
            collectionNodes[index].sections.append(slot)
        }
        return Effect()
    }

    mutating func applyDeleteCollection(_ delete: BoardOperation.DeleteCollection, clientId: String, opId: String)
        throws(Rejection) -> Effect
    {
        let index = try collectionIndex(delete.collection)
        var deleted = collection(at: index)
        deleted.sections = deleted.sections.map(Self.withoutPlaceholders)
        var effect = Effect()
        for section in collectionNodes[index].sections { removeSection(section, into: &effect) }
        contentBytes -= collectionBytes(collectionNodes.remove(at: index))
        rebuildCollectionIndex()
        let evicted = putInTrash(
            .collection(deleted, index: index), name: delete.name, at: delete.at, clientId: clientId, opId: opId)
        if !evicted.isEmpty { effect.evicted = evicted }
        return effect
    }

    mutating func applyCreateSection(_ create: BoardOperation.CreateSection) throws(Rejection) -> Effect {
        let index = try collectionIndex(create.collection)
        guard sectionSlots[create.id] == nil else {
            throw Rejection(.duplicateID, "Section id \(create.id) is already in use; choose another id.", field: "id")
        }
        let slot = addSection(
            SectionNode(
                id: create.id, collection: create.collection, title: create.title, items: [],
                collectionOrdinal: index))
        let count = collectionNodes[index].sections.count
        collectionNodes[index].sections.insert(slot, at: clamp(create.index ?? count, count))
        return Effect()
    }

    mutating func applyDeleteSection(_ delete: BoardOperation.DeleteSection, clientId: String, opId: String)
        throws(Rejection) -> Effect
    {
        let slot = try sectionSlot(delete.section)
        let index = sectionNodes[Int(slot)].collectionOrdinal
        let node = sectionNodes[Int(slot)]
        let deleted = Self.withoutPlaceholders(
            Section(id: node.id, title: node.title, items: node.items.map(tree(of:))))
        let position = collectionNodes[index].sections.firstIndex(of: slot) ?? 0
        collectionNodes[index].sections.removeAll { $0 == slot }
        var effect = Effect()
        removeSection(slot, into: &effect)
        let evicted = putInTrash(
            .section(collection: node.collection, section: deleted, index: position), name: delete.name,
            at: delete.at, clientId: clientId, opId: opId)
        if !evicted.isEmpty { effect.evicted = evicted }
        return effect
    }

    /// Gives a new section a slot (the caller links it into its collection).
    private mutating func addSection(_ node: SectionNode) -> Slot {
        let slot = Self.place(node, in: &sectionNodes, reusing: &freeSectionSlots)
        sectionSlots[node.id] = slot
        contentBytes += sectionBytes(node)
        return slot
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
