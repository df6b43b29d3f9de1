import DequeModule

/// The board's one sequencer: it decides, in arrival order, whether each client operation commits
/// (getting `seq = head + 1`) or is rejected (no seq, no change).
///
/// A pure state machine: `submit(_:now:)` returns the `Outcome` for the room to send; the room
/// owns the clock and the network. It holds the board, a bounded log of committed operations for
/// resume (R10), and a bounded table of recent outcomes keyed by `(clientId, opId)` so a resent
/// operation gets its first outcome and applies nothing twice. The drag and edit leases (R9, R12)
/// are the room's: it passes them to `submit(_:now:leases:)`, which refuses what they lock.
///
/// A remembered `(clientId, opId)` answers only a resend of the *same* operation (R14): another
/// operation under a used opId is refused `conflict` and changes nothing.
///
/// Retention: the last `Configuration.outcomeRetention` outcomes (default 10,000) are remembered
/// for deduplication, and the last `Configuration.logRetention` committed operations (default
/// 10,000) for resume; a client further behind gets a snapshot instead.
public struct Sequencer: Sendable {
    /// Limits of the sequencer's memory.
    public struct Configuration: Hashable, Sendable {
        /// How many recent outcomes are remembered to answer resends (default 10,000).
        public var outcomeRetention: Int
        /// How many recent committed operations are kept for resuming clients (default 10,000).
        public var logRetention: Int
        /// The largest a board's snapshot may grow, in bytes as `Board.estimatedSnapshotBytes`
        /// counts them (R14): an operation that would pass it is rejected `too-large`. Default
        /// 64 MiB.
        public var maxSnapshotBytes: Int
        /// The most bytes (as `CommittedOperation.estimatedBytes` counts them) the resume log
        /// holds (R18): past it the oldest operations leave it, the newest always stays. Default
        /// 32 MiB.
        public var logBytes: Int
        /// The most bytes the resend memory holds (R18); it keeps outcomes without their content
        /// (`CommittedOperation.withoutContent`), so an entry costs about the same whatever the
        /// operation carried. Default 16 MiB.
        public var outcomeBytes: Int
        /// What the board's Trash keeps at most (R15, R18): deletes and restores sequenced here
        /// evict past it and say so in `effect.evicted`. Default 500 entries, 8 MiB, 30 days.
        public var trash: Trash.Limits

        /// Creates a configuration; every default is spelled out.
        public init(
            outcomeRetention: Int = 10_000, logRetention: Int = 10_000,
            maxSnapshotBytes: Int = SnapshotSize.defaultLimit, logBytes: Int = 32 << 20, outcomeBytes: Int = 16 << 20,
            trash: Trash.Limits = Trash.Limits()
        ) {
            self.outcomeRetention = outcomeRetention
            self.logRetention = logRetention
            self.maxSnapshotBytes = maxSnapshotBytes
            self.logBytes = logBytes
            self.outcomeBytes = outcomeBytes
            self.trash = trash
        }
    }

    private struct Key: Hashable, Sendable {
        var clientId: String
        var opId: String
    }

    /// The board at `head`.
    public private(set) var board: Board
    /// The seq of the last committed operation (0 for a new board).
    public private(set) var head: Int
    /// The configuration.
    public let configuration: Configuration

    /// The resume log: the last `logRetention` committed operations at most, within `logBytes`.
    private var log = Deque<CommittedOperation>()
    /// The bytes of the operations in `log` (`CommittedOperation.estimatedBytes`).
    private var logSize = Deque<Int>()
    /// The sum of `logSize`.
    public private(set) var logBytes = 0

    /// A remembered outcome and a fingerprint of the operation that produced it, so a resend can
    /// be told apart from another operation reusing the opId (R14) without keeping the operation.
    ///
    /// Neither keeps content (R18): a committed outcome is kept `withoutContent` (the full one is
    /// answered while the resume log still holds it), a rejection keeps the request's op without
    /// content, for the kind and destination a resent `drop` is matched by.
    private struct Remembered: Sendable {
        enum Kept: Sendable {
            case committed(CommittedOperation)
            case rejected(Rejection, op: BoardOperation)
        }

        var kept: Kept
        var fingerprint: OperationFingerprint
        var bytes: Int

        init(_ outcome: Outcome, _ op: BoardOperation) {
            switch outcome {
            case .committed(let committed): kept = .committed(committed.withoutContent)
            case .rejected(let rejection): kept = .rejected(rejection, op: op.withoutContent)
            }
            fingerprint = op.resendFingerprint
            switch kept {
            case .committed(let committed): bytes = committed.estimatedBytes
            case .rejected(let rejection, let op):
                bytes = OperationSize.string(rejection.message) + OperationSize.op(op) + 2 * OperationSize.node
            }
        }

        /// The op without content: its kind and destination.
        var op: BoardOperation {
            switch kept {
            case .committed(let committed): committed.op
            case .rejected(_, let op): op
            }
        }

        /// The seq of a committed outcome; `nil` for a rejection.
        var seq: Int? {
            if case .committed(let committed) = kept { return committed.seq }
            return nil
        }
    }

    private var outcomes: [Key: Remembered] = [:]
    /// The remembered keys, oldest first; the oldest is forgotten past `outcomeRetention` or
    /// `outcomeBytes`.
    private var outcomeOrder = Deque<Key>()
    /// The bytes the resend memory holds, about (`Remembered.bytes` and the keys).
    public private(set) var outcomeBytes = 0

    /// Creates a sequencer for a board at a seq (0 for a new board, or a snapshot's seq).
    public init(board: Board = Board(), seq: Int = 0, configuration: Configuration = Configuration()) {
        self.board = board
        self.board.trash.limits = configuration.trash
        self.head = seq
        self.configuration = configuration
    }

    /// Creates a sequencer from a snapshot.
    public init(snapshot: Snapshot, configuration: Configuration = Configuration()) {
        self.init(board: snapshot.board, seq: snapshot.seq, configuration: configuration)
    }

    /// Restores a sequencer after a restart: a snapshot plus the durable log around it.
    ///
    /// Operations after the snapshot are applied. Operations up to the snapshot's seq are not
    /// applied but, when they reach it without a gap, join the resume log and the resend memory.
    ///
    /// The replayed operations are kept in the resume log and their committed outcomes are
    /// remembered, so a client resending one of them after the restart still gets its first
    /// outcome and nothing applies twice. (Rejections are not durable: a resent rejected operation
    /// is decided again, which is safe because the rejection changed nothing.)
    ///
    /// - Throws: `Rejection` when the log does not continue from the snapshot or does not apply.
    /// - Complexity: the sum of the operations' apply costs.
    public init(
        snapshot: Snapshot, replaying log: [CommittedOperation], configuration: Configuration = Configuration()
    ) throws(Rejection) {
        self.init(snapshot: snapshot, configuration: configuration)
        // Operations at or before the snapshot are history: not applied, but kept for resume and
        // resends when they run without a gap up to the snapshot.
        let history = log.filter { $0.seq <= head }
        if let last = history.last, last.seq == head,
            zip(history, history.dropFirst()).allSatisfy({ $0.seq + 1 == $1.seq })
        {
            for committed in history {
                appendToLog(committed)
                remember(Key(clientId: committed.clientId, opId: committed.opId), .committed(committed), committed.op)
            }
        }
        for committed in log where committed.seq > head { try replay(committed) }
    }

    /// Applies an operation committed elsewhere (the durable log, read when a room starts): the
    /// board, head, resume log and resend memory advance as if it had been submitted here.
    ///
    /// - Throws: `Rejection` when it does not continue from `head` or does not apply.
    /// - Complexity: the operation's apply cost.
    public mutating func replay(_ committed: CommittedOperation) throws(Rejection) {
        try committed.checkFollows(head)
        try board.apply(committed)
        head = committed.seq
        appendToLog(committed)
        remember(Key(clientId: committed.clientId, opId: committed.opId), .committed(committed), committed.op)
    }

    /// Returns to an earlier state of this board: a room whose store failed goes back to its last
    /// durable seq.
    ///
    /// The board and head become the snapshot's. Committed operations after it leave the resume log
    /// and the resend memory, and so does every remembered rejection: it was decided on a board that
    /// may not come back, so a resend is decided again (safe, as a rejection changed nothing). The
    /// leases stay; the room ends them.
    ///
    /// - Precondition: `snapshot` is this board at a seq no later than `head`.
    /// - Complexity: O(remembered outcomes + rewound operations).
    public mutating func rewind(to snapshot: Snapshot) {
        precondition(snapshot.seq <= head, "a rewind goes back: seq \(snapshot.seq) is after head \(head)")
        board = snapshot.board
        board.trash.limits = configuration.trash
        head = snapshot.seq
        while let last = log.last, last.seq > head {
            log.removeLast()
            logBytes -= logSize.removeLast()
        }
        let kept = head
        let remembered = outcomes.filter { $0.value.seq.map { $0 <= kept } ?? false }
        outcomes = remembered
        outcomeOrder = Deque(outcomeOrder.filter { remembered[$0] != nil })
        outcomeBytes = outcomeOrder.reduce(0) { $0 + Self.bytes(of: $1) + remembered[$1]!.bytes }
    }

    /// The board and head as a snapshot.
    public var snapshot: Snapshot { Snapshot(seq: head, board: board) }

    /// Decides one client operation.
    ///
    /// A resent `(clientId, opId)` still remembered returns its first outcome and changes nothing;
    /// a different operation under a remembered opId is rejected `conflict` (R14). Otherwise the
    /// envelope is checked (`base` not ahead of `head`, non-empty ids), `leases` are checked (an
    /// item moved or deleted while leased to another session, or changed while another client
    /// edits it, is `locked`, naming the holder), server-chosen values are filled in (a
    /// placeholder's `createdAt = now`), and the operation is applied. Leases are not ended here:
    /// the room that holds them ends the drag session at drop.
    ///
    /// - Parameters:
    ///   - operation: The client's envelope.
    ///   - now: The room's clock in seconds, recorded in new placeholders.
    ///   - leases: The drag and edit leases held on the board's items (none by default).
    /// - Returns: `.committed` with the next seq and the effect, or `.rejected`.
    /// - Complexity: the operation's apply cost (see `Board.apply(_:clientId:opId:)`) plus O(leased
    ///   items · depth) for the lease check; amortized O(1) bookkeeping.
    public mutating func submit(
        _ operation: ClientOperation, now: Double, leases: ItemLeases = .none
    ) -> Outcome {
        switch recall(operation) {
        case .resend(let first): return first
        case .conflict(let rejection): return .rejected(rejection)
        case .fresh: break
        }
        let outcome = decide(operation, now: now, leases: leases)
        remember(Key(clientId: operation.clientId, opId: operation.opId), outcome, operation.op)
        return outcome
    }

    /// What the sequencer remembers of an operation's `(clientId, opId)`.
    public enum Recall: Hashable, Sendable {
        /// Nothing: the operation is new.
        case fresh
        /// A resend of the same operation, with its first outcome.
        case resend(Outcome)
        /// The opId was used for a different operation; the rejection says so.
        case conflict(Rejection)
    }

    /// Whether an operation is new, a resend of a remembered one, or a different operation under a
    /// remembered opId (R14). Operations are compared as `BoardOperation.isSameOperation(as:)` does:
    /// the drag session and server-chosen values do not count.
    ///
    /// - Complexity: O(1) lookup plus the comparison of the two operations.
    public func recall(_ operation: ClientOperation) -> Recall {
        let key = Key(clientId: operation.clientId, opId: operation.opId)
        guard let remembered = outcomes[key] else { return .fresh }
        guard remembered.fingerprint == operation.op.resendFingerprint else {
            return .conflict(reused(remembered, key))
        }
        return .resend(answer(remembered, key))
    }

    /// Like `recall(_:)`, for a resend that no longer carries the whole operation (a `drop` whose
    /// drag ended with the old connection): `matches` says whether the remembered operation is the
    /// one the resend describes. It is given the operation without its content (kind, ids,
    /// destination: `BoardOperation.withoutContent`).
    public func recall(clientId: String, opId: String, where matches: (BoardOperation) -> Bool) -> Recall {
        let key = Key(clientId: clientId, opId: opId)
        guard let remembered = outcomes[key] else { return .fresh }
        guard matches(remembered.op) else { return .conflict(reused(remembered, key)) }
        return .resend(answer(remembered, key))
    }

    private func reused(_ remembered: Remembered, _ key: Key) -> Rejection {
        Rejection(
            .conflict,
            "opId \(key.opId) was already used for another operation (a \(remembered.op.kind)); nothing was "
                + "applied. Give every new operation its own opId.", field: "opId")
    }

    /// The first outcome again: whole while the resume log still holds the operation, else
    /// without its content (the client already has the operation: its seq is at or before any
    /// state it can have resumed to, R10).
    private func answer(_ remembered: Remembered, _ key: Key) -> Outcome {
        switch remembered.kept {
        case .rejected(let rejection, _): return .rejected(rejection)
        case .committed(let committed):
            if let first = log.first?.seq, committed.seq >= first, committed.seq - first < log.count {
                let whole = log[committed.seq - first]
                if whole.opId == key.opId, whole.clientId == key.clientId { return .committed(whole) }
            }
            return .committed(committed)
        }
    }

    /// The committed operations after `seq`, in order, or `nil` when the log no longer holds them
    /// all (send a snapshot instead, R10).
    ///
    /// - Complexity: O(returned operations).
    public func operations(after seq: Int) -> [CommittedOperation]? {
        guard seq <= head else { return nil }
        if seq == head { return [] }
        guard let first = log.first?.seq, seq + 1 >= first else { return nil }
        return Array(log[(seq + 1 - first)...])
    }

    /// The outcome remembered for an operation, if it is still in the retention window.
    public func outcome(clientId: String, opId: String) -> Outcome? {
        let key = Key(clientId: clientId, opId: opId)
        return outcomes[key].map { answer($0, key) }
    }

    /// The seq of the oldest operation in the resume log; `nil` when it is empty.
    public var firstLoggedSeq: Int? { log.first?.seq }

    /// How many committed operations the resume log holds.
    public var logCount: Int { log.count }

    /// How many outcomes the resend memory holds.
    public var outcomeCount: Int { outcomes.count }

    private mutating func decide(_ operation: ClientOperation, now: Double, leases: ItemLeases) -> Outcome {
        guard !operation.opId.isEmpty, !operation.clientId.isEmpty else {
            return .rejected(Rejection(.invalid, "The operation needs a non-empty opId and clientId.", field: "opId"))
        }
        guard operation.base >= 0, operation.base <= head else {
            return .rejected(
                Rejection(
                    .invalid,
                    "The operation's base seq \(operation.base) is not between 0 and the board's head \(head); "
                        + "resume from the last seq you received.", field: "base"))
        }
        if let conflict = leases.conflict(operation.op, clientId: operation.clientId, on: board) {
            return .rejected(conflict)
        }
        if let tooLarge = sizeRefusal(operation) { return .rejected(tooLarge) }
        var op = operation.op
        if case .insertPlaceholder(var payload) = op {
            payload.createdAt = now
            op = .insertPlaceholder(payload)
        }
        if case .addComment(var payload) = op, payload.restore == nil {
            payload.at = Int((now * 1000).rounded())
            op = .addComment(payload)
        }
        op = op.stampedForTrash(at: Int((now * 1000).rounded()))
        do {
            let effect = try board.apply(op, clientId: operation.clientId, opId: operation.opId)
            head += 1
            let committed = CommittedOperation(
                seq: head, opId: operation.opId, clientId: operation.clientId, op: op, effect: effect)
            appendToLog(committed)
            return .committed(committed)
        } catch {
            return .rejected(error)
        }
    }

    /// Appends to the resume log, then lets the oldest operations go past `logRetention` or
    /// `logBytes` (the newest stays, whatever its size, so a resume from just before it is cheap).
    private mutating func appendToLog(_ committed: CommittedOperation) {
        let bytes = committed.estimatedBytes
        log.append(committed)
        logSize.append(bytes)
        logBytes += bytes
        while log.count > configuration.logRetention || (log.count > 1 && logBytes > configuration.logBytes) {
            log.removeFirst()
            logBytes -= logSize.removeFirst()
        }
    }

    private static func bytes(of key: Key) -> Int {
        OperationSize.string(key.clientId) + OperationSize.string(key.opId)
    }

    private mutating func remember(_ key: Key, _ outcome: Outcome, _ op: BoardOperation) {
        let remembered = Remembered(outcome, op)
        if let old = outcomes.updateValue(remembered, forKey: key) {
            // Remembered again (a history replayed twice): the key keeps its place in the order.
            outcomeBytes -= old.bytes
        } else {
            outcomeOrder.append(key)
            outcomeBytes += Self.bytes(of: key)
        }
        outcomeBytes += remembered.bytes
        while outcomeOrder.count > configuration.outcomeRetention
            || (outcomeOrder.count > 1 && outcomeBytes > configuration.outcomeBytes)
        {
            let oldest = outcomeOrder.removeFirst()
            outcomeBytes -= Self.bytes(of: oldest) + (outcomes.removeValue(forKey: oldest)?.bytes ?? 0)
        }
    }
}
