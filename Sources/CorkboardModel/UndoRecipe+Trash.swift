// Undo and the Trash (R13, R15): a delete is undone by restoring its Trash entry, a restore by
// deleting again. Recipes keep ids only (R18).

extension UndoRecipe {
    /// The recipe of a `delete`, `deleteSection`, `deleteCollection`, `restore` or `emptyTrash` of
    /// `clientId`'s `opId`, captured on the board before it applies.
    static func trashing(_ op: BoardOperation, on board: Board, clientId: String, opId: String) -> UndoRecipe? {
        let entry = board.trashID(clientId: clientId, opId: opId)
        switch op {
        case .delete(let delete):
            return UndoRecipe(
                step: .restoreTrash(entry), described: Summary(lead: "deleting ", name: board.names(of: delete.items)))
        case .deleteSection(let delete):
            guard let slot = board.sectionSlots[delete.section] else { return nil }
            return UndoRecipe(
                step: .restoreTrash(entry),
                summary: "deleting the section \(quoted(board.sectionNodes[Int(slot)].title))")
        case .deleteCollection(let delete):
            guard let index = board.collectionIndex[delete.collection] else { return nil }
            return UndoRecipe(
                step: .restoreTrash(entry),
                summary: "deleting the collection \(quoted(board.collectionNodes[index].title))")
        case .restore(let restore):
            guard let restored = board.trash.entry(restore.entry) else { return nil }
            switch restored.content {
            case .cards(let runs):
                let items = runs.flatMap { $0.elements.map(\.id) }.filter { !board.contains($0) }
                return UndoRecipe(
                    step: .trashAgain(.delete(BoardOperation.Delete(items: items))),
                    summary: "restoring \(restored.cardCount == 1 ? "a card" : "\(restored.cardCount) cards")")
            case .section(_, let section, _):
                return UndoRecipe(
                    step: .trashAgain(.deleteSection(BoardOperation.DeleteSection(section: section.id))),
                    summary: "restoring the section \(quoted(section.title))")
            case .collection(let collection, _):
                return UndoRecipe(
                    step: .trashAgain(.deleteCollection(BoardOperation.DeleteCollection(collection: collection.id))),
                    summary: "restoring the collection \(quoted(collection.title))")
            }
        case .emptyTrash:
            return .notUndoable(
                "emptying the Trash cannot be undone; what it held is gone for good", summary: "emptying the Trash")
        default:
            return nil
        }
    }

    /// The reverse of a `restoreTrash` or `trashAgain` step on `board` as it is now.
    static func inverseTrash(_ step: Step, on board: Board) throws(Rejection) -> [BoardOperation] {
        switch step {
        case .restoreTrash(let entry):
            guard board.trash.entry(entry) != nil else {
                throw Rejection(.gone, "it was restored from the Trash, emptied or fell out of the Trash since")
            }
            return [.restore(BoardOperation.Restore(entry: entry))]
        case .trashAgain(.delete(let delete)):
            let alive = delete.items.filter(board.contains)
            if alive.isEmpty { throw Rejection(.gone, "the cards were deleted since") }
            return [.delete(BoardOperation.Delete(items: alive))]
        case .trashAgain(.deleteSection(let delete)):
            guard board.sectionSlots[delete.section] != nil else { throw Rejection(.gone, "it was deleted since") }
            return [.deleteSection(delete)]
        case .trashAgain(.deleteCollection(let delete)):
            guard board.collectionIndex[delete.collection] != nil else {
                throw Rejection(.gone, "it was deleted since")
            }
            return [.deleteCollection(delete)]
        default:
            throw Rejection(.invalid, "this step is not one of the Trash's")
        }
    }
}

extension BoardOperation {
    /// The bytes of the ids a `trashAgain` recipe holds.
    var trashedIDBytes: Int {
        switch self {
        case .delete(let delete): delete.items.reduce(0) { $0 + $1.rawValue.utf8.count }
        case .deleteSection(let delete): delete.section.rawValue.utf8.count
        case .deleteCollection(let delete): delete.collection.rawValue.utf8.count
        default: 0
        }
    }
}
