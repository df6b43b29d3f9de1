import CorkboardModel

/// A message between two nodes of a cluster, as JSON through `ClusterCoordinator.send`: a request
/// about a board the receiver sequences, or the answer to one (same `id`).
struct ClusterMessage: Codable, Sendable {
    /// Pairs an answer with its request.
    var id: String
    /// The sending node.
    var from: String
    /// The request or the answer.
    var body: Body

    enum Body: Codable, Sendable {
        /// Propose a drop of items of these types hovering over the board (R5, R6).
        case proposal(board: String, types: [[String]], hover: HoverTarget, key: String?)
        /// The destination's half of a move (R14) from board `source`: sequence the insert, hold the
        /// board until the move is decided, answer `prepared` with the operations to store.
        case prepareMove(
            board: String, source: String, insert: BoardOperation.Insert, opId: String, clientId: String,
            key: String?, move: String)
        /// Insert copies from another board and answer once they are durable (R6).
        case copy(board: String, insert: BoardOperation.Insert, opId: String, clientId: String, key: String?)
        /// What the board remembers of the insert half of a drop (a resent drop, R10).
        case recall(board: String, opId: String, clientId: String, destination: Destination)
        /// The source of a move tells the destination how it ended: `committed` (its transaction
        /// committed), or not written at all (decide it as aborted now instead of waiting).
        case moveDecided(move: String, committed: Bool)

        /// The answer to `proposal`.
        case proposed(Proposal)
        /// The answer to `prepareMove` when the insert was sequenced: the operations and the
        /// lease epoch they go into the source's transaction with.
        case prepared(outcome: Outcome, epoch: Int?, operations: [CommittedOperation])
        /// The answer to `prepareMove` (refused) and to `copy`.
        case outcome(Outcome)
        /// The answer to `recall`: the first outcome of a resend, or the refusal of a conflicting
        /// opId; neither when the drop never happened.
        case recalled(resend: Outcome?, conflict: Rejection?)
        /// The answer to `prepareMove` when the destination is itself moving items to a board of
        /// another node and yields to avoid a cycle of moves waiting on each other: nothing was
        /// sequenced; the source undoes its `moveOut` and tries again in a moment.
        case busy
        /// The receiver does not sequence the board (any more).
        case unavailable(String)
    }
}
