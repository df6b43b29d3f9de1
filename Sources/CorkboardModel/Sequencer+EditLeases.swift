extension Sequencer {
    /// R12: the rejection of an operation that would change or delete an item another client is
    /// editing, naming the editor; `nil` when it touches no such item.
    ///
    /// Checked: `updateItem` of the item, `delete` or `moveOut` of it or of a group holding it,
    /// `deleteSection` and `deleteCollection` holding it, and each part of a `batch`. Moves are
    /// not refused: the editor follows the card.
    ///
    /// - Complexity: O(leases · depth) per part, O(1) without edit leases.
    func editConflict(_ op: BoardOperation, clientId: String) -> Rejection? {
        if editLeases.isEmpty { return nil }
        let others = editLeases.sorted.filter { $0.client != clientId }
        if others.isEmpty { return nil }
        func locked(_ lease: EditLeaseTable.Lease) -> Rejection {
            Rejection(
                .locked,
                "\(lease.holder) is editing \(board.quotedName(of: lease.item)); wait until they save, then try again.",
                field: "items", item: lease.item)
        }
        func slot(_ lease: EditLeaseTable.Lease) -> Board.Slot? { board.itemSlots[lease.item] }
        switch op {
        case .updateItem(let update):
            return others.first { $0.item == update.item }.map(locked)
        case .delete(let delete), .moveOut(let delete):
            let named = delete.items.compactMap { board.itemSlots[$0] }
            return others.first { lease in
                guard let edited = slot(lease) else { return false }
                return named.contains { board.isAncestorOrSelf($0, of: edited) }
            }.map(locked)
        case .deleteSection(let delete):
            guard let section = board.sectionSlots[delete.section] else { return nil }
            return others.first { lease in slot(lease).map { board.rootSection(of: $0) == section } ?? false }
                .map(locked)
        case .deleteCollection(let delete):
            return others.first { lease in
                guard let edited = slot(lease) else { return false }
                return board.sectionNodes[Int(board.rootSection(of: edited))].collection == delete.collection
            }.map(locked)
        case .batch(let batch):
            return batch.ops.lazy.compactMap { editConflict($0, clientId: clientId) }.first
        default:
            return nil
        }
    }
}
