public import CorkboardModel
public import CorkboardProtocol
public import CorkboardStorage
public import Logging
import Synchronization

/// One board's room: the only sequencer of the board's changes, and the hub of its live drags.
///
/// Connections post events to the room's inbox (`post(_:)`) in the order they arrive; the room
/// takes every queued event at once, handles them in order, and then sends what they produced.
/// Committed operations go out immediately after their batch (after the store confirmed them, with
/// a store); peers' drop proposals, cursors and presence are coalesced to at most one per drag
/// session or member per tick (R11 sheds them for a slow connection). The room never sees the
/// transport: it sends `EncodedMessage`s to a `ConnectionSink`.
///
/// The actor keeps what must be isolated (the inbox, the gate, the clock, the sink, the store,
/// the registry) and the board's `Sequencer`; the rest of its state lives in value-type parts that
/// each own their fields and write what to send into the batch's `RoomOutbox`: `Members`, `Drags`,
/// `EphemeralUpdates`, `Durability` and `SnapshotTransfers`. A drop reads in this file (`receive`,
/// `drop`, `sequence`) and `Drags.swift`, and leaves through `RoomOutbox.swift` and `flush()` in
/// `Room+Sending.swift`.
public actor Room {
    /// The board's public description.
    public nonisolated let info: BoardInfo
    /// The keys that open the board (`isOpen` set when the board is open to anyone in this run);
    /// replaced by `RoomEvent.keysRotated` (see `Room+KeyRotation.swift`).
    public nonisolated var keys: BoardKeys { currentKeys.withLock { $0 } }
    nonisolated let currentKeys: Mutex<BoardKeys>
    /// Names the board's log (`welcome.history`): resumes from another history get a snapshot.
    public nonisolated let history: String
    /// The fencing epoch of this node's lease on the board (a cluster); every write names it.
    public nonisolated let epoch: Int?
    let configuration: RoomConfiguration
    let sink: any ConnectionSink
    let clock: any BoardClock
    let logger: Logger
    /// The server's rooms, for drops across boards (R6).
    nonisolated let registry: RoomRegistry
    /// The durable store, if any; `nil` keeps the board in memory only.
    let store: (any BoardStore)?
    nonisolated let inbox = RoomInbox()
    /// Held by the batch being handled or by a move between boards that holds this room (R14).
    var gate = RoomGate()

    /// The board and the one writer of it, mutated in place.
    var sequencer: Sequencer
    /// Who is connected, in join order (and what slow members missed, R11).
    var members: Members
    /// The live drags and their pending hovers (R9).
    var drags = Drags()
    /// The drag and edit leases on the board's items (R9, R12), checked by every `submit`.
    var leases = ItemLeases()
    /// Cursors, presence and the tick.
    var ephemeral = EphemeralUpdates()
    /// Batches waiting for the store, and the board at the last durable seq.
    var durability: Durability
    /// Snapshots on their way to members in parts (R14).
    var transfers = SnapshotTransfers()
    /// Every client's undo and redo history, and what each was told of it (R13).
    var undo: UndoNotices
    /// What the batch being handled decided to send.
    var outbox = RoomOutbox()
    /// The board size last reported to the registry (for `/healthz`).
    var reportedSnapshotBytes = -1
    /// What the room reported to its metrics (`Room+Metrics.swift`).
    var tally: MetricsTally
    /// Set once another node takes the board: what joiners and members are told (`Room+Ownership.swift`).
    var relinquished: ServerMessage.Redirect?
    /// Moves to boards of other nodes waiting for this room's gate or holding it while the other
    /// node prepares (`Room+RemoteBoard.swift`).
    var outgoingRemoteMoves = 0
    /// The alarms of the server's rooms (the tick, sweeps, the snapshot pump).
    nonisolated let timers: RoomTimers
    /// The room's place among the phases of the tick and the sweep (`RoomTimers.phased`), from
    /// its board id: the same on every run.
    nonisolated let tickSlot: UInt64
    /// The deadline of the sweep alarm asked for, if any.
    var sweepDeadline: BoardTime?
    /// Whether anything went out since the last sweep (so a member may be falling behind, R11).
    var sentSinceSweep = false
    /// When the room last sent its coalesced updates (hovers, cursors, presence, roster changes),
    /// at a tick or with committed output.
    var updatesSentAt: BoardTime?
    /// Whether the coalesced updates went out with committed output (busy only) after the armed
    /// tick was asked for: that tick then sends nothing (`tickFired`).
    var updatesWentEarly = false
    /// Whether the batch being handled sent a committed operation's `op` or `ack`.
    var batchSentCommitted = false
    /// The oldest placeholder's creation time, as of a head (R8).
    var placeholderScan: (head: Int, oldest: BoardTime?)?

    /// Creates a room for a board at a seq.
    ///
    /// Placeholders whose owners are not connected start their grace period now (R8). Pass the
    /// server's shared `timers` so busy rooms share wake-ups; by default the room has its own.
    /// `undoEntries` are the clients' undo histories the store kept with the board (R13); with a
    /// store, every change of a history is written with the batch it happened in.
    public init(
        info: BoardInfo, keys: BoardKeys, sequencer: Sequencer, configuration: RoomConfiguration = RoomConfiguration(),
        sink: any ConnectionSink, registry: RoomRegistry = RoomRegistry(), store: (any BoardStore)? = nil,
        history: String? = nil, epoch: Int? = nil, undoEntries: [UndoHistory.StoredEntry] = [],
        clock: any BoardClock = SystemBoardClock(), timers: RoomTimers? = nil, logger: Logger
    ) {
        self.info = info
        self.history = history ?? RandomToken.make(prefix: "h-", bytes: 8)
        self.epoch = epoch
        self.registry = registry
        self.store = store
        self.durability = Durability(sequencer: sequencer, hasStore: store != nil)
        self.tally = MetricsTally(countedHead: sequencer.head)
        self.currentKeys = Mutex(keys)
        self.sequencer = sequencer
        self.members = Members(rememberedClients: configuration.rememberedClients)
        var undo = UndoNotices(boardTitle: info.title, configuration: configuration.undoHistory)
        undo.history.tracksChanges = store != nil
        undo.history.restore(undoEntries)
        self.undo = undo
        self.configuration = configuration
        self.sink = sink
        self.clock = clock
        self.timers = timers ?? RoomTimers(clock: clock)
        self.tickSlot = RoomTimers.slot(of: info.id)
        var logger = logger
        logger[metadataKey: "board"] = "\(info.id)"
        self.logger = logger
        registry.sizes.report(info.id, bytes: sequencer.board.estimatedSnapshotBytes)
        if let derive = configuration.resumeTokens {
            let board = info.id
            members.deriveToken = { derive(board, $0) }
        }
        let now = clock.now
        for item in sequencer.board.placeholders() {
            if let owner = sequencer.board.item(item)?.placeholder?.owner { members.noteDeparture(of: owner, at: now) }
        }
    }

    /// Queues an event for the room; returns at once. Events from one poster are handled in order.
    /// `false` when the room has stopped (it was handed to another node): the event is dropped.
    ///
    /// While the server is busy (`RoomTimers.isBusy`), a `dropUpdate` without `ref` waits for the
    /// room's tick instead of waking the room, and a later one of the same drag replaces it
    /// (`RoomInbox`): its answer and its peers' update go with the tick anyway.
    @discardableResult
    public nonisolated func post(_ event: consuming RoomEvent) -> Bool {
        if case .message(let handle, .dropUpdate(let update)) = event, update.ref == nil, timers.isBusy {
            return inbox.post(event, waitingFor: RoomInbox.HoverKey(handle: handle, session: update.session))
        }
        return inbox.post(event)
    }

    /// Takes the events queued so far without handling them, for driving a room by hand with
    /// `process(_:)` instead of `run()` (tests, tools).
    public nonisolated func takeQueuedEvents() -> [RoomEvent] { inbox.takeAll() }

    /// Handles events until `stop()`; alarms (`RoomTimers`) post the tick and sweeps when due.
    public func run() async {
        scheduleTimers(now: clock.now)
        while true {
            let batch = await inbox.next()
            if batch.isEmpty { break }
            // A move between boards may hold this room while it commits on both boards.
            await enterGate()
            process(batch)
            leaveGate()
        }
        saveSnapshotIfDue(every: 1)
    }

    /// Stops `run()` after the events already queued.
    public nonisolated func stop() { inbox.close() }

    /// Handles a batch of events in order, then sends what they produced.
    ///
    /// `run()` calls this for each batch; tests call it directly to drive the room deterministically.
    public func process(_ events: consuming [RoomEvent]) {
        let now = clock.now
        tally.batchPostedAt = inbox.takeBatchPostedAt()
        // While the server is busy (the tick stretched), draggers' own proposals go with the tick.
        let busy = timers.isBusy
        batchSentCommitted = false
        for index in events.indices {
            if relinquished != nil {
                // Another node has the board: joiners are sent there, nothing else is handled.
                redirectAfterRelinquishing(events[index...])
                return
            }
            // Moved out of the batch, not copied: a copy retains every string of the message.
            var event = RoomEvent.tick
            swap(&event, &events[index])
            switch event {
            case .join(let handle, let hello): join(handle, hello, now: now)
            case .message(let handle, let message): receive(message, from: handle, now: now, busy: busy)
            case .leave(let handle): leave(handle, now: now)
            case .invalid(let handle, let error): refuse(handle, error, now: now)
            case .tick: tickFired(now: now)
            case .sweep: sweep(now: now)
            case .durable(let seq, let error): stored(upTo: seq, error: error)
            case .undoWriteFailed: undo.history.rewriteAll()
            case .transfer: transfers.timerFired()
            case .keysRotated(let keys): rotateKeys(to: keys)
            case .relinquish(let handoff): relinquish(handoff)
            }
        }
        if relinquished != nil {
            outbox = RoomOutbox()
            return
        }
        pumpTransfers(now: now)
        flush()
        sendUpdatesWithCommittedOutput(now: now, busy: busy)
        scheduleTimers(now: now)
        reportSize()
        reportMetrics()
    }

    /// The board's head seq.
    public var head: Int { sequencer.head }

    /// The board at head, as a snapshot.
    public var snapshot: Snapshot { sequencer.snapshot }

    /// The number of connected members.
    public var memberCount: Int { members.count }

    /// Clients the room remembers (R10): connected ones and the most recently departed, at most
    /// `RoomConfiguration.rememberedClients` of those.
    public var rememberedClientCount: Int { members.rememberedClientCount }

    /// Clients whose undo histories the room keeps (R13).
    public var undoHistoryClientCount: Int { undo.history.clientCount }

    /// The live drag sessions, in start order.
    public var liveDrags: [DragState] { drags.states }

    // MARK: Messages

    func receive(_ message: ClientMessage, from handle: ConnectionHandle, now: BoardTime, busy: Bool = false) {
        guard let member = members.member(on: handle) else {
            // A connection that was refused (bad key) or replaced may still have messages in flight.
            outbox.reply(
                handle, .error(ProtocolError(.notJoined, "Send hello before anything else.", ref: message.ref)))
            return
        }
        do throws(ProtocolError) {
            switch message {
            case .hello(let hello):
                throw ProtocolError(.alreadyJoined, "This connection already joined the board.", ref: hello.ref)
            case .submit(let submit): try self.submit(submit, from: handle, member: member, now: now)
            case .dragBegin(let begin):
                try drags.begin(
                    begin, by: member, on: handle, now: now, busy: busy, leases: &leases.drags, board: sequencer.board,
                    members: &members, outbox: &outbox)
            case .dragAdd(let add):
                try drags.add(
                    add, by: member, on: handle, now: now, leases: &leases.drags, board: sequencer.board,
                    members: &members, outbox: &outbox)
            case .dropUpdate(let update):
                if let foreign = try drags.hover(
                    update, by: member, now: now, sequencer: &sequencer, boardID: info.id, busy: busy,
                    outbox: &outbox)
                {
                    hoverOtherBoard(update, foreign)
                }
            case .drop(let drop): try self.drop(drop, from: handle, member: member, now: now)
            case .dragEnd(let end):
                try drags.cancel(end, by: member, leases: &leases.drags, members: &members, outbox: &outbox)
            case .cursor(let cursor): ephemeral.moveCursor(cursor, of: member, on: handle)
            case .presence(let presence): ephemeral.changePresence(presence.state, of: handle)
            case .sync(let sync): self.sync(sync, from: handle, now: now)
            case .ping(let ping): outbox.reply(handle, .pong(ServerMessage.Pong(ref: ping.ref, head: sequencer.head)))
            case .editBegin(let begin): editBegin(begin, from: handle, member: member, now: now)
            case .editEnd(let end): editEnd(end, from: handle, member: member)
            case .undo(let request): undoOrRedo(request, .undo, from: handle, member: member, now: now)
            case .redo(let request): undoOrRedo(request, .redo, from: handle, member: member, now: now)
            case .listMembers(let request): outbox.reply(handle, .memberList(members.memberList(request)))
            }
        } catch {
            refuse(handle, error, now: now)
        }
    }

    /// Answers an invalid message with its error and closes the connection 1008 when it keeps
    /// sending them.
    func refuse(_ handle: ConnectionHandle, _ error: ProtocolError, now: BoardTime) {
        outbox.reply(handle, .error(error))
        guard members.recordInvalid(from: handle, at: now, configuration) else { return }
        logger.notice(
            "closing a connection that keeps sending invalid messages",
            metadata: ["member": "\(members[handle]?.member.id ?? "-")", "last": "\(error)"])
        outbox.close(handle, code: CloseCode.policyViolation, reason: "too many invalid messages")
    }

    // MARK: Operations

    func submit(_ submit: ClientMessage.Submit, from handle: ConnectionHandle, member: Member, now: BoardTime)
        throws(ProtocolError)
    {
        var op = submit.op
        switch op {
        case .moveOut:
            throw ProtocolError(
                .invalidField, "moveOut is the server's half of a drop on another board; send drop with board.",
                field: "op.kind", ref: submit.ref)
        case .insert(let insert):
            if let (index, field) = insert.items.enumerated().lazy.compactMap({ n, item in
                item.chosenField.map { (n, $0) }
            }).first {
                throw ProtocolError(
                    .invalidField,
                    "Inserted items get ids derived from the opId and start at version 0; leave \"id\" and "
                        + "\"version\" out (items keep them only when they move between boards or an undo brings "
                        + "them back).", field: "op.items.\(index).\(field)", ref: submit.ref)
            }
        case .move(var move):
            move.session = (move.session ?? submit.session).flatMap { drags.leaseID(of: $0, for: member) }
            op = .move(move)
        case .delete(var delete):
            delete.session = (delete.session ?? submit.session).flatMap { drags.leaseID(of: $0, for: member) }
            op = .delete(delete)
        default:
            break
        }
        let envelope = ClientOperation(opId: submit.opId, clientId: member.clientId, base: submit.base, op: op)
        let outcome = sequence(envelope, ref: submit.ref, from: handle, role: member.role, now: now)
        if let session = submit.session {
            drags.end(
                SessionKey(member: member.id, session: session), reason: .dropped, seq: outcome.committed?.seq,
                leases: &leases.drags, members: &members, outbox: &outbox)
        }
    }

    /// A drop on this board sequences the drag's items (R3); one on another board goes to
    /// `dropOnOtherBoard` (R6, R14).
    func drop(_ drop: ClientMessage.Drop, from handle: ConnectionHandle, member: Member, now: BoardTime)
        throws(ProtocolError)
    {
        if let board = drop.board, board != info.id {
            try dropOnOtherBoard(drop, from: handle, member: member, board: board)
            return
        }
        let plan: Drags.DropPlan
        if let live = try drags.planDrop(drop, by: member) {
            plan = live
        } else {
            plan = try Drags.recallDrop(drop, by: member, in: sequencer)
        }
        switch plan {
        case .sequence(let envelope, let key):
            let outcome = sequence(
                envelope, ref: drop.ref, from: handle, role: member.role, now: now, timedFrom: batchStart)
            drags.end(
                key, reason: .dropped, seq: outcome.committed?.seq, leases: &leases.drags, members: &members,
                outbox: &outbox)
        case .resend(let first):
            durability.answerResend(first, opId: drop.opId, ref: drop.ref, to: handle, outbox: &outbox)
        case .conflict(let rejection):
            configuration.metrics.countRejected(rejection.code)
            outbox.reply(handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, outcome: .rejected(rejection))))
        }
    }

    /// Runs an operation through the sequencer; acks the sender and broadcasts a new commit to the
    /// other members, encoded once for both. A resent operation gets its first outcome again and
    /// nothing is broadcast. A drop's broadcast is timed from `timedFrom` until it reached every
    /// peer (`corkboard_drop_broadcast_seconds`).
    @discardableResult
    func sequence(
        _ envelope: ClientOperation, ref: String?, from handle: ConnectionHandle, role: Role, now: BoardTime,
        timedFrom: ContinuousClock.Instant? = nil
    ) -> Outcome {
        let outcome: Outcome
        switch sequencer.recall(envelope) {
        case .resend(let first):
            durability.answerResend(first, opId: envelope.opId, ref: ref, to: handle, outbox: &outbox)
            return first
        case .conflict(let rejection):
            // R14: a used opId answers only a resend of the same operation.
            outcome = .rejected(rejection)
        case .fresh where role == .viewer:
            outcome = .rejected(.readOnly)
        case .fresh:
            // Recorded in the client's undo history when it commits (R13).
            outcome = undo.history.submit(envelope, to: &sequencer, now: now.secondsSince1970, leases: leases)
            if case .committed(let committed) = outcome {
                durability.record(committed, sender: OperationSender(handle: handle, ref: ref, opId: envelope.opId))
                let encoded = WireCodec.encodeCommit(committed, ref: ref, opId: envelope.opId)
                let peers = members.handles(except: handle)
                if let timedFrom, !peers.isEmpty {
                    outbox.sendTimed(encoded.op, to: peers, since: timedFrom)
                } else if !peers.isEmpty {
                    outbox.send(encoded.op, to: peers, onRollback: .discard)
                }
                outbox.send(encoded.ack, to: [handle], onRollback: .discard)
                afterClientCommit(committed, on: handle)
                return outcome
            }
        }
        if case .rejected(let rejection) = outcome { configuration.metrics.countRejected(rejection.code) }
        outbox.reply(handle, .ack(ServerMessage.Ack(ref: ref, opId: envelope.opId, outcome: outcome)))
        return outcome
    }

    /// Sequences an operation of the room itself (placeholder clean-up) and broadcasts it to every
    /// member.
    func sequenceSystem(_ op: BoardOperation, opId: String, now: BoardTime) {
        let envelope = ClientOperation(opId: opId, clientId: ClientIdentity.system, base: sequencer.head, op: op)
        switch sequencer.submit(envelope, now: now.secondsSince1970, leases: leases) {
        case .committed(let committed):
            durability.record(committed, sender: nil)
            members.broadcast(.op(committed), into: &outbox)
        case .rejected(let rejection):
            logger.warning("room operation rejected", metadata: ["op": "\(op.kind)", "reason": "\(rejection)"])
        }
    }
}

extension NewItem {
    /// The path of the first id or version the item or a child chooses itself (`id`,
    /// `children.0.version`), or `nil` when it leaves them to the board.
    var chosenField: String? {
        if id != nil { return "id" }
        if version != 0 { return "version" }
        for (index, child) in (children ?? []).enumerated() {
            if let field = child.chosenField { return "children.\(index).\(field)" }
        }
        return nil
    }
}
