public import CorkboardModel

extension BoardOperation {
    /// A random `checklist` change on `item` as a client who sees `seen` would make it (R16), now
    /// and then naming a checklist or item that is not there, a blank text, or a rename made on a
    /// text that changed since, so that every refusal occurs too. `next(n)` picks from `0..<n`.
    public static func randomChecklistChange(
        on item: ItemID, seen: CardDetails, me: String, step: Int, next: (Int) -> Int
    ) -> BoardOperation {
        typealias Change = BoardOperation.ChecklistChange
        let lists = seen.checklists
        // Mostly a checklist and item the card has; now and then one it does not.
        let existing = lists.isEmpty || next(8) == 0 ? nil : lists[next(lists.count)]
        let list = existing?.id ?? ChecklistID("k-\(me)-\(next(3))")
        let entries = existing?.items ?? []
        let entry =
            entries.isEmpty || next(8) == 0 ? ChecklistEntryID("e-\(me)-\(step)") : entries[next(entries.count)].id
        let text = next(12) == 0 ? " " : "t\(step)"
        let seenText = entries.first { $0.id == entry }?.text
        if lists.isEmpty || next(12) == 0 {
            let id = ChecklistID("k-\(me)-\(step % 5)")
            return .checklist(Change(item: item, checklist: id, action: .add, name: text, index: next(3)))
        }
        let fresh = ChecklistEntryID("e-\(me)-\(step)")
        switch entries.count < 3 && next(2) == 0 ? 2 : next(8) {
        case 0:
            let from = next(3) == 0 ? "stale" : existing?.name
            return .checklist(Change(item: item, checklist: list, action: .rename, name: text, from: from))
        case 1:
            // A whole checklist deleted, or an addItem without its entry (refused invalid).
            return .checklist(Change(item: item, checklist: list, action: next(2) == 0 ? .delete : .addItem))
        case 2:
            return .checklist(
                Change(
                    item: item, checklist: list, action: .addItem, entry: fresh, text: text,
                    index: next(2) == 0 ? nil : next(4)))
        case 3: return .checklist(Change(item: item, checklist: list, action: .check, entry: entry, done: next(2) == 0))
        case 4:
            return .checklist(
                Change(
                    item: item, checklist: list, action: .renameItem, entry: entry, text: text,
                    from: next(3) == 0 ? "stale" : seenText))
        case 5: return .checklist(Change(item: item, checklist: list, action: .deleteItem, entry: entry))
        default:
            return .checklist(Change(item: item, checklist: list, action: .moveItem, entry: entry, index: next(5)))
        }
    }
}
