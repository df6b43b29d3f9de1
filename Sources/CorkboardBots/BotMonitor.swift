import CorkboardModel
import CorkboardProtocol
import Synchronization

/// Watches every message a bot's connection receives (on the client's service thread, so it only
/// records) for what the checks need afterwards: the answers to bad messages, and any committed
/// operation that came from one.
final class BotMonitor: Sendable {
    private struct Record {
        var answers: [String: [String]] = [:]
        var badCommits: [String] = []
        var received = 0
    }

    private let record = Mutex(Record())

    /// Records one message; wire it as `BoardConnection.Options.onMessage`.
    func observe(_ message: ServerMessage) {
        let ref = message.ref
        var badCommit: String?
        switch message {
        case .op(let committed) where committed.opId.hasPrefix(BadInput.prefix):
            badCommit = "seq \(committed.seq) committed \(committed.op.kind) \(committed.opId) of \(committed.clientId)"
        case .ack(let ack) where ack.opId.hasPrefix(BadInput.prefix) && ack.outcome.committed != nil:
            badCommit = "the ack of \(ack.opId) says committed"
        default:
            break
        }
        record.withLock { record in
            record.received += 1
            if let ref, ref.hasPrefix(BadInput.prefix) { record.answers[ref, default: []].append(message.type) }
            if let badCommit, record.badCommits.count < 20 { record.badCommits.append(badCommit) }
        }
    }

    /// Messages received.
    var received: Int { record.withLock { $0.received } }

    /// The types of the messages that answered `ref`, in arrival order.
    func answers(to ref: String) -> [String] { record.withLock { $0.answers[ref] ?? [] } }

    /// Committed operations whose opId marks them as bad input (there must be none).
    var badCommits: [String] { record.withLock { $0.badCommits } }
}
