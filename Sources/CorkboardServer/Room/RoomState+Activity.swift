import CorkboardModel
import CorkboardProtocol

/// The board's activity feed (issue 43): each committed operation someone made becomes an entry
/// (`ActivityFeed`), stored with the operation and sent live to the members listening; `activity`
/// requests read pages of it.
extension RoomState {
    /// The colour of an actor the room no longer knows (a drop from another board's member).
    static let unknownActorColor = "#868e96"

    /// Notes a committed operation in the feed and sends its entry to the listeners, once
    /// encoded, with the operation's own outputs (dropped with them if storing it fails).
    mutating func noteActivity(_ committed: CommittedOperation) {
        guard committed.clientId != ClientIdentity.system else { return }
        let member = members.member(ofClient: committed.clientId)
        let actor = ActivityNames.Actor(
            name: member?.name ?? "Someone", clientId: committed.clientId,
            color: member?.color ?? Self.unknownActorColor)
        let at = Int((batchTime.secondsSince1970 * 1000).rounded())
        guard let live = activity.note(committed, on: sequencer.board, by: actor, at: at) else { return }
        outbox.send(live, to: activity.listeners, onRollback: .discard)
    }

    /// Answers `activity` with a page of the feed, and starts or stops sending new entries.
    mutating func answerActivity(_ request: ClientMessage.ActivityRequest, from handle: ConnectionHandle)
        throws(ProtocolError)
    {
        if let item = request.item, !sequencer.board.contains(item) {
            throw ProtocolError(
                .invalidField, "There is no card \(item) on this board; ask for the activity of a card on it.",
                field: "item", ref: request.ref)
        }
        if let live = request.live { activity.listen(handle, live) }
        let page = activity.page(
            durable: durableHead, before: request.before, item: request.item, limit: request.limit ?? 50)
        outbox.send(ActivityCoding.page(ref: request.ref, records: page.entries, more: page.more), to: [handle])
    }
}
