/// The leases a board's room holds on its items: the drag leases (R9) and the edit leases (R12).
///
/// They are the room's, not the board's: the room takes and ends them as drags and edits begin
/// and end, and hands them to `Sequencer.submit(_:now:leases:)`, which refuses `locked` an
/// operation that would move or delete an item another session drags, or change or delete one
/// another client edits.
public struct ItemLeases: Hashable, Sendable {
    /// No lease at all: what a sequencer without a room (a replay, a tool, a test) checks against.
    public static let none = ItemLeases()

    /// The drag leases (R9).
    public var drags: LeaseTable
    /// The edit leases (R12).
    public var edits: EditLeaseTable

    /// Creates the leases, empty by default.
    public init(drags: LeaseTable = LeaseTable(), edits: EditLeaseTable = EditLeaseTable()) {
        self.drags = drags
        self.edits = edits
    }

    /// The rejection of an operation of `clientId` that a lease held by someone else forbids (a
    /// drag lease first, then an edit lease); `nil` when none does.
    ///
    /// - Complexity: O(leases · depth) per part of the operation, O(1) without leases.
    public func conflict(_ op: BoardOperation, clientId: String, on board: Board) -> Rejection? {
        drags.conflict(with: op, on: board) ?? edits.conflict(with: op, clientId: clientId, on: board)
    }
}

extension LeaseTable {
    /// R9: the first item the operation would move or delete that another session leases.
    ///
    /// - Complexity: O(leased items · depth) per part, O(1) without leases.
    func conflict(with op: BoardOperation, on board: Board) -> Rejection? {
        if isEmpty { return nil }
        let session = op.session
        func locked(_ item: ItemID, _ lease: LeaseTable.Lease) -> Rejection {
            Rejection(
                .locked,
                "\(board.quotedName(of: item)) is being dragged by \(lease.holder); wait for them to drop it and try "
                    + "again.", field: "items", item: item)
        }
        switch op {
        case .move(let m):
            return conflict(named: m.items, session: session, on: board, locked)
        case .delete(let d), .moveOut(let d):
            return conflict(named: d.items, session: session, on: board, locked)
        case .deleteSection(let d):
            guard let slot = board.sectionSlots[d.section] else { return nil }
            for (item, holder) in leasedItems.sorted(by: { $0.key < $1.key }) {
                guard let itemSlot = board.itemSlots[item] else { continue }
                if board.rootSection(of: itemSlot) == slot, let lease = sessions[holder] {
                    return locked(item, lease)
                }
            }
            return nil
        case .deleteCollection(let d):
            for (item, holder) in leasedItems.sorted(by: { $0.key < $1.key }) {
                guard let itemSlot = board.itemSlots[item] else { continue }
                let section = board.sectionNodes[Int(board.rootSection(of: itemSlot))]
                if section.collection == d.collection, let lease = sessions[holder] {
                    return locked(item, lease)
                }
            }
            return nil
        case .batch(let batch):
            return batch.ops.lazy.compactMap { conflict(with: $0, on: board) }.first
        default:
            return nil
        }
    }

    /// A leased item (held by another session) that is one of `named` or inside one of them.
    private func conflict(
        named: [ItemID], session: String?, on board: Board, _ locked: (ItemID, LeaseTable.Lease) -> Rejection
    ) -> Rejection? {
        let slots = named.compactMap { board.itemSlots[$0] }
        for (item, holder) in leasedItems.sorted(by: { $0.key < $1.key }) where holder != session {
            guard let itemSlot = board.itemSlots[item], let lease = sessions[holder] else { continue }
            if slots.contains(where: { board.isAncestorOrSelf($0, of: itemSlot) }) { return locked(item, lease) }
        }
        return nil
    }
}

extension EditLeaseTable {
    /// R12: the rejection of an operation that would change or delete an item another client is
    /// editing, naming the editor; `nil` when it touches no such item.
    ///
    /// Checked: `updateItem` of the item and `updateCard` of its description, `delete` or `moveOut` of it or of a group holding it,
    /// `deleteSection` and `deleteCollection` holding it, and each part of a `batch`. Moves are
    /// not refused: the editor follows the card.
    ///
    /// - Complexity: O(leases · depth) per part, O(1) without edit leases.
    func conflict(with op: BoardOperation, clientId: String, on board: Board) -> Rejection? {
        if isEmpty { return nil }
        let others = sorted.filter { $0.client != clientId }
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
        case .updateCard(let update) where update.description != nil:
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
            return batch.ops.lazy.compactMap { conflict(with: $0, clientId: clientId, on: board) }.first
        default:
            return nil
        }
    }
}
