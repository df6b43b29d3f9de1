// Collections and sections: created, deleted, with the items they hold.

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
