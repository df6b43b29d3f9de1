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
