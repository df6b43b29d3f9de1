import CorkboardModel
import CorkboardStorage

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
        /// The answer to `prepareMove` when the insert was sequenced: the operations, the lease
        /// epoch they go into the source's transaction with, and their activity entries (issue 43),
        /// which that transaction writes too (absent from a node of an older build: none).
        case prepared(outcome: Outcome, epoch: Int?, operations: [CommittedOperation], activity: ActivityWire?)
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

/// A board's activity entries (`ActivityRecords`) in a `ClusterMessage`: each entry's JSON as
/// text, so it crosses to the other node byte for byte.
struct ActivityWire: Codable, Sendable {
    struct Entry: Codable, Sendable {
        var seq: Int
        var json: String
    }

    var added: [Entry]
    var keepFrom: Int?

    /// The records of a part, or `nil` when it has none.
    init?(_ records: ActivityRecords) {
        guard !records.isEmpty else { return nil }
        added = records.added.map { Entry(seq: $0.seq, json: String(decoding: $0.json, as: UTF8.self)) }
        keepFrom = records.keepFrom
    }

    /// The records again.
    var records: ActivityRecords {
        ActivityRecords(added: added.map { .init(seq: $0.seq, json: Array($0.json.utf8)) }, keepFrom: keepFrom)
    }
}
