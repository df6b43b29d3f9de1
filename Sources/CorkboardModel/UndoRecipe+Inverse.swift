// The reverse of a recorded operation, made against the board as it is now (R13).

extension UndoRecipe {
    /// The operation that reverses the recorded one on `board` as it is now: one operation, or a
    /// `batch` when it takes several.
    ///
    /// Items that vanished since are skipped; when nothing is left to reverse the rejection is
    /// `gone`. A title, accepts list, layout or content someone changed since is not overwritten:
    /// `conflict`. Created items are not deleted when someone changed them or put cards into them
    /// since (`conflict`). What the sequencer then refuses (a lease, a vanished destination,
    /// `accepts`) refuses the undo too. A rejection's message is a clause for a sentence ("it was
    /// deleted since"), without a final period.
    ///
    /// - Parameters:
    ///   - board: The board now.
    ///   - clientId: The client undoing (a batch's parts are tried on a copy of the board as it).
    ///   - opId: The undo's opId.
    ///   - boardTitle: The board's title when it has none of its own (it was never renamed).
    /// - Complexity: O(items named + size of restored trees); a recipe of several parts copies the
    ///   board (O(n)).
    public func inverse(on board: Board, clientId: String, opId: String, boardTitle: String) throws(Rejection)
        -> BoardOperation
    {
        let ops = try inverseParts(on: board, clientId: clientId, opId: opId, boardTitle: boardTitle)
        return ops.count == 1 ? ops[0] : .batch(BoardOperation.Batch(ops: ops))
    }

    private func inverseParts(on board: Board, clientId: String, opId: String, boardTitle: String)
        throws(Rejection) -> [BoardOperation]
    {
        switch step {
        case .moveBack(let runs):
            var ops: [BoardOperation] = []
            for run in runs {
                let alive = run.elements.filter(board.contains)
                if alive.isEmpty { continue }
                ops.append(.move(BoardOperation.Move(items: alive, destination: run.origin.destination)))
            }
            if ops.isEmpty { throw Rejection(.gone, "the cards were deleted since") }
            return ops
        case .remove(let roots, let created):
            let alive = roots.filter(board.contains)
            if alive.isEmpty { throw Rejection(.gone, "it was deleted since") }
            for root in alive {
                guard let tree = board.item(root) else { continue }
                var foreign: Item?
                var changed: Item?
                func visit(_ item: Item) {
                    guard let content = created[item.id] else {
                        if foreign == nil { foreign = item }
                        return
                    }
                    if content != item.representations, changed == nil { changed = item }
                    for child in item.children ?? [] { visit(child) }
                }
                visit(tree)
                if foreign != nil {
                    throw Rejection(
                        .conflict,
                        "someone put cards into \(tree.quotedName) since; undo never deletes their cards", item: root)
                }
                if let changed {
                    throw Rejection(
                        .conflict, "\(changed.quotedName) was changed since; undo never deletes someone's change",
                        item: changed.id)
                }
            }
            return [.delete(BoardOperation.Delete(items: alive))]
        case .restore(let runs):
            var ops: [BoardOperation] = []
            for run in runs {
                let trees = run.elements.filter { !board.contains($0.id) && $0.placeholder == nil }
                if trees.isEmpty { continue }
                ops.append(
                    .insert(BoardOperation.Insert(items: trees.map(NewItem.init), destination: run.origin.destination)))
            }
            if ops.isEmpty { throw Rejection(.gone, "the cards are already back on the board") }
            return ops
        case .revertContent(let item, let old, let version):
            guard let now = board.item(item) else { throw Rejection(.gone, "it was deleted since", item: item) }
            guard now.version == version else {
                throw Rejection(
                    .conflict,
                    "\(now.quotedName) was changed again since your edit; undoing would overwrite that change",
                    item: item)
            }
            return [.updateItem(BoardOperation.UpdateItem(item: item, representations: old, version: version))]
        case .removeComment(let item, let comment):
            guard board.comment(comment, on: item) != nil else {
                throw Rejection(.gone, "the comment or its card was deleted since", item: item)
            }
            return [.deleteComment(BoardOperation.DeleteComment(item: item, comment: comment))]
        case .revertComment(let item, let comment, let old, let version):
            guard let now = board.comment(comment, on: item) else {
                throw Rejection(.gone, "the comment or its card was deleted since", item: item)
            }
            guard now.version == version else {
                throw Rejection(
                    .conflict, "the comment was edited again since; undoing would overwrite that", item: item)
            }
            return [.editComment(BoardOperation.EditComment(item: item, comment: comment, text: old, version: version))]
        case .restoreComment(let item, let comment, let index):
            guard board.contains(item) else { throw Rejection(.gone, "its card was deleted since", item: item) }
            guard board.comment(comment.id, on: item) == nil else {
                throw Rejection(.gone, "the comment is already back", item: item)
            }
            return [
                .addComment(BoardOperation.AddComment(item: item, text: comment.text, restore: comment, index: index))
            ]
        case .revertChecklist(let change):
            return [.checklist(try Self.checklistInverse(change, on: board))]
        case .relabel(let now, let old):
            guard board.label(now.id) == now else {
                throw Rejection(
                    .conflict,
                    "the label \(Self.quoted(now.name)) was changed or deleted since; undoing would overwrite that")
            }
            if let old { return [.setLabel(BoardOperation.SetLabel(label: old))] }
            guard board.cards(carrying: now.id).isEmpty else {
                throw Rejection(
                    .conflict,
                    "someone put the label \(Self.quoted(now.name)) on cards since; undo never takes it off them")
            }
            return [.deleteLabel(BoardOperation.DeleteLabel(label: now.id))]
        case .restoreLabel(let label, let index, let cards):
            guard board.label(label.id) == nil else { throw Rejection(.gone, "the label is already back") }
            return [.setLabel(BoardOperation.SetLabel(label: label, index: index))]
                + cards.filter(board.contains).map {
                    .updateCard(BoardOperation.UpdateCard(item: $0, addLabels: [label.id]))
                }
        case .revertCard(var update):
            guard let now = board.item(update.item) else {
                throw Rejection(.gone, "it was deleted since", item: update.item)
            }
            // Labels deleted from the board since cannot go back on the card.
            update.addLabels = update.addLabels.map { $0.filter { board.label($0) != nil } }
            if update.addLabels?.isEmpty == true { update.addLabels = nil }
            if update.isEmpty { throw Rejection(.gone, "it changed nothing that could be put back", item: update.item) }
            let details = now.details ?? CardDetails()
            let stale =
                [
                    update.description.flatMap { $0.version == details.descriptionVersion ? nil : "description" },
                    update.dates.flatMap { $0.version == details.datesVersion ? nil : "dates" },
                ].compactMap { $0 }.first
            if let stale {
                throw Rejection(
                    .conflict,
                    "the \(stale) of \(now.quotedName) was changed again since your change; undoing would overwrite it",
                    item: update.item)
            }
            return [.updateCard(update)]
        case .restoreSection(let collection, let section, let index):
            guard board.collectionIndex[collection] != nil else {
                throw Rejection(.notFound, "the collection it was in was deleted since")
            }
            var ops: [BoardOperation] = [
                .createSection(
                    BoardOperation.CreateSection(
                        collection: collection, id: section.id, title: section.title, index: index))
            ]
            let trees = section.items.filter { !board.contains($0.id) && $0.placeholder == nil }
            if !trees.isEmpty {
                ops.append(
                    .insert(
                        BoardOperation.Insert(
                            items: trees.map(NewItem.init),
                            destination: Destination(collection: collection, section: section.id, index: 0))))
            }
            return ops
        case .restoreCollection(let collection, let index):
            var ops: [BoardOperation] = [
                .createCollection(
                    BoardOperation.CreateCollection(
                        id: collection.id, title: collection.title, layout: collection.layout,
                        accepts: collection.accepts, index: index,
                        sections: collection.sections.map { BoardOperation.NewSection(id: $0.id, title: $0.title) }))
            ]
            for section in collection.sections {
                let trees = section.items.filter { !board.contains($0.id) && $0.placeholder == nil }
                if trees.isEmpty { continue }
                ops.append(
                    .insert(
                        BoardOperation.Insert(
                            items: trees.map(NewItem.init),
                            destination: Destination(collection: collection.id, section: section.id, index: 0))))
            }
            return ops
        case .deleteCollection(let id, _):
            guard let index = board.collectionIndex[id] else { throw Rejection(.gone, "it was deleted since") }
            let node = board.collectionNodes[index]
            if node.sections.contains(where: { !board.sectionNodes[Int($0)].items.isEmpty }) {
                throw Rejection(
                    .conflict, "it holds cards now; delete it from its menu if you mean to delete them too")
            }
            return [.deleteCollection(BoardOperation.DeleteCollection(collection: id))]
        case .deleteSection(let id, _):
            guard let slot = board.sectionSlots[id] else { throw Rejection(.gone, "it was deleted since") }
            if !board.sectionNodes[Int(slot)].items.isEmpty {
                throw Rejection(
                    .conflict, "it holds cards now; delete it from its menu if you mean to delete them too")
            }
            return [.deleteSection(BoardOperation.DeleteSection(section: id))]
        case .retitleCollection(let id, let now, let old):
            guard let index = board.collectionIndex[id] else { throw Rejection(.gone, "it was deleted since") }
            let current = board.collectionNodes[index].title
            guard current == now else { throw renamed(current) }
            return [.renameCollection(BoardOperation.RenameCollection(collection: id, title: old))]
        case .retitleSection(let id, let now, let old):
            guard let slot = board.sectionSlots[id] else { throw Rejection(.gone, "it was deleted since") }
            let current = board.sectionNodes[Int(slot)].title
            guard current == now else { throw renamed(current) }
            return [.renameSection(BoardOperation.RenameSection(section: id, title: old))]
        case .retitleBoard(let now, let old):
            let current = board.title ?? boardTitle
            guard current == now ?? boardTitle else { throw renamed(current) }
            return [.renameBoard(BoardOperation.RenameBoard(title: old))]
        case .reaccept(let id, let now, let old):
            guard let index = board.collectionIndex[id] else { throw Rejection(.gone, "it was deleted since") }
            guard board.collectionNodes[index].accepts == now else {
                throw Rejection(.conflict, "someone changed what it takes since; undoing would overwrite that change")
            }
            return [.setAccepts(BoardOperation.SetAccepts(collection: id, accepts: old))]
        case .relayout(let id, let now, let old):
            guard let index = board.collectionIndex[id] else { throw Rejection(.gone, "it was deleted since") }
            guard board.collectionNodes[index].layout == now else {
                throw Rejection(.conflict, "someone switched its layout since; undoing would overwrite that change")
            }
            return [.setLayout(BoardOperation.SetLayout(collection: id, layout: old))]
        case .moveCollectionBack(let id, let index):
            guard board.collectionIndex[id] != nil else { throw Rejection(.gone, "it was deleted since") }
            return [.moveCollection(BoardOperation.MoveCollection(collection: id, index: index))]
        case .moveSectionBack(let id, let index):
            guard board.sectionSlots[id] != nil else { throw Rejection(.gone, "it was deleted since") }
            return [.moveSection(BoardOperation.MoveSection(section: id, index: index))]
        case .notUndoable(let reason):
            throw Rejection(.invalid, reason)
        case .restoreTrash, .trashAgain:
            return try Self.inverseTrash(step, on: board)
        case .parts(let parts):
            // Last part first, each against the board the previous reversal left; a part with
            // nothing left to reverse is skipped.
            var scratch = board
            var ops: [BoardOperation] = []
            var lastGone: Rejection?
            for part in parts.reversed() {
                let reversed: [BoardOperation]
                do throws(Rejection) {
                    reversed = try part.inverseParts(
                        on: scratch, clientId: clientId, opId: opId, boardTitle: boardTitle)
                } catch {
                    guard error.code == .gone else { throw error }
                    lastGone = error
                    continue
                }
                for op in reversed {
                    do throws(Rejection) {
                        try scratch.apply(op, clientId: clientId, opId: opId)
                        ops.append(op)
                    } catch {
                        guard error.code == .gone else { throw error }
                    }
                }
            }
            if ops.isEmpty { throw lastGone ?? Rejection(.gone, "there is nothing left to change") }
            return ops
        }
    }

    private func renamed(_ current: String) -> Rejection {
        Rejection(
            .conflict,
            "someone renamed it since (it is now \(UndoRecipe.quoted(current))); undoing would overwrite that change")
    }
}
