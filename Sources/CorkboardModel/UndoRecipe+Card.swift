extension UndoRecipe {
    /// The recipe of a change to a card's details, the board's labels or a comment (R16), known
    /// before it applies; `nil` for an `addComment`, whose recipe `Capture` takes with its id.
    static func beforeCardChange(_ op: BoardOperation, on board: Board) -> UndoRecipe? {
        switch op {
        case .setLabel(let set):
            return UndoRecipe(
                step: .relabel(now: set.label, old: board.label(set.label.id)),
                summary: "changing the label \(quoted(set.label.name))")
        case .deleteLabel(let delete):
            guard let index = board.labels.firstIndex(where: { $0.id == delete.label }) else { return nil }
            let label = board.labels[index]
            return UndoRecipe(
                step: .restoreLabel(label, index: index, cards: board.cards(carrying: delete.label)),
                summary: "deleting the label \(quoted(label.name))")
        case .editComment(let edit):
            guard let item = board.item(edit.item), let comment = board.comment(edit.comment, on: edit.item) else {
                return nil
            }
            return UndoRecipe(
                step: .revertComment(
                    item: edit.item, comment: edit.comment, old: comment.text, version: comment.version + 1),
                described: Summary(lead: "editing your comment on ", name: .of(item)))
        case .deleteComment(let delete):
            guard let item = board.item(delete.item),
                let index = item.details?.comments.firstIndex(where: { $0.id == delete.comment })
            else { return nil }
            return UndoRecipe(
                step: .restoreComment(item: delete.item, comment: item.details!.comments[index], index: index),
                described: Summary(lead: "deleting your comment on ", name: .of(item)))
        case .checklist(let change):
            guard let item = board.item(change.item),
                let back = (item.details ?? CardDetails()).reverse(of: change)
            else { return nil }
            return UndoRecipe(
                step: .revertChecklist(back), described: Summary(lead: "changing the checklists of ", name: .of(item)))
        case .updateCard(let update):
            guard let item = board.item(update.item) else { return nil }
            return UndoRecipe(
                step: .revertCard(update.reverse(of: item.details ?? CardDetails())),
                described: Summary(lead: "changing ", name: .of(item)))
        default:
            return nil
        }
    }
}

extension UndoRecipe {
    /// The reverse of a checklist change on the board as it is now (R13): `gone` when the card,
    /// the checklist or the item went since or the change is already undone; `conflict` when
    /// undoing an added checklist would delete items someone put in it since.
    static func checklistInverse(_ change: BoardOperation.ChecklistChange, on board: Board) throws(Rejection)
        -> BoardOperation.ChecklistChange
    {
        guard let card = board.item(change.item) else {
            throw Rejection(.gone, "its card was deleted since", item: change.item)
        }
        let lists = card.details?.checklists ?? []
        let list = lists.first { $0.id == change.checklist }
        switch change.action {
        case .add:
            if list != nil { throw Rejection(.gone, "the checklist is already back", item: change.item) }
            if let taken = change.restore?.first(where: { entry in
                lists.contains { $0.items.contains { $0.id == entry.id } }
            }) {
                throw Rejection(.gone, "its item \(taken.id) is on the card again", item: change.item)
            }
            return change
        case .delete:
            guard let list else { throw Rejection(.gone, "the checklist was deleted since", item: change.item) }
            if !list.items.isEmpty {
                throw Rejection(
                    .conflict, "the checklist “\(list.name)” holds items now; delete it from the card if you mean to",
                    item: change.item)
            }
            return change
        default:
            guard let list else { throw Rejection(.gone, "the checklist was deleted since", item: change.item) }
            let present = list.items.contains { $0.id == change.entry }
            if change.action == .addItem ? present : !present && change.action != .rename {
                throw Rejection(
                    .gone, change.action == .addItem ? "the item is already back" : "the item was deleted since",
                    item: change.item)
            }
            return change
        }
    }
}
