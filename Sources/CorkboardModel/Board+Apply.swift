extension Board {
    /// Applies a committed operation, as every replica does for each seq in order.
    ///
    /// Deterministic: it depends only on the board, the operation and its `(clientId, opId)`;
    /// leases are not consulted (the sequencer checked them when it committed the operation). The
    /// Trash lets go exactly the entries `committed.effect.evicted` names, whatever this board's
    /// own Trash limits: the server that sequenced it decided with its own (R15).
    ///
    /// - Returns: The effect, equal to `committed.effect` on a replica in step with the server.
    /// - Throws: `Rejection` if the operation does not apply to this board, which for a committed
    ///   operation means the replica diverged; the board is then unchanged.
    /// - Complexity: see `apply(_:clientId:opId:)`, plus O(Trash entries) when it evicts.
    @discardableResult
    public mutating func apply(_ committed: CommittedOperation) throws(Rejection) -> Effect {
        let limits = trash.limits
        trash.limits = .none
        defer { trash.limits = limits }
        var effect = try apply(committed.op, clientId: committed.clientId, opId: committed.opId)
        let evicted = committed.effect.evicted ?? []
        trash.evict(evicted)
        effect.evicted = evicted.isEmpty ? nil : evicted
        return effect
    }

    /// Applies an operation submitted by `clientId` as `opId`, or throws and changes nothing.
    ///
    /// The rules of `semantics.md`: anchored destinations (R3), vanished items skipped and a
    /// vanished destination refused (R4), `accepts` (R5), deep copies with derived ids (R6), drops
    /// into items and cycles (R7), placeholder ownership (R8), item versions (R12) and batches
    /// applied whole or not at all (R13). Leases (R9, R12) are the sequencer's job.
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
        case .delete(let d): return try applyDelete(d, clientId: clientId, verb: "delete", trashAs: opId)
        case .moveOut(let d): return try applyDelete(d, clientId: clientId, verb: "move out", trashAs: nil)
        case .updateItem(let u): return try applyUpdate(u)
        case .updateCard(let u): return try applyUpdateCard(u)
        case .setLabel(let s): return try applySetLabel(s)
        case .deleteLabel(let d): return try applyDeleteLabel(d)
        case .addComment(let a): return try applyAddComment(a, clientId: clientId, opId: opId)
        case .editComment(let e): return try applyEditComment(e, clientId: clientId)
        case .deleteComment(let d): return try applyDeleteComment(d, clientId: clientId)
        case .checklist(let c): return try applyChecklist(c)
        case .createCollection(let c): return try applyCreateCollection(c)
        case .renameCollection(let r):
            let index = try collectionIndex(r.collection)
            contentBytes += SnapshotSize.string(r.title) - SnapshotSize.string(collectionNodes[index].title)
            collectionNodes[index].title = r.title
            return Effect()
        case .deleteCollection(let d): return try applyDeleteCollection(d, clientId: clientId, opId: opId)
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
        case .setLayout(let s):
            let index = try collectionIndex(s.collection)
            contentBytes +=
                SnapshotSize.string(s.layout.rawValue) - SnapshotSize.string(collectionNodes[index].layout.rawValue)
            collectionNodes[index].layout = s.layout
            return Effect()
        case .renameBoard(let r):
            contentBytes += SnapshotSize.boardTitle(r.title) - SnapshotSize.boardTitle(title)
            title = r.title
            return Effect()
        case .batch(let b): return try applyBatch(b, clientId: clientId, opId: opId)
        case .createSection(let c): return try applyCreateSection(c)
        case .renameSection(let r):
            let slot = try sectionSlot(r.section)
            contentBytes += SnapshotSize.string(r.title) - SnapshotSize.string(sectionNodes[Int(slot)].title)
            sectionNodes[Int(slot)].title = r.title
            return Effect()
        case .deleteSection(let d): return try applyDeleteSection(d, clientId: clientId, opId: opId)
        case .restore(let r): return try applyRestore(r, clientId: clientId, opId: opId)
        case .emptyTrash: return applyEmptyTrash()
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
