extension Board {
    /// `checklist` (R16): one change to a card's checklists, by id, or nothing.
    ///
    /// - Complexity: O(checklist items of the card + length of the texts).
    mutating func applyChecklist(_ change: BoardOperation.ChecklistChange) throws(Rejection) -> Effect {
        let slot = try updatableSlot(change.item)
        var details = cardDetails[slot] ?? CardDetails()
        try details.apply(change)
        setDetails(details, of: slot)
        return unmoved(slot)
    }
}

extension CardDetails {
    /// Applies a `checklist` change, or throws and changes nothing (`invalid` naming the field
    /// for a change that passes its bounds on its own).
    mutating func apply(_ change: BoardOperation.ChecklistChange) throws(Rejection) {
        if let problem = change.problem {
            throw Rejection(.invalid, problem.message, field: problem.field, item: change.item)
        }
        let itemCount = checklists.reduce(0) { $0 + $1.items.count }
        func refuse(_ code: RejectCode, _ message: String, _ field: String) -> Rejection {
            Rejection(code, message, field: field, item: change.item)
        }
        if change.action == .add {
            guard !checklists.contains(where: { $0.id == change.checklist }) else {
                throw refuse(.duplicateID, "The card already has checklist \(change.checklist).", "checklist")
            }
            guard checklists.count < CardLimits.checklists else {
                throw refuse(
                    .invalid, "A card holds at most \(CardLimits.checklists) checklists; delete one first.",
                    "checklist")
            }
            let restored = change.restore ?? []
            let ids = Set(checklists.flatMap { $0.items.map(\.id) })
            if let taken = restored.first(where: { ids.contains($0.id) }) {
                throw refuse(.duplicateID, "The card already has checklist item \(taken.id).", "restore")
            }
            guard itemCount + restored.count <= CardLimits.checklistItems else {
                throw refuse(
                    .invalid, "A card holds at most \(CardLimits.checklistItems) checklist items; delete some first.",
                    "restore")
            }
            let list = Checklist(id: change.checklist, name: change.name ?? "", items: restored)
            checklists.insert(list, at: min(change.index ?? checklists.count, checklists.count))
            return
        }
        guard let at = checklists.firstIndex(where: { $0.id == change.checklist }) else {
            throw refuse(
                .notFound, "The card has no checklist \(change.checklist); it may have been deleted.", "checklist")
        }
        switch change.action {
        case .add: return
        case .rename:
            if let from = change.from, from != checklists[at].name {
                throw refuse(
                    .conflict,
                    "The checklist was renamed to “\(checklists[at].name)” while you were editing it; your name is "
                        + "kept: look at the new one and save again.", "from")
            }
            checklists[at].name = change.name ?? ""
        case .delete:
            checklists.remove(at: at)
        case .addItem:
            let id = change.entry!
            guard !checklists.contains(where: { $0.items.contains { $0.id == id } }) else {
                throw refuse(.duplicateID, "The card already has checklist item \(id).", "entry")
            }
            guard itemCount < CardLimits.checklistItems else {
                throw refuse(
                    .invalid, "A card holds at most \(CardLimits.checklistItems) checklist items; delete some first.",
                    "entry")
            }
            let items = checklists[at].items
            checklists[at].items.insert(
                Checklist.Entry(id: id, text: change.text ?? "", done: change.done ?? false),
                at: min(change.index ?? items.count, items.count))
        case .check, .renameItem, .deleteItem, .moveItem:
            guard let index = checklists[at].items.firstIndex(where: { $0.id == change.entry }) else {
                throw refuse(
                    .notFound,
                    "The checklist has no item \(change.entry?.rawValue ?? ""); it may have been deleted.", "entry")
            }
            try applyToEntry(change, list: at, index: index)
        }
    }

    private mutating func applyToEntry(_ change: BoardOperation.ChecklistChange, list: Int, index: Int)
        throws(Rejection)
    {
        switch change.action {
        case .check:
            checklists[list].items[index].done = change.done ?? false
        case .renameItem:
            let now = checklists[list].items[index].text
            if let from = change.from, from != now {
                throw Rejection(
                    .conflict,
                    "The checklist item was changed to “\(now)” while you were editing it; your text is kept: look "
                        + "at the new one and save again.", field: "from", item: change.item)
            }
            checklists[list].items[index].text = change.text ?? ""
        case .deleteItem:
            checklists[list].items.remove(at: index)
        case .moveItem:
            let entry = checklists[list].items.remove(at: index)
            let count = checklists[list].items.count
            checklists[list].items.insert(entry, at: min(change.index ?? count, count))
        case .add, .rename, .delete, .addItem:
            break
        }
    }

    /// The change that puts back what `change` does to these details (the details before it), or
    /// `nil` when it would do nothing here (R13). A rename's reverse is made on the name it
    /// leaves, so that someone's later rename refuses it `conflict`.
    ///
    /// - Complexity: O(checklist items of the card).
    public func reverse(of change: BoardOperation.ChecklistChange) -> BoardOperation.ChecklistChange? {
        guard let at = checklists.firstIndex(where: { $0.id == change.checklist }) else {
            return change.action == .add
                ? BoardOperation.ChecklistChange(item: change.item, checklist: change.checklist, action: .delete) : nil
        }
        let list = checklists[at]
        var back = BoardOperation.ChecklistChange(
            item: change.item, checklist: change.checklist, action: change.action, entry: change.entry)
        switch change.action {
        case .add: return nil
        case .rename:
            (back.name, back.from) = (list.name, change.name)
        case .delete:
            (back.action, back.name, back.index) = (.add, list.name, at)
            back.restore = list.items
        case .addItem:
            back.action = .deleteItem
        case .check, .renameItem, .deleteItem, .moveItem:
            guard let index = list.items.firstIndex(where: { $0.id == change.entry }) else { return nil }
            let entry = list.items[index]
            switch change.action {
            case .check: back.done = entry.done
            case .renameItem: (back.text, back.from) = (entry.text, change.text)
            case .deleteItem:
                (back.action, back.text, back.done, back.index) = (.addItem, entry.text, entry.done, index)
            default: back.index = index
            }
        }
        return back
    }
}
