// libFuzzer target: the model's apply. The input's bytes choose a sequence of operations (kinds,
// items, destinations, anchors, intents) from two clients on a small board; each goes through the
// Sequencer (through each client's undo history), some steps are an undo or redo (R13), and after
// every step the board must satisfy its invariants (R1 exactly once, no cycle, consistent indexes)
// and a replay of the committed log must give the same board.
import CorkboardModel

/// Reads choices from the input; 0 once it is used up.
struct Choices {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0

    mutating func next(_ bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return Int(bytes[at]) % bound
    }

    var exhausted: Bool { at >= bytes.count }
}

private func text(_ s: String) -> [Representation] { [Representation(type: "public.plain-text", value: s)] }

private func startingBoard() -> Board {
    let main = (0..<3).map { s in
        Section(
            id: SectionID("s\(s)"),
            items: (0..<3).map { i in Item(id: ItemID("i\(s)\(i)"), representations: text("\(s)\(i)")) })
    }
    let photos = BoardCollection(id: "p", accepts: ["public.image"], sections: [Section(id: "p0")])
    return try! Board(collections: [BoardCollection(id: "c", sections: main), photos])
}

private func operation(_ c: inout Choices, on board: Board, me: String, step: Int) -> BoardOperation? {
    var sections: [(CollectionID, SectionID)] = []
    for collection in board.collectionIDs {
        for section in board.sectionIDs(in: collection) ?? [] { sections.append((collection, section)) }
    }
    let items = board.allItemIDs.sorted() + ["ghost"]
    func pick() -> ItemID { items[c.next(items.count)] }
    func some() -> [ItemID] { (0...c.next(3)).map { _ in pick() } }
    func destination() -> Destination? {
        guard !sections.isEmpty else { return nil }
        let (collection, section) = sections[c.next(sections.count)]
        let list = board.itemIDs(in: section) ?? []
        let index = c.next(list.count + 2)
        let intents: [DropIntent] = [.unspecified, .insertAtDestinationIndexPath, .insertIntoDestinationIndexPath]
        return Destination(
            collection: collection, section: section, index: index,
            after: c.next(3) == 0 ? pick() : (index > 0 && index <= list.count ? list[index - 1] : nil),
            before: index < list.count ? list[index] : nil, intent: intents[c.next(3)],
            target: c.next(2) == 0 ? pick() : nil)
    }
    switch c.next(12) {
    case 0, 1, 2: return destination().map { .move(.init(items: some(), destination: $0)) }
    case 3: return destination().map { .copy(.init(items: some(), destination: $0)) }
    case 4:
        let child = NewItem(representations: text("child"))
        return destination().map {
            .insert(
                .init(
                    items: [NewItem(representations: text("n\(step)"), children: c.next(2) == 0 ? [child] : nil)],
                    destination: $0))
        }
    case 5: return .delete(.init(items: some()))
    case 6: return destination().map { .insertPlaceholder(.init(destination: $0, createdAt: Double(step))) }
    case 7:
        guard let mine = board.placeholders(ownedBy: me).first else { return nil }
        return c.next(2) == 0
            ? .deletePlaceholder(.init(item: mine)) : .commitPlaceholder(.init(item: mine, representations: text("d")))
    case 8:
        if c.next(3) == 0 { return checklistChange(on: pick(), board: board, me: me, step: step, c: &c) }
        guard c.next(2) == 0 else { return .updateItem(.init(item: pick(), representations: text("u\(step)"))) }
        // R16: a card's details, on a version that may be stale, with assignees as sets.
        let item = pick()
        let seen = board.details(of: item) ?? CardDetails()
        let people = ["Ada", "Bob", "Cy"]
        return .updateCard(
            .init(
                item: item,
                description: c.next(2) == 0 ? .init("d\(step)", version: seen.descriptionVersion - c.next(2)) : nil,
                dates: c.next(2) == 0 ? .init(due: step, start: c.next(2) == 0 ? step - 1 : nil) : nil,
                done: c.next(3) == 0 ? nil : c.next(2) == 0, assign: [people[c.next(3)]],
                unassign: c.next(2) == 0 ? [people[c.next(3)]] : nil))
    case 9: return .createSection(.init(collection: "c", id: SectionID("\(me)-\(c.next(3))"), index: c.next(4)))
    case 10:
        guard !sections.isEmpty else { return nil }
        let section = sections[c.next(sections.count)].1
        return c.next(2) == 0
            ? .deleteSection(.init(section: section)) : .moveSection(.init(section: section, index: c.next(4)))
    default: return .moveOut(.init(items: some()))
    }
}

/// A checklist change (R16) by id, on a checklist or item that may be gone, with a text that may be blank.
private func checklistChange(on item: ItemID, board: Board, me: String, step: Int, c: inout Choices)
    -> BoardOperation
{
    let lists = board.details(of: item)?.checklists ?? []
    let list = lists.isEmpty || c.next(6) == 0 ? ChecklistID("k\(c.next(3))") : lists[c.next(lists.count)].id
    let entries = lists.first { $0.id == list }?.items ?? []
    let entry =
        entries.isEmpty || c.next(6) == 0 ? ChecklistEntryID("e\(me)\(step)") : entries[c.next(entries.count)].id
    let action = BoardOperation.ChecklistChange.Action.allCases[c.next(8)]
    let text = c.next(10) == 0 ? " " : "t\(step)"
    return .checklist(
        .init(
            item: item, checklist: list, action: action, entry: action.isItemAction ? entry : nil,
            name: [.add, .rename].contains(action) ? text : nil,
            text: [.addItem, .renameItem].contains(action) ? text : nil,
            done: action == .check ? c.next(2) == 0 : nil,
            index: [.add, .addItem, .moveItem].contains(action) ? c.next(5) : nil))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var choices = Choices(bytes: UnsafeBufferPointer(start: data, count: size))
    let start = startingBoard()
    var sequencer = Sequencer(board: start)
    var history = UndoHistory(boardTitle: "Fuzz")
    var log: [CommittedOperation] = []
    var step = 0
    while !choices.exhausted && step < 200 {
        step += 1
        let me = choices.next(2) == 0 ? "a" : "b"
        let base = max(0, sequencer.head - choices.next(3))
        let opId = "\(me)-\(step)"
        if choices.next(5) == 0 {
            let direction: UndoHistory.Direction = choices.next(3) == 0 ? .redo : .undo
            let answer = history.perform(
                direction, clientId: me, opId: opId, base: base, sequencer: &sequencer, now: Double(step))
            if case .committed(let committed) = answer { log.append(committed) }
            let violations = sequencer.board.checkInvariants()
            guard violations.isEmpty else { fatalError("after \(direction) by \(me): \(violations)") }
            continue
        }
        guard let op = operation(&choices, on: sequencer.board, me: me, step: step) else { continue }
        let outcome = history.submit(
            ClientOperation(opId: opId, clientId: me, base: base, op: op), to: &sequencer, now: Double(step))
        if case .committed(let committed) = outcome { log.append(committed) }
        let violations = sequencer.board.checkInvariants()
        guard violations.isEmpty else { fatalError("after \(op): \(violations)") }
    }
    var replay = start
    for committed in log {
        do {
            _ = try replay.apply(committed)
        } catch {
            fatalError("replaying seq \(committed.seq) failed: \(error)")
        }
    }
    guard replay == sequencer.board else { fatalError("replaying the log gives another board") }
    return 0
}
