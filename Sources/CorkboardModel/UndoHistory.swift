import DequeModule

/// Every client's undo and redo history on one board (R13): a pure value the room keeps next to
/// its sequencer, keyed by client id so it survives reconnects (a resume keeps the client id).
///
/// - `submit(_:to:now:leases:)` runs a client's operation through the sequencer and, when it commits,
///   records its `UndoRecipe` on that client's undo stack (clearing its redo stack).
/// - `perform(_:clientId:opId:base:sequencer:now:leases:)` answers `undo` or `redo`: the top recipe's
///   reverse, made against the board as it is now, goes through the sequencer like any operation
///   (R1–R12: leases, vanished things, `accepts`, the size limit). Committed, its own recipe goes
///   on the other stack; refused (by the recipe or the sequencer), the entry is dropped and the
///   history moves past it, with a sentence saying what could not be undone and why.
/// - Only a client's own committed operations are in its history, so nobody undoes someone
///   else's operation.
///
/// Bounded: each stack keeps its newest `Configuration.depth` entries (200); beyond the newest
/// `Configuration.guaranteed` (100), entries are also dropped oldest first while the stack holds
/// more than `Configuration.heldBytes` of removed content; the least recently active clients'
/// histories are forgotten past `Configuration.clients`. All stacks of the board together hold at
/// most `Configuration.boardBytes` (R18): past it the board's oldest entries go first, whoever's
/// they are (the entry just recorded stays). A client whose entries went for lack of bytes learns
/// it from `State.forgotten`.
public struct UndoHistory: Sendable {
    /// The history's bounds; every default spelled out.
    public struct Configuration: Hashable, Sendable {
        /// The most entries one stack keeps. Default 200.
        public var depth: Int
        /// The newest entries a stack always keeps, whatever they hold. Default 100.
        public var guaranteed: Int
        /// Beyond `guaranteed` entries, a stack keeps at most this many bytes of removed content
        /// (the trees deletes took). Default 64 MiB.
        public var heldBytes: Int
        /// The most clients whose histories are kept; the least recently active go first. Default 1,000.
        public var clients: Int
        /// How many undo and redo answers are remembered to answer resends. Default 1,000.
        public var answers: Int
        /// The most bytes of removed content all the board's stacks hold together, `guaranteed`
        /// entries included: past it the oldest entries of the board go, whoever's they are.
        /// Default 64 MiB.
        public var boardBytes: Int

        /// Creates a configuration.
        public init(
            depth: Int = 200, guaranteed: Int = 100, heldBytes: Int = 64 << 20, clients: Int = 1_000,
            answers: Int = 1_000, boardBytes: Int = 64 << 20
        ) {
            self.depth = depth
            self.guaranteed = guaranteed
            self.heldBytes = heldBytes
            self.clients = clients
            self.answers = answers
            self.boardBytes = boardBytes
        }
    }

    /// Undo or redo.
    public enum Direction: String, Hashable, Sendable {
        case undo, redo

        var verb: String { rawValue }
    }

    /// What one client may do now: whether its Undo and Redo have something to act on.
    public struct State: Hashable, Sendable {
        /// Whether `undo` has an operation to reverse.
        public var undo: Bool
        /// Whether `redo` has an undone operation to make again.
        public var redo: Bool
        /// How many of the client's oldest undo and redo steps were forgotten to keep the history
        /// within its bytes (`heldBytes`, `boardBytes`), counted since the history began; 0 when none.
        public var forgotten: Int

        /// Creates a state.
        public init(undo: Bool, redo: Bool, forgotten: Int = 0) {
            self.undo = undo
            self.redo = redo
            self.forgotten = forgotten
        }
    }

    /// How `perform` answered.
    public enum Answer: Hashable, Sendable {
        /// The reverse committed: send its ack and broadcast it.
        case committed(CommittedOperation)
        /// Refused; nothing changed. The history moved past the entry (if there was one).
        case rejected(Rejection)
        /// A resend of an undo or redo already answered: send the first answer again.
        case resend(Outcome)
    }

    struct Entry: Sendable {
        var seq: Int
        var recipe: UndoRecipe
        var bytes: Int
    }

    struct Stack: Sendable {
        var entries: Deque<Entry> = []
        var bytes = 0

        /// Pushes an entry, dropping the oldest past the bounds (their seqs go to `dropped`);
        /// returns how many went for bytes.
        @discardableResult
        mutating func push(_ entry: Entry, _ configuration: Configuration, dropped: inout [Int]) -> Int {
            entries.append(entry)
            bytes += entry.bytes
            var forBytes = 0
            while entries.count > configuration.depth
                || (entries.count > configuration.guaranteed && bytes > configuration.heldBytes)
            {
                if entries.count <= configuration.depth { forBytes += 1 }
                let first = entries.removeFirst()
                bytes -= first.bytes
                dropped.append(first.seq)
            }
            return forBytes
        }

        /// Drops the oldest entry; returns its seq.
        mutating func dropOldest() -> Int {
            let first = entries.removeFirst()
            bytes -= first.bytes
            return first.seq
        }

        mutating func pop() -> Entry? {
            guard let entry = entries.popLast() else { return nil }
            bytes -= entry.bytes
            return entry
        }

        /// Drops every entry; their seqs go to `dropped`.
        mutating func removeAll(dropped: inout [Int]) {
            guard !entries.isEmpty else { return }
            dropped += entries.lazy.map(\.seq)
            entries.removeAll()
            bytes = 0
        }

        /// Drops the entries after `seq`; their seqs go to `dropped`.
        mutating func forget(after seq: Int, dropped: inout [Int]) {
            while let last = entries.last, last.seq > seq {
                bytes -= entries.removeLast().bytes
                dropped.append(last.seq)
            }
        }
    }

    struct Client: Sendable {
        var undo = Stack()
        var redo = Stack()
        var lastUse = 0
        /// Steps forgotten for lack of bytes (`State.forgotten`).
        var forgotten = 0

        var bytes: Int { undo.bytes + redo.bytes }
    }

    struct Key: Hashable, Sendable {
        var clientId: String
        var opId: String
    }

    /// The bounds.
    public let configuration: Configuration
    /// The board's title when it has none of its own (a `renameBoard` undone goes back to it).
    public var boardTitle: String
    var clients: [String: Client] = [:]
    var uses = 0
    /// The bytes all stacks hold (`Stack.bytes` summed).
    public private(set) var heldBytes = 0
    /// Clients whose `forgotten` grew since `takeTrimmed()`.
    private var trimmed: Set<String> = []
    /// Clients whose history changed since `takeChanges()`: the entries they got and the seqs
    /// of those they dropped meanwhile (kept only while `tracksChanges`, for a store: see
    /// `UndoHistory+Storage.swift`).
    var changed: [String: Pending] = [:]
    /// Whether the next `takeChanges()` lists the whole history (`rewriteAll()`).
    public internal(set) var rewritePending = false
    /// Whether changes are noted for `takeChanges()` (a room with a store sets it).
    public var tracksChanges = false
    private var answers: [Key: (Direction, Outcome)] = [:]
    private var answerOrder = Deque<Key>()

    /// An empty history for a board whose title (before any rename) is `boardTitle`.
    public init(boardTitle: String, configuration: Configuration = Configuration()) {
        self.boardTitle = boardTitle
        self.configuration = configuration
    }

    /// What a client may do now.
    ///
    /// - Complexity: O(1).
    public func state(of clientId: String) -> State {
        let client = clients[clientId]
        return State(
            undo: !(client?.undo.entries.isEmpty ?? true), redo: !(client?.redo.entries.isEmpty ?? true),
            forgotten: client?.forgotten ?? 0)
    }

    /// The clients that lost steps for lack of bytes since the last call (to be told `undoable`);
    /// the set empties.
    public mutating func takeTrimmed() -> Set<String> {
        defer { trimmed.removeAll() }
        return trimmed
    }

    /// How many entries a client's stacks hold (for tests and logs).
    public func depth(of clientId: String) -> (undo: Int, redo: Int) {
        (clients[clientId]?.undo.entries.count ?? 0, clients[clientId]?.redo.entries.count ?? 0)
    }

    /// Submits a client's operation to the sequencer and records how to undo it when it commits.
    ///
    /// Placeholders inserted or deleted are not recorded (their commit is); a drop on another
    /// board's `moveOut` is recorded as not undoable.
    ///
    /// - Complexity: the sequencer's, plus the recipe's capture (see `UndoRecipe.Capture`).
    public mutating func submit(
        _ envelope: ClientOperation, to sequencer: inout Sequencer, now: Double, leases: ItemLeases = .none
    ) -> Outcome {
        let capture = UndoRecipe.Capture(
            envelope.op, on: sequencer.board, clientId: envelope.clientId, opId: envelope.opId, boardTitle: boardTitle)
        let outcome = sequencer.submit(envelope, now: now, leases: leases)
        if case .committed(let committed) = outcome,
            let recipe = capture.recipe(effect: committed.effect, board: sequencer.board)
        {
            record(recipe, seq: committed.seq, for: envelope.clientId)
        }
        return outcome
    }

    /// Records a committed operation of a client made elsewhere (a drop on another board, done by
    /// the rooms themselves): it becomes the newest entry and the redo stack is cleared.
    public mutating func record(_ recipe: UndoRecipe, seq: Int, for clientId: String) {
        touch(clientId)
        push(Entry(seq: seq, recipe: recipe, bytes: recipe.heldBytes), on: .undo, of: clientId)
        var dropped: [Int] = []
        change(clientId) { $0.redo.removeAll(dropped: &dropped) }
        for seq in dropped { noteRemoved(seq, of: clientId) }
        noteAdded(StoredEntry(clientId: clientId, stack: .undo, seq: seq, recipe: recipe))
    }

    /// Answers a client's `undo` or `redo`: reverses its newest entry through the sequencer, or
    /// refuses with a sentence (and the history moves past the entry), or answers a resend.
    ///
    /// A resend (same opId, same direction) gets the first answer; an opId used for anything else
    /// is refused `conflict` (R14).
    ///
    /// `name` is who the client is to the room, set on the deletes an undo or redo makes (R15).
    /// `allowing` answers whether the client may submit the reverse (its role, R17): a refusal
    /// there is the answer, and the history moves past the entry.
    ///
    /// - Complexity: the reverse's making (see `UndoRecipe.inverse`) and sequencing.
    public mutating func perform(
        _ direction: Direction, clientId: String, opId: String, base: Int, sequencer: inout Sequencer, now: Double,
        leases: ItemLeases = .none, name: String? = nil, allowing: (BoardOperation) -> Rejection? = { _ in nil }
    ) -> Answer {
        let key = Key(clientId: clientId, opId: opId)
        if let (first, outcome) = answers[key] {
            guard first == direction else {
                return .rejected(
                    Rejection(
                        .conflict,
                        "opId \(opId) was already used for a \(first.verb); nothing was applied. Give every new "
                            + "request its own opId.", field: "opId"))
            }
            // The sequencer still has the whole operation while its resume log holds it.
            if case .committed = outcome, let whole = sequencer.outcome(clientId: clientId, opId: opId),
                whole.committed?.seq == outcome.committed?.seq
            {
                return .resend(whole)
            }
            return .resend(outcome)
        }
        if let first = answerLost(direction, clientId: clientId, opId: opId, sequencer: sequencer) {
            remember(key, direction, first)
            return .resend(first)
        }
        if case .conflict(let rejection) = sequencer.recall(clientId: clientId, opId: opId, where: { _ in false }) {
            return .rejected(rejection)
        }
        let answer = reverse(
            direction, clientId: clientId, opId: opId, base: base, sequencer: &sequencer, now: now, leases: leases,
            name: name, allowing: allowing)
        switch answer {
        case .committed(let committed): remember(key, direction, .committed(committed.withoutContent))
        case .rejected(let rejection): remember(key, direction, .rejected(rejection))
        case .resend: break
        }
        return answer
    }

    /// Forgets every entry of operations after `seq` (the store failed and the board went back to
    /// `seq`: those operations never happened).
    ///
    /// - Complexity: O(clients + entries forgotten).
    public mutating func forget(after seq: Int) {
        for id in clients.keys {
            var dropped: [Int] = []
            change(id) {
                $0.undo.forget(after: seq, dropped: &dropped)
                $0.redo.forget(after: seq, dropped: &dropped)
            }
            for seq in dropped { noteRemoved(seq, of: id) }
        }
        for key in answerOrder {
            if case .committed(let committed)? = answers[key]?.1, committed.seq > seq { answers[key] = nil }
        }
    }

    // MARK: Internals

    private mutating func reverse(
        _ direction: Direction, clientId: String, opId: String, base: Int, sequencer: inout Sequencer, now: Double,
        leases: ItemLeases, name: String?, allowing: (BoardOperation) -> Rejection?
    ) -> Answer {
        touch(clientId)
        var popped: Entry?
        change(clientId) {
            switch direction {
            case .undo: popped = $0.undo.pop()
            case .redo: popped = $0.redo.pop()
            }
        }
        if let popped { noteRemoved(popped.seq, of: clientId) }
        guard let entry = popped else {
            let sentence =
                direction == .undo
                ? "There is nothing of yours to undo on this board."
                : "There is nothing to redo: nothing was undone since your last change."
            return .rejected(Rejection(.notFound, sentence))
        }
        let recipe = entry.recipe
        var op: BoardOperation
        do {
            op = try recipe.inverse(on: sequencer.board, clientId: clientId, opId: opId, boardTitle: boardTitle)
            if let name { op = op.named(name) }
        } catch {
            return .rejected(UndoHistory.refusal(direction, recipe, error))
        }
        if let refusal = allowing(op) {
            var refused = refusal
            refused.message = "Could not \(direction.verb) \(recipe.summary): \(refusal.message)"
            return .rejected(refused)
        }
        let envelope = ClientOperation(opId: opId, clientId: clientId, base: base, op: op)
        let capture = UndoRecipe.Capture(
            op, on: sequencer.board, clientId: clientId, opId: opId, boardTitle: boardTitle)
        switch sequencer.submit(envelope, now: now, leases: leases) {
        case .committed(let committed):
            if let again = capture.recipe(effect: committed.effect, board: sequencer.board) {
                let next = Entry(seq: committed.seq, recipe: again, bytes: again.heldBytes)
                push(next, on: direction == .undo ? .redo : .undo, of: clientId)
                noteAdded(
                    StoredEntry(
                        clientId: clientId, stack: direction == .undo ? .redo : .undo, seq: committed.seq,
                        recipe: again))
            }
            return .committed(committed)
        case .rejected(let rejection):
            return .rejected(UndoHistory.refusal(direction, recipe, rejection))
        }
    }

    /// A refusal in one sentence: what could not be undone and why, naming things as people see
    /// them (the sequencer's own messages name ids; they are replaced by the reason for the code).
    static func refusal(_ direction: Direction, _ recipe: UndoRecipe, _ rejection: Rejection) -> Rejection {
        let reason: String
        switch rejection.code {
        case .destinationGone: reason = "the place it came from was deleted since"
        case .gone where rejection.field != nil: reason = "the cards were deleted since"
        case .notFound where rejection.field != nil:
            reason = "the collection or section it belongs to was deleted since"
        case .forbidden: reason = "the collection it goes back to no longer takes it"
        case .duplicateID: reason = "it is already back on the board"
        case .cycle: reason = "it would go inside itself"
        case .invalid where rejection.field != nil: reason = "the board has changed too much since"
        default: reason = rejection.message.hasSuffix(".") ? String(rejection.message.dropLast()) : rejection.message
        }
        var refused = rejection
        refused.message = "Could not \(direction.verb) \(recipe.summary): \(reason). Nothing changed."
        refused.field = nil
        return refused
    }

    /// Forgets a client's undo and redo stacks (its room forgot the client).
    public mutating func forget(client clientId: String) {
        guard clients[clientId] != nil else { return }
        heldBytes -= clients.removeValue(forKey: clientId)?.bytes ?? 0
        trimmed.remove(clientId)
        noteForgotten(clientId)
    }

    /// How many clients' histories are kept.
    public var clientCount: Int { clients.count }

    mutating func touch(_ clientId: String) {
        uses += 1
        if clients[clientId] == nil, clients.count >= configuration.clients,
            let oldest = clients.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            forget(client: oldest)
        }
        clients[clientId, default: Client()].lastUse = uses
    }

    /// Changes a client's stacks, keeping `heldBytes` the sum of them all.
    mutating func change(_ clientId: String, _ body: (inout Client) -> Void) {
        guard let before = clients[clientId]?.bytes else { return }
        body(&clients[clientId]!)  // in place: the stacks are not copied
        heldBytes += clients[clientId]!.bytes - before
    }

    /// Pushes an entry on one of a client's stacks, then keeps the stack and the board within
    /// their bytes, oldest entries first; the entry just pushed stays.
    private mutating func push(_ entry: Entry, on direction: Direction, of clientId: String) {
        var forBytes = 0
        var dropped: [Int] = []
        let configuration = configuration
        change(clientId) {
            switch direction {
            case .undo: forBytes = $0.undo.push(entry, configuration, dropped: &dropped)
            case .redo: forBytes = $0.redo.push(entry, configuration, dropped: &dropped)
            }
            $0.forgotten += forBytes
        }
        for seq in dropped { noteRemoved(seq, of: clientId) }
        if forBytes > 0 { trimmed.insert(clientId) }
        while heldBytes > configuration.boardBytes, let oldest = oldestEntry(), oldest.seq != entry.seq {
            var seq = oldest.seq
            change(oldest.clientId) {
                switch oldest.direction {
                case .undo: seq = $0.undo.dropOldest()
                case .redo: seq = $0.redo.dropOldest()
                }
                $0.forgotten += 1
            }
            trimmed.insert(oldest.clientId)
            noteRemoved(seq, of: oldest.clientId)
        }
    }

    /// The board's oldest entry (the lowest seq at the bottom of any stack).
    ///
    /// - Complexity: O(clients).
    private func oldestEntry() -> (clientId: String, direction: Direction, seq: Int)? {
        var oldest: (clientId: String, direction: Direction, seq: Int)?
        for (id, client) in clients {
            for (direction, stack) in [(Direction.undo, client.undo), (.redo, client.redo)] {
                guard let first = stack.entries.first, first.seq < oldest?.seq ?? .max else { continue }
                oldest = (id, direction, first.seq)
            }
        }
        return oldest
    }

    mutating func remember(_ key: Key, _ direction: Direction, _ outcome: Outcome) {
        if answers[key] == nil { answerOrder.append(key) }
        answers[key] = (direction, outcome)
        while answerOrder.count > configuration.answers { answers[answerOrder.removeFirst()] = nil }
    }
}
