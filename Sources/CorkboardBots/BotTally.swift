import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import Synchronization

/// The kinds of action a bot performs.
enum ActionKind: String, CaseIterable, Codable, Sendable {
    /// A drag that moves one item to another place in its own section.
    case reorder
    /// A drag that moves one item to another collection.
    case move
    /// A drag of several items, with more added mid-drag, dropped or cancelled.
    case multiDrag
    /// A drag that drops copies.
    case copy
    /// A placeholder inserted into the Inbox from an outside drag, then committed or deleted.
    case placeholder
    /// A drag or move of items a peer is dragging (`--conflicts`).
    case conflict
    /// One malformed or out-of-range message (`--bad-input`).
    case badInput
    /// A deletion of a copy or note, keeping a long run's board from growing without bound.
    case tidy
    /// A change of a card's details (R16): done, an assignee, a description on the version seen.
    case details
}

/// What one bot did; tallies of several bots add up.
struct BotTally: Sendable, Codable {
    /// Actions started, by kind.
    var actions: [String: Int] = [:]
    /// This bot's operations (drops and submits) the server committed.
    var committed = 0
    /// This bot's operations the server rejected, by rejection code.
    var rejected: [String: Int] = [:]
    /// Items `dragBegin`/`dragAdd` did not lease, by refusal code (`locked` for conflicts).
    var leaseRefusals: [String: Int] = [:]
    /// Drags cancelled with `dragEnd` instead of dropped.
    var cancelledDrags = 0
    /// `proposal` answers received.
    var proposals = 0
    /// Proposals whose operation matched the bot's own prediction on its replica (the rest raced a
    /// peer's change).
    var proposalsPredicted = 0
    /// Proposals by operation (`move`, `copy`, `forbidden`, `cancel`).
    var proposalOperations: [String: Int] = [:]
    /// Proposals that did not echo the session or target asked about (a server bug).
    var proposalMismatches: [String] = []
    /// Actions that failed on the client side, by error code (`timed-out`, `closed`, `refused:<code>`).
    var failures: [String: Int] = [:]
    /// The bad-input checks.
    var badInput = BadInputTally()

    /// Counts an action started.
    mutating func start(_ kind: ActionKind) { actions[kind.rawValue, default: 0] += 1 }

    /// Counts an operation's outcome.
    mutating func count(_ outcome: Outcome) {
        switch outcome {
        case .committed: committed += 1
        case .rejected(let rejection): rejected[rejection.code.rawValue, default: 0] += 1
        }
    }

    /// Counts the items a drag could not lease.
    mutating func count(refusals: [LeaseTable.Refusal]) {
        for refusal in refusals { leaseRefusals[refusal.code.rawValue, default: 0] += 1 }
    }

    /// Counts a failed action.
    mutating func count(failure error: BoardClientError) {
        let key = error.serverError.map { "refused:\($0.code.rawValue)" } ?? error.code.description
        failures[key, default: 0] += 1
    }

    /// Adds another bot's tally.
    mutating func add(_ other: BotTally) {
        actions.merge(other.actions, uniquingKeysWith: +)
        committed += other.committed
        rejected.merge(other.rejected, uniquingKeysWith: +)
        leaseRefusals.merge(other.leaseRefusals, uniquingKeysWith: +)
        cancelledDrags += other.cancelledDrags
        proposals += other.proposals
        proposalsPredicted += other.proposalsPredicted
        proposalOperations.merge(other.proposalOperations, uniquingKeysWith: +)
        proposalMismatches += other.proposalMismatches.prefix(max(0, 20 - proposalMismatches.count))
        failures.merge(other.failures, uniquingKeysWith: +)
        badInput.add(other.badInput)
    }

    /// Actions started, all kinds.
    var actionCount: Int { actions.values.reduce(0, +) }

    /// Rejections, all codes.
    var rejectedCount: Int { rejected.values.reduce(0, +) }
}

/// A bot's tally shared with the progress line while the bot runs.
final class LiveTally: Sendable {
    private let tally = Mutex(BotTally())

    /// The tally now (a copy).
    var value: BotTally { tally.withLock { $0 } }

    /// Changes the tally.
    func update(_ change: (inout BotTally) -> Void) { tally.withLock { change(&$0) } }
}
