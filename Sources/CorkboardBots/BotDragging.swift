import CorkboardClient
import CorkboardModel
import CorkboardProtocol

/// The steps of a drag as a user makes them: begin, hover at 30 Hz with a proposal checked at every
/// step, maybe add items mid-drag, then drop or cancel.
extension BotBehavior {
    /// The interval between two `dropUpdate`s of one drag: 30 Hz, like a browser's drag events.
    static let hoverInterval = Duration.milliseconds(33)

    /// Begins a drag of `items` (and outside content); returns the session and the granted items,
    /// or `nil` when nothing was granted and no drag is live.
    mutating func beginDrag(
        _ items: [ItemID], external: [[String]]? = nil
    ) async throws(BoardClientError) -> (session: String, granted: [ItemID])? {
        guard !items.isEmpty || !(external ?? []).isEmpty else { return nil }
        let session = connection.makeSessionID()
        let grant = try await connection.beginDrag(
            session: session, items: items, external: external, timeout: settings.timeout)
        tally.update { $0.count(refusals: grant.refused) }
        // The room keeps a drag only when something was granted or it carries outside content.
        guard !grant.granted.isEmpty || !(external ?? []).isEmpty else { return nil }
        liveSession = LiveDrag(session: session, link: connection.state.connectionLosses)
        return (session, grant.granted)
    }

    /// Adds items to the live drag; returns every item the drag now holds.
    mutating func addToDrag(
        session: String, _ items: [ItemID], holding held: [ItemID]
    ) async throws(BoardClientError) -> [ItemID] {
        guard !items.isEmpty else { return held }
        let grant = try await connection.addToDrag(session: session, items: items, timeout: settings.timeout)
        tally.update { $0.count(refusals: grant.refused) }
        return held + grant.granted.filter { !held.contains($0) }
    }

    /// A path of `steps` hover targets that wanders over the board and settles on `final`.
    mutating func hoverPath(to final: DragTarget, steps: Int) -> [DragTarget] {
        let places = choices.places
        let wandering = max(0, steps - max(1, steps / 2))
        var path: [DragTarget] = []
        for _ in 0..<wandering {
            guard let place = random.pick(places) else { break }
            let count = choices.items(in: place).count
            path.append(
                DragTarget(
                    collection: place.collection, section: place.section,
                    index: Int.random(in: 0...count, using: &random)
                ))
        }
        while path.count < steps { path.append(final) }
        return path
    }

    /// Hovers along `path` with one `dropUpdate` per 33 ms tick, checking each `proposal` (it must
    /// echo the session and target, and is compared with the bot's own prediction); before step
    /// `addAt` it adds `adding` to the drag. Returns the last proposal and the items now dragged.
    mutating func hover(
        session: String, items: [ItemID], external: [[String]] = [], path: [DragTarget], copy: Bool = false,
        adding: [ItemID] = [], addAt: Int? = nil, stop: StopFlag
    ) async throws(BoardClientError) -> (proposal: Proposal?, items: [ItemID]) {
        let clock = ContinuousClock()
        var items = items
        var last: Proposal?
        var due = clock.now
        for (step, target) in path.enumerated() {
            if step == addAt { items = try await addToDrag(session: session, adding, holding: items) }
            connection.send(
                .cursor(
                    ClientMessage.Cursor(
                        x: Double(20 * step), y: Double(40 * target.index), collection: target.collection)))
            let predicted = choices.proposal(items: items, external: external, at: target, copy: copy).operation
            let answer = try await connection.hover(
                session: session, target: target, copy: copy ? true : nil, timeout: settings.timeout)
            last = answer.proposal
            tally.update { tally in
                tally.proposals += 1
                tally.proposalOperations[answer.proposal.operation.rawValue, default: 0] += 1
                if answer.proposal.operation == predicted { tally.proposalsPredicted += 1 }
                if answer.session != session || answer.target != target, tally.proposalMismatches.count < 20 {
                    tally.proposalMismatches.append(
                        "asked about \(session) at \(target.collection)/\(target.section)[\(target.index)], got "
                            + "\(answer.session) at \(answer.target.collection)/\(answer.target.section)"
                            + "[\(answer.target.index)]")
                }
            }
            due += BotBehavior.hoverInterval
            if stop.isSet { break }
            await stop.sleep(until: due)
        }
        return (last, items)
    }

    /// Drops the live drag and counts the outcome.
    mutating func drop(session: String, at destination: Destination, copy: Bool = false) async throws(BoardClientError)
    {
        // Sent is ended: the room ends the drag whatever the outcome, even if the ack never comes.
        liveSession = nil
        let ack = try await connection.drop(
            session: session, destination: destination, copy: copy, timeout: settings.timeout)
        tally.update { $0.count(ack.outcome) }
    }

    /// Cancels the live drag (`dragEnd`).
    mutating func cancelDrag() {
        endLiveDrag()
        tally.update { $0.cancelledDrags += 1 }
    }

    /// Ends the live drag, if any, with `dragEnd` — unless its link was lost, which ended it already
    /// (a `dragEnd` for it on the new link would only earn an `unknown-session` error).
    mutating func endLiveDrag() {
        guard let drag = liveSession else { return }
        liveSession = nil
        if connection.state.connectionLosses == drag.link { connection.endDrag(session: drag.session) }
    }
}
