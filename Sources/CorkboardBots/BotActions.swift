import CorkboardClient
import CorkboardModel
import CorkboardProtocol

/// The actions, each chosen from the bot's current view of the board.
extension BotBehavior {
    typealias Place = BoardChoices.Place

    /// Drags one item to another place in its own section.
    mutating func reorder(stop: StopFlag) async throws(BoardClientError) {
        let c = choices
        let crowded = c.places.filter { c.items(in: $0).count >= 2 }
        guard let place = random.pick(crowded) else { return }
        let list = c.items(in: place)
        guard let item = random.pick(list.filter { !c.board.isPlaceholder($0) }),
            let from = list.firstIndex(of: item)
        else { return }
        // Positions count without the moved item: 0...count-1, and not where it stands.
        var to = Int.random(in: 0..<(list.count - 1), using: &random)
        if to >= from { to += 1 }
        guard let (session, granted) = try await beginDrag([item]) else { return }
        let final = c.target(c.destination(at: place, index: to, moving: granted))
        let steps = Int.random(in: 1...3, using: &random)
        _ = try await hover(session: session, items: granted, path: hoverPath(to: final, steps: steps), stop: stop)
        try await drop(session: session, at: choices.destination(at: place, index: to, moving: granted))
    }

    /// Drags one item into another collection: one that accepts it, or now and then one that does
    /// not (the room refuses the drop `forbidden`, which is counted, R5).
    mutating func moveBetweenCollections(stop: StopFlag) async throws(BoardClientError) {
        let c = choices
        guard let item = random.pick(c.draggable), let here = c.place(of: item) else { return }
        let elsewhere = c.places.filter { $0.collection != here.collection }
        let accepting = elsewhere.filter { c.accepts([item], at: $0) }
        let refusing = elsewhere.filter { !accepting.contains($0) }
        let chosen = (random.chance(0.1) ? random.pick(refusing) : nil) ?? random.pick(accepting)
        guard let place = chosen ?? random.pick(elsewhere) else { return }
        let index = Int.random(in: 0...c.items(in: place).count, using: &random)
        guard let (session, granted) = try await beginDrag([item]) else { return }
        let final = c.target(c.destination(at: place, index: index, moving: granted))
        let steps = Int.random(in: 2...5, using: &random)
        _ = try await hover(session: session, items: granted, path: hoverPath(to: final, steps: steps), stop: stop)
        try await drop(session: session, at: choices.destination(at: place, index: index, moving: granted))
    }

    /// Drags one to three items, adds more mid-drag, hovers 4 to 10 ticks at 30 Hz, then drops
    /// (sometimes into an item, R7) or cancels. With `hot`, it takes the first items of the board,
    /// which other bots take too.
    mutating func multiDrag(stop: StopFlag, hot: Bool = false) async throws(BoardClientError) {
        let c = choices
        let pool = hot ? hotItems : c.draggable
        let items = random.pick(upTo: Int.random(in: 1...3, using: &random), of: pool)
        guard let (session, granted) = try await beginDrag(items) else { return }
        let adding = random.pick(upTo: 2, of: c.draggable.filter { !granted.contains($0) })
        let accepting = c.places.filter { c.accepts(granted, at: $0) }
        guard let place = random.chance(0.8) ? random.pick(accepting) ?? random.pick(c.places) : random.pick(c.places)
        else {
            cancelDrag()
            return
        }
        let list = c.items(in: place)
        var destination = c.destination(
            at: place, index: Int.random(in: 0...list.count, using: &random), moving: granted)
        var final = c.target(destination)
        if random.chance(0.1), let into = random.pick(list), let at = list.firstIndex(of: into) {
            destination = .into(into, collection: place.collection, section: place.section)
            final = DragTarget(
                collection: place.collection, section: place.section, index: at, intent: .insertIntoDestinationIndexPath
            )
        }
        let steps = Int.random(in: 4...10, using: &random)
        let (proposal, dragged) = try await hover(
            session: session, items: granted, path: hoverPath(to: final, steps: steps), adding: adding,
            addAt: steps / 2, stop: stop)
        if random.chance(0.15) || (proposal?.operation == .forbidden && random.chance(0.5)) {
            cancelDrag()
            return
        }
        if destination.intent != .insertIntoDestinationIndexPath {
            destination = choices.destination(at: place, index: destination.index, moving: dragged)
        }
        try await drop(session: session, at: destination)
    }

    /// Drags one or two items and drops copies where they are accepted (R6).
    mutating func copy(stop: StopFlag) async throws(BoardClientError) {
        let c = choices
        let items = random.pick(upTo: Int.random(in: 1...2, using: &random), of: c.draggable)
        guard let (session, granted) = try await beginDrag(items) else { return }
        guard let place = random.pick(c.places.filter { c.accepts(granted, at: $0, copy: true) }) else {
            cancelDrag()
            return
        }
        let index = Int.random(in: 0...c.items(in: place).count, using: &random)
        let final = c.target(c.destination(at: place, index: index, moving: []))
        let steps = Int.random(in: 2...5, using: &random)
        _ = try await hover(
            session: session, items: granted, path: hoverPath(to: final, steps: steps), copy: true, stop: stop)
        try await drop(session: session, at: choices.destination(at: place, index: index, moving: []), copy: true)
    }

    /// Drags text in from outside the board over the Inbox, drops it as a placeholder (R8), then
    /// after the "content" loads commits it with text, or deletes it.
    mutating func placeholder(stop: StopFlag) async throws(BoardClientError) {
        guard let inbox = choices.inbox, let clientId = connection.clientId else { return }
        let external = [["public.plain-text"]]
        guard let (session, _) = try await beginDrag([], external: external) else { return }
        let count = choices.items(in: inbox).count
        let final = DragTarget(collection: inbox.collection, section: inbox.section, index: count)
        _ = try await hover(
            session: session, items: [], external: external,
            path: hoverPath(to: final, steps: Int.random(in: 1...3, using: &random)), stop: stop)
        let opId = connection.makeOpID()
        let item = Board.derivedID(clientId: clientId, opId: opId, n: 0)
        // The submit names the session, which ends the drag whatever the outcome.
        liveSession = nil
        openPlaceholder = item
        let insert = try await connection.perform(
            .insertPlaceholder(
                BoardOperation.InsertPlaceholder(
                    destination: choices.destination(
                        at: inbox, index: Int.random(in: 0...count, using: &random), moving: []),
                    representations: [Representation(type: "public.plain-text", value: "Loading…")])),
            opId: opId, session: session, timeout: settings.timeout)
        tally.update { $0.count(insert) }
        guard insert.committed != nil else {
            openPlaceholder = nil
            return
        }
        // The content takes a moment to arrive, as a file or a link would.
        try? await Task.sleep(for: .milliseconds(Int.random(in: 30...200, using: &random)))
        let finish: BoardOperation =
            random.chance(0.7)
            ? .commitPlaceholder(
                BoardOperation.CommitPlaceholder(
                    item: item,
                    representations: [
                        Representation(type: "public.plain-text", value: "A note from \(settings.name(ofBot: index))")
                    ]))
            : .deletePlaceholder(BoardOperation.DeletePlaceholder(item: item))
        let outcome = try await connection.perform(finish, timeout: settings.timeout)
        openPlaceholder = nil
        tally.update { $0.count(outcome) }
    }

    /// Targets items a peer is dragging (R9): either grabs them (leases refused `locked`, or granted
    /// when the peer just dropped, then dropped where the peer hovers: concurrent drops on the same
    /// items) or moves them outright (rejected `locked` while the peer holds them). With no peer
    /// dragging, drags the hot items the other bots also grab.
    mutating func conflict(stop: StopFlag) async throws(BoardClientError) {
        let peers = connection.state.drags.filter { !$0.items.isEmpty }
        guard let drag = random.pick(peers) else {
            try await multiDrag(stop: stop, hot: true)
            return
        }
        let c = choices
        let items = Array(drag.items.prefix(3)).filter(c.board.contains)
        guard !items.isEmpty else { return }
        let place =
            drag.target.flatMap { t in c.places.first { $0.section == t.section } } ?? random.pick(c.places)
        guard let place else { return }
        let index = drag.target?.index ?? 0
        if random.chance(0.5) {
            guard let (session, granted) = try await beginDrag(items) else { return }
            let final = c.target(c.destination(at: place, index: index, moving: granted))
            _ = try await hover(session: session, items: granted, path: [final], stop: stop)
            try await drop(session: session, at: choices.destination(at: place, index: index, moving: granted))
        } else {
            let outcome = try await connection.perform(
                .move(
                    BoardOperation.Move(
                        items: items, destination: c.destination(at: place, index: index, moving: items))),
                timeout: settings.timeout)
            tally.update { $0.count(outcome) }
        }
    }

    /// The first three items of the board's first non-empty section: what `--conflicts` bots fight over.
    var hotItems: [ItemID] {
        let c = choices
        guard let place = c.places.first(where: { !c.items(in: $0).isEmpty }) else { return [] }
        return Array(c.items(in: place).filter { !c.board.isPlaceholder($0) }.prefix(3))
    }

    /// Deletes one copy or note no one is dragging, once the board has grown past `itemLimit`.
    mutating func tidy() async throws(BoardClientError) {
        let c = choices
        let busy = Set(connection.state.drags.flatMap(\.items))
        // Only leaves: a group may hold a card of the original board.
        let candidates = c.derivedItems.filter { !busy.contains($0) && (c.board.children(of: $0) ?? []).isEmpty }
        guard let item = random.pick(candidates) else { return }
        let outcome = try await connection.perform(
            .delete(BoardOperation.Delete(items: [item])), timeout: settings.timeout)
        tally.update { $0.count(outcome) }
    }
}

extension BotBehavior {
    /// Changes one card's details (R16): ticks it done or not, assigns or unassigns itself, and
    /// now and then rewrites the description on the version it sees (a peer's save in between is
    /// refused `conflict`, which is counted like any refusal), comments on it, or works on its
    /// checklist (adds one, adds an item, checks or unchecks one).
    mutating func changeDetails() async throws(BoardClientError) {
        let c = choices
        guard let item = random.pick(c.draggable.filter { !c.board.isPlaceholder($0) }) else { return }
        let seen = connection.replica.view.details(of: item) ?? CardDetails()
        let me = settings.name(ofBot: index)
        if random.chance(0.2), seen.comments.count < CardLimits.comments {
            let comment = BoardOperation.AddComment(item: item, text: "Seen by **\(me)**")
            let outcome = try await connection.perform(.addComment(comment), timeout: settings.timeout)
            tally.update { $0.count(outcome) }
            return
        }
        if random.chance(0.2) {
            let outcome = try await connection.perform(checklistChange(on: item, seen: seen), timeout: settings.timeout)
            tally.update { $0.count(outcome) }
            return
        }
        let assigned = seen.assignees.contains(me)
        let description =
            random.chance(0.3)
            ? BoardOperation.UpdateCard.Description(
                "Checked by **\(me)** at step \(tally.value.actions)", version: seen.descriptionVersion) : nil
        let update = BoardOperation.UpdateCard(
            item: item, description: description, done: random.chance(0.5) ? !seen.done : nil,
            assign: assigned || seen.assignees.count >= CardLimits.assignees ? nil : [me],
            unassign: assigned ? [me] : nil)
        let outcome = try await connection.perform(.updateCard(update), timeout: settings.timeout)
        tally.update { $0.count(outcome) }
    }

    /// A checklist change a person would make on what they see: a checklist when there is none,
    /// else an item while there are few, else a check or uncheck of one (two bots checking the same
    /// item both leave it checked).
    private mutating func checklistChange(on item: ItemID, seen: CardDetails) -> BoardOperation {
        typealias Change = BoardOperation.ChecklistChange
        let step = tally.value.actions
        guard let list = random.pick(seen.checklists) else {
            return .checklist(Change(item: item, checklist: "k-bots", action: .add, name: "Bots' list"))
        }
        if list.items.count < 5 || random.chance(0.2),
            seen.checklists.reduce(0, { $0 + $1.items.count }) < CardLimits.checklistItems
        {
            let entry = ChecklistEntryID("e-\(index)-\(step)-\(random.next() % 1000)")
            return .checklist(
                Change(item: item, checklist: list.id, action: .addItem, entry: entry, text: "Step \(step)"))
        }
        let entry = random.pick(list.items)!
        return .checklist(Change(item: item, checklist: list.id, action: .check, entry: entry.id, done: !entry.done))
    }
}
