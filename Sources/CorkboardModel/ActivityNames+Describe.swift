/// The sentence each operation becomes in the activity feed (issue 43): the verb, the words after
/// the actor's name, and the cards it concerns.
extension ActivityNames {
    typealias Described = (verb: ActivityEntry.Verb, text: String, items: [ItemID])

    /// Describes `op` with `effect`, applied to `board` (the board after it); the names of
    /// collections and sections are the ones before it (`note` runs after).
    ///
    /// The one place a new operation kind gets its words.
    func describe(_ op: BoardOperation, _ effect: Effect, on board: Board) -> Described? {
        let moved = effect.changes.filter { $0.from != nil && $0.to != nil }
        let added = effect.changes.filter { $0.from == nil && $0.to != nil }
        switch op {
        case .move:
            guard let first = moved.first, let from = first.from, let to = first.to else { return nil }
            let names = Self.list(moved.map { board.quotedName(of: $0.item) })
            let source = place(from.collection, from.section)
            let target = place(to.collection, to.section)
            let text =
                source == target ? "moved \(names) within \(target)" : "moved \(names) from \(source) to \(target)"
            return (.moved, text, moved.map(\.item))
        case .copy, .insert, .commitPlaceholder:
            let changed = op.kind == "commitPlaceholder" ? effect.changes : added
            guard let first = changed.first, let to = first.to ?? board.position(of: first.item) else { return nil }
            let names = Self.list(changed.map { board.quotedName(of: $0.item) })
            let verb: ActivityEntry.Verb = op.kind == "copy" ? .copied : .added
            return (verb, "\(verb.rawValue) \(names) to \(place(to.collection, to.section))", changed.map(\.item))
        case .insertPlaceholder, .deletePlaceholder:
            return nil
        case .delete, .moveOut:
            guard !effect.removed.isEmpty else { return nil }
            let names = Self.list(effect.removed.map(\.quotedName))
            let items = effect.removed.map(\.id)
            if op.kind == "moveOut" { return (.moved, "moved \(names) to another board", items) }
            guard let from = effect.changes.first?.from else { return (.deleted, "deleted \(names)", items) }
            return (.deleted, "deleted \(names) from \(place(from.collection, from.section))", items)
        case .restore:
            // Cards come back with their place; a section or collection restored empty has none.
            guard let first = added.first, let to = first.to else {
                return (.restored, "restored a section or collection from the Trash", [])
            }
            let names = Self.list(added.map { board.quotedName(of: $0.item) })
            return (.restored, "restored \(names) to \(place(to.collection, to.section))", added.map(\.item))
        case .emptyTrash:
            return (.deleted, "emptied the Trash", [])
        case .updateItem(let u):
            return (.edited, "edited \(board.quotedName(of: u.item))", [u.item])
        case .updateCard(let u):
            return describe(u, on: board)
        case .checklist(let c):
            return (.edited, "changed the checklists of \(board.quotedName(of: c.item))", [c.item])
        case .createCollection(let c):
            return (.createdCollection, "added the collection \(Self.titled(c.title, or: "(untitled)"))", [])
        case .renameCollection(let r):
            let old = collections[r.collection].map { Self.titled($0, or: "(untitled)") } ?? "a collection"
            return (
                .renamedCollection, "renamed the collection \(old) to \(Self.titled(r.title, or: "(untitled)"))", []
            )
        case .deleteCollection(let d):
            return (
                .deletedCollection, "deleted the collection \(place(d.collection, nil))", effect.changes.map(\.item)
            )
        case .moveCollection(let m):
            return (.movedCollection, "moved the collection \(place(m.collection, nil))", [])
        case .setAccepts(let s):
            return (.changedCollection, "changed what \(place(s.collection, nil)) accepts", [])
        case .setLayout(let s):
            return (.changedCollection, "switched \(place(s.collection, nil)) to a \(s.layout.rawValue)", [])
        case .createSection(let s):
            return (
                .createdSection,
                "added the section \(Self.titled(s.title, or: "(untitled)")) to \(place(s.collection, nil))", []
            )
        case .renameSection(let r):
            let old = sections[r.section].map { Self.titled($0.title, or: "(untitled)") } ?? "a section"
            return (.renamedSection, "renamed the section \(old) to \(Self.titled(r.title, or: "(untitled)"))", [])
        case .deleteSection(let d):
            let name = sections[d.section].map { Self.titled($0.title, or: "(untitled)") } ?? "a section"
            return (.deletedSection, "deleted the section \(name)", effect.changes.map(\.item))
        case .moveSection(let m):
            let name = sections[m.section].map { Self.titled($0.title, or: "(untitled)") } ?? "a section"
            return (.movedSection, "moved the section \(name)", [])
        case .renameBoard(let r):
            guard let title = r.title, !title.isEmpty else {
                return (.renamedBoard, "gave the board back its original name", [])
            }
            return (.renamedBoard, "renamed the board to \(ItemNames.cut(title))", [])
        case .setLabel(let s):
            return (.changedLabels, "changed the label \(Self.titled(s.label.name, or: "(unnamed)"))", [])
        case .deleteLabel:
            return (.changedLabels, "deleted a label", [])
        case .addComment(let c):
            return (.commented, "commented on \(board.quotedName(of: c.item))", [c.item])
        case .editComment(let c):
            return (.commented, "edited a comment on \(board.quotedName(of: c.item))", [c.item])
        case .deleteComment(let c):
            return (.commented, "deleted a comment on \(board.quotedName(of: c.item))", [c.item])
        case .batch:
            // An undo or redo of several steps: what it touched.
            let items = effect.changes.map(\.item)
            guard !items.isEmpty else { return (.changed, "undid or redid a change", []) }
            let names = Self.list(items.map { board.contains($0) ? board.quotedName(of: $0) : ItemNames.deleted })
            return (.changed, "undid or redid a change to \(names)", items)
        }
    }

    /// A card's details: the first of its changes people notice most.
    private func describe(_ u: BoardOperation.UpdateCard, on board: Board) -> Described {
        let name = board.quotedName(of: u.item)
        let text: String
        var verb = ActivityEntry.Verb.edited
        if u.description != nil {
            text = "edited the description of \(name)"
        } else if let done = u.done {
            text = done ? "marked \(name) done" : "marked \(name) not done"
        } else if u.dates != nil {
            text = "changed the dates of \(name)"
        } else if u.assign != nil || u.unassign != nil {
            text = "changed who is on \(name)"
        } else {
            verb = .labelled
            text = "changed the labels of \(name)"
        }
        return (verb, text, [u.item])
    }
}
