import CorkboardModel
public import CorkboardStorage
import Foundation
public import Logging
import Synchronization

/// Drops across boards sequenced by two nodes of a cluster (R6, R14): the calls a source room
/// makes to the node of the destination board, and the answers that node's rooms give, over the
/// cluster's message channel (`ClusterCoordinator.send`, PostgreSQL `NOTIFY`).
///
/// A move stays all or nothing across nodes. The destination room sequences the insert and holds
/// the room (nothing else is sequenced on that board) until the move is decided; the source room
/// stores its `moveOut`, the destination's insert (fenced by the destination's epoch) and the
/// move's id as committed in **one** PostgreSQL transaction. The destination learns the outcome
/// from the source (`moveDecided`) or, when that does not come in time (the source died), from the
/// database: `ClusterCoordinator.decideMove` reads the move's record, or writes it as aborted so a
/// transaction still in flight can no longer commit it. Until decided, nothing of the insert is
/// sent to the destination's members.
public final class RemoteBoards: Sendable {
    let coordinator: any ClusterCoordinator
    let registry: RoomRegistry
    let logger: Logger
    /// How long a call waits for its answer.
    public let callTimeout: Duration
    /// How long a prepared destination waits for the source's word before asking the database.
    public let decisionTimeout: Duration
    /// How long a resent drop keeps asking for a destination board that is between nodes.
    public let recallPatience: Duration
    /// Whether a board exists (in the catalog), wherever it is sequenced.
    let isKnown: @Sendable (String) -> Bool
    private let replies = Mutex<[String: CheckedContinuation<ClusterMessage.Body?, Never>]>([:])
    private let decisions = Mutex<[String: CheckedContinuation<Bool?, Never>]>([:])
    /// Decisions that arrived before their destination started waiting.
    private let early = Mutex<[String: Bool]>([:])

    /// The calls of this node's rooms; registers itself with the rooms' registry.
    public init(
        coordinator: any ClusterCoordinator, registry: RoomRegistry, callTimeout: Duration = .seconds(3),
        decisionTimeout: Duration = .seconds(5), recallPatience: Duration = .seconds(10),
        isKnown: @escaping @Sendable (String) -> Bool, logger: Logger
    ) {
        self.coordinator = coordinator
        self.isKnown = isKnown
        self.registry = registry
        self.callTimeout = callTimeout
        self.decisionTimeout = decisionTimeout
        self.recallPatience = recallPatience
        self.logger = logger
        registry.attach(remote: self)
    }

    /// Answers the messages other nodes send until they stop (`ClusterCoordinator.run()` ends).
    public func run() async {
        for await bytes in coordinator.incoming {
            guard let message = try? JSONDecoder().decode(ClusterMessage.self, from: Data(bytes)) else {
                logger.warning("an undecodable message from another node")
                continue
            }
            receive(message)
        }
    }

    // MARK: Calls (the source's side)

    /// The destination board's proposal for content hovering over it.
    func proposal(board: String, types: [[String]], hover: HoverTarget, key: String?) async -> Proposal {
        switch await call(.proposal(board: board, types: types, hover: hover, key: key), board: board).body {
        case .proposed(let proposal): return proposal
        case .unavailable(let reason): return Proposal(operation: .cancel, intent: hover.intent, reason: reason)
        default:
            return Proposal(operation: .cancel, intent: hover.intent, reason: "The server of \(board) did not answer.")
        }
    }

    /// Asks the destination's node to sequence the insert half of a move; the answer, and the node
    /// to tell the outcome.
    func prepareMove(
        board: String, source: String, insert: BoardOperation.Insert, opId: String, clientId: String, key: String?,
        move: String
    ) async -> (body: ClusterMessage.Body?, node: String?) {
        await call(
            .prepareMove(
                board: board, source: source, insert: insert, opId: opId, clientId: clientId, key: key, move: move),
            board: board)
    }

    /// Copies inserted on the destination board, once durable there.
    func copy(board: String, insert: BoardOperation.Insert, opId: String, clientId: String, key: String?) async
        -> Outcome
    {
        let answer = await call(
            .copy(board: board, insert: insert, opId: opId, clientId: clientId, key: key), board: board)
        switch answer.body {
        case .outcome(let outcome): return outcome
        case .unavailable(let reason): return .rejected(Rejection(.gone, reason))
        default:
            return .rejected(
                Rejection(.gone, "The server of \(board) did not answer in time; the copy may still arrive there."))
        }
    }

    /// What the destination board remembers of a drop's insert half; `nil` when its node could
    /// not be asked. A board between nodes (its node died, its lease has not run out) is asked
    /// again until `recallPatience` has passed, so a drop resent right after a failover is
    /// answered with its first outcome instead of as a drop that never happened.
    func recall(board: String, opId: String, clientId: String, destination: Destination) async -> Sequencer.Recall? {
        let deadline = ContinuousClock.now + recallPatience
        while true {
            let answer = await call(
                .recall(board: board, opId: opId, clientId: clientId, destination: destination), board: board)
            switch answer.body {
            case .recalled(let resend?, _): return .resend(resend)
            case .recalled(_, let conflict?): return .conflict(conflict)
            case .recalled: return .fresh
            default:
                guard ContinuousClock.now < deadline else { return nil }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// Tells the destination how a move ended (best effort: without it, it asks the database).
    func decided(move: String, committed: Bool, node: String) async {
        let message = ClusterMessage(
            id: RandomToken.make(prefix: "q-", bytes: 8), from: coordinator.nodeID,
            body: .moveDecided(move: move, committed: committed))
        guard let bytes = try? JSONEncoder().encode(message) else { return }
        try? await coordinator.send(Array(bytes), to: node)
    }

    /// Sends a request to the node holding `board` and waits for its answer (`nil` on timeout).
    private func call(_ body: ClusterMessage.Body, board: String) async -> (body: ClusterMessage.Body?, node: String?) {
        let holder: ClusterNode
        do {
            guard let current = try await coordinator.lease(of: board), !current.lease.isExpired,
                let node = current.holder
            else { return (.unavailable("Board \(board) is moving between servers; try again."), nil) }
            holder = node
        } catch {
            return (.unavailable("The database cannot be reached: \(error.message)"), nil)
        }
        let message = ClusterMessage(
            id: RandomToken.make(prefix: "q-", bytes: 8), from: coordinator.nodeID, body: body)
        guard let bytes = try? JSONEncoder().encode(message) else { return (nil, holder.id) }
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<ClusterMessage.Body?, Never>) in
            replies.withLock { $0[message.id] = continuation }
            Task {
                do {
                    try await coordinator.send(Array(bytes), to: holder.id)
                } catch {
                    resolve(message.id, .unavailable("The message to \(board)'s server failed: \(error)"))
                }
                try? await Task.sleep(for: callTimeout)
                resolve(message.id, nil)
            }
        }
        return (answer, holder.id)
    }

    private func resolve(_ id: String, _ body: ClusterMessage.Body?) {
        replies.withLock { $0.removeValue(forKey: id) }?.resume(returning: body)
    }

    // MARK: Answers (the destination's side)

    private func receive(_ message: ClusterMessage) {
        switch message.body {
        case .proposed, .prepared, .outcome, .recalled, .unavailable, .busy:
            resolve(message.id, message.body)
        case .moveDecided(let move, let committed):
            let waiter = decisions.withLock { $0.removeValue(forKey: move) }
            if let waiter {
                waiter.resume(returning: committed)
            } else {
                early.withLock { $0[move] = committed }
            }
        case .proposal, .prepareMove, .copy, .recall:
            Task { await answer(message) }
        }
    }

    private func answer(_ request: ClusterMessage) async {
        let body: ClusterMessage.Body
        switch request.body {
        case .proposal(let board, let types, let hover, let key):
            guard let room = registry.room(board) else { return await reply(request, notHere(board)) }
            body = .proposed(await room.foreignProposal(types: types, at: hover, key: key))
        case .copy(let board, let insert, let opId, let clientId, let key):
            guard let room = registry.room(board) else { return await reply(request, notHere(board)) }
            body = .outcome(
                await room.insertCopies(MovedIn(insert: insert, opId: opId, clientId: clientId, key: key)))
        case .recall(let board, let opId, let clientId, let destination):
            guard let room = registry.room(board) else { return await reply(request, notHere(board)) }
            switch await room.recallMovedIn(opId, clientId: clientId, destination: destination) {
            case .resend(let outcome): body = .recalled(resend: outcome, conflict: nil)
            case .conflict(let rejection): body = .recalled(resend: nil, conflict: rejection)
            case .fresh: body = .recalled(resend: nil, conflict: nil)
            // The room is giving the board up: the asker tries again until the next node holds it.
            case nil: return await reply(request, notHere(board))
            }
        case .prepareMove(let board, let source, let insert, let opId, let clientId, let key, let move):
            guard let room = registry.room(board) else { return await reply(request, notHere(board)) }
            let movedIn = MovedIn(insert: insert, opId: opId, clientId: clientId, key: key)
            switch await room.prepareMovedIn(movedIn, from: source, move: move) {
            case .busy:
                await reply(request, .busy)
            case .refused(let outcome):
                await reply(request, .outcome(outcome))
            case .prepared(let outcome, let part):
                await reply(
                    request,
                    .prepared(
                        outcome: outcome, epoch: part.epoch, operations: part.operations,
                        activity: ActivityWire(part.activity)))
                let committed = await decision(of: move)
                logger.info(
                    "a move from another node was decided",
                    metadata: [
                        "board": "\(board)", "move": "\(move)",
                        "committed": "\(committed.map(String.init) ?? "unknown")",
                    ])
                room.finishMovedIn(move: move, committed: committed)
            }
            return
        default:
            return
        }
        await reply(request, body)
    }

    /// How a move this node prepared ended: the source's word, or the database's.
    private func decision(of move: String) async -> Bool? {
        let told: Bool?
        if let hint = early.withLock({ $0.removeValue(forKey: move) }) {
            told = hint
        } else {
            told = await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
                decisions.withLock { $0[move] = continuation }
                Task {
                    try? await Task.sleep(for: decisionTimeout)
                    decisions.withLock { $0.removeValue(forKey: move) }?.resume(returning: nil)
                }
            }
        }
        if told == true { return true }
        // Not told it committed: the database decides (and closes the move if still open).
        for attempt in 0..<20 {
            if attempt > 0 { try? await Task.sleep(for: .milliseconds(250)) }
            if let committed = try? await coordinator.decideMove(move) { return committed }
        }
        return nil
    }

    private func reply(_ request: ClusterMessage, _ body: ClusterMessage.Body) async {
        let message = ClusterMessage(id: request.id, from: coordinator.nodeID, body: body)
        guard let bytes = try? JSONEncoder().encode(message) else { return }
        do {
            try await coordinator.send(Array(bytes), to: request.from)
        } catch {
            logger.warning("answering another node failed", metadata: ["error": "\(error)"])
        }
    }

    private func notHere(_ board: String) -> ClusterMessage.Body {
        .unavailable("Board \(board) is moving between servers; try again.")
    }
}
