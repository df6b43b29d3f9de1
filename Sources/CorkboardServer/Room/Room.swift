public import CorkboardModel
public import CorkboardProtocol
public import CorkboardStorage
public import Logging
import Synchronization

/// One board's room: the only sequencer of the board's changes, and the hub of its live drags.
///
/// Connections post events to the room's inbox (`post(_:)`) in the order they arrive; the room
/// takes every queued event at once, hands them to its `RoomState`, which decides everything, and
/// performs the `RoomAction`s it returns. Committed operations go out immediately after their
/// batch (after the store confirmed them, with a store); peers' drop proposals, cursors and
/// presence are coalesced to at most one per drag session or member per tick (R11 sheds them for a
/// slow connection). The room never sees the transport: it sends `EncodedMessage`s to a
/// `ConnectionSink`.
///
/// The actor keeps only what must be isolated: the inbox, the clock, the sink, the store, the
/// alarms and the registry. A drop reads in `RoomState+Messages.swift` (`receive`,
/// `drop`, `sequence`) and `Drags.swift`, and leaves through `RoomState+Batches.swift` (`flush`)
/// and `perform(_:)` here.
public actor Room {
    /// The board's public description.
    public nonisolated let info: BoardInfo
    /// The keys that open the board (`isOpen` set when the board is open to anyone in this run);
    /// replaced by `RoomEvent.keysRotated` (see `RoomState+KeyRotation.swift`).
    public nonisolated var keys: BoardKeys { currentKeys.withLock { $0 } }
    private nonisolated let currentKeys: Mutex<BoardKeys>
    /// The board's people, invites and links as the room holds them (issue 45); the directory
    /// compares their revision with the catalog's (`BoardDirectory.refreshKeys()`).
    public nonisolated var people: BoardPeople { currentPeople.withLock { $0 } }
    private nonisolated let currentPeople: Mutex<BoardPeople>
    /// Where admins' changes of the board's people are saved; `nil`: they are refused.
    nonisolated let accessWriter: (any BoardAccessWriter)?
    /// Names the board's log (`welcome.history`): resumes from another history get a snapshot.
    public nonisolated let history: String
    /// The fencing epoch of this node's lease on the board (a cluster); every write names it.
    public nonisolated let epoch: Int?
    let sink: any ConnectionSink
    let clock: any BoardClock
    /// The server's rooms, for drops across boards (R6).
    nonisolated let registry: RoomRegistry
    /// The durable store, if any; `nil` keeps the board in memory only.
    let store: (any BoardStore)?
    nonisolated let inbox = RoomInbox()
    /// The alarms of the server's rooms (the tick, sweeps, the snapshot pump).
    nonisolated let timers: RoomTimers
    /// The room's place among the phases of the tick and the sweep (`RoomTimers.phased`), from
    /// its board id: the same on every run.
    nonisolated let tickSlot: UInt64
    /// Everything the room decides, mutated in place (never copied out: it holds the board).
    var state: RoomState

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
        activity: [ActivityRecords.Record] = [], clock: any BoardClock = SystemBoardClock(), timers: RoomTimers? = nil,
        people: BoardPeople = BoardPeople(), accessWriter: (any BoardAccessWriter)? = nil, logger: Logger
    ) {
        self.currentPeople = Mutex(people)
        self.accessWriter = accessWriter
        let history = history ?? RandomToken.make(prefix: "h-", bytes: 8)
        self.info = info
        self.history = history
        self.epoch = epoch
        self.registry = registry
        self.store = store
        self.currentKeys = Mutex(keys)
        self.sink = sink
        self.clock = clock
        self.timers = timers ?? RoomTimers(clock: clock)
        self.tickSlot = RoomTimers.slot(of: info.id)
        registry.sizes.report(info.id, bytes: sequencer.board.estimatedSnapshotBytes)
        self.state = RoomState(
            info: info, keys: keys, sequencer: sequencer, configuration: configuration, hasStore: store != nil,
            history: history, epoch: epoch, undoEntries: undoEntries, backlogs: SinkBacklogs(sink: sink),
            registry: registry, now: clock.now, logger: logger, activity: activity, people: people)
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
        state.scheduleTimers(now: clock.now)
        perform(state.takeActions())
        while true {
            let batch = await inbox.next()
            if batch.isEmpty { break }
            process(batch)
        }
        state.saveSnapshotIfDue(every: 1)
        perform(state.takeActions())
    }

    /// Stops `run()` after the events already queued.
    public nonisolated func stop() { inbox.close() }

    /// Handles a batch of events in order, then performs what they decided.
    ///
    /// `run()` calls this for each batch; tests call it directly to drive the room deterministically.
    public func process(_ events: consuming [RoomEvent]) {
        let actions = state.handle(
            events, now: clock.now, busy: timers.isBusy, postedAt: inbox.takeBatchPostedAt())
        perform(actions)
    }

    /// Performs the state's decisions, in order.
    func perform(_ actions: [RoomAction]) {
        for action in actions {
            switch action {
            case .outputs(let outputs): perform(outputs)
            case .store(let write): store?.append(atomically: [append(write)])
            case .saveSnapshot(let snapshot, let retained):
                store?.saveSnapshot(board: info.id, snapshot: snapshot, retainingLog: retained, epoch: epoch)
            case .armTick(let now):
                inbox.armTick()
                timers.schedule(
                    .tick, for: self,
                    at: timers.tickDeadline(after: now, base: state.configuration.tick, slot: tickSlot))
            case .arm(let event, let deadline): timers.schedule(event, for: self, at: deadline)
            case .count(let counts): state.configuration.metrics.count(counts)
            case .reportSize(let bytes): registry.sizes.report(info.id, bytes: bytes)
            case .reply(let reply): reply.resume()
            case .publishKeys(let keys): currentKeys.withLock { $0 = keys }
            case .publishPeople(let people): currentPeople.withLock { $0 = people }
            case .changePeople(let change, let answer): save(change, answering: answer)
            case .stop:
                registry.remove(self)
                inbox.close()
            case .crossBoard(let step): start(step)
            }
        }
    }

    /// Sends, closes and starts transfers, in order.
    private func perform(_ outputs: [RoomOutput]) {
        for output in outputs {
            switch output {
            case .send(let message, let handles, _):
                sink.send(message, to: handles)
            case .sendTimed(let message, let handles, let since):
                let metrics = state.configuration.metrics
                sink.send(message, to: handles) { metrics.recordDropBroadcast(since: since) }
            case .close(let handle, let code, let reason, let discarding):
                // Only the slow-client closes (R11: too much unsent, a stalled transfer) drop the backlog.
                if discarding { state.configuration.metrics.countSlowClientClose() }
                sink.close(handle, code: code, reason: reason, discardingPending: discarding)
            case .startTransfer(let handle):
                for part in state.startTransfer(handle, now: clock.now) { sink.send(part, to: handle) }
            }
        }
    }

    /// The store's append for a write the state decided; its completion comes back to the inbox.
    ///
    /// The inbox, not the room: a weak reference to the room would give it a side table and every
    /// retain of it the slow path (`RoomTimers`); a stopped room's inbox takes nothing.
    func append(_ write: RoomState.StoreWrite) -> BoardAppend {
        guard let upTo = write.upTo else {
            // Undo histories alone: nothing waits for them; a failed write makes the room write
            // the histories whole with its next operations.
            return BoardAppend(board: info.id, operations: [], epoch: epoch, undo: write.undo) { [inbox] error in
                if error != nil { _ = inbox.post(.undoWriteFailed) }
            }
        }
        var append = BoardAppend(
            board: info.id, operations: write.operations, records: write.records, epoch: epoch, undo: write.undo
        ) { [inbox] error in
            inbox.post(.durable(upTo, error))
        }
        append.activity = write.activity
        return append
    }

    /// Hands an admin's change of the board's people to the catalog; the saved record, or the
    /// refusal, comes back to the inbox.
    private func save(_ change: PeopleChange, answering answer: PeopleAnswer) {
        guard let accessWriter else {
            let error = ProtocolError(
                .internalError, "This server keeps no board records to change; run it with a catalog.", ref: answer.ref)
            inbox.post(.peopleRefused(answer.handle, error))
            return
        }
        accessWriter.change(board: info.id, change) { [inbox] result in
            switch result {
            case .success(let (record, created)):
                var answer = answer
                answer.created = created
                inbox.post(.accessChanged(AccessChange(keys: record.keys, people: record.people, answer: answer)))
            case .failure(let refusal as PeopleRefusal):
                inbox.post(.peopleRefused(answer.handle, ProtocolError(refusal, ref: answer.ref)))
            case .failure(let error):
                inbox.post(
                    .peopleRefused(
                        answer.handle,
                        ProtocolError(
                            .internalError, "The board's record could not be saved: \(error).", ref: answer.ref)))
            }
        }
    }

    /// The board's head seq.
    public var head: Int { state.sequencer.head }

    /// The board at head, as a snapshot.
    public var snapshot: Snapshot { state.sequencer.snapshot }

    /// The number of connected members.
    public var memberCount: Int { state.members.count }

    /// Clients the room remembers (R10): connected ones and the most recently departed, at most
    /// `RoomConfiguration.rememberedClients` of those.
    public var rememberedClientCount: Int { state.members.rememberedClientCount }

    /// Clients whose undo histories the room keeps (R13).
    public var undoHistoryClientCount: Int { state.undo.history.clientCount }

    /// The live drag sessions, in start order.
    public var liveDrags: [DragState] { state.drags.states }

    /// The room's configuration.
    var configuration: RoomConfiguration { state.configuration }

    /// The snapshots on their way to members (for tests).
    var transfers: SnapshotTransfers { state.transfers }

    /// The items being edited now (for tests).
    var editStates: [ServerMessage.EditState] { state.editStates }

    /// When the next sweep is due (for tests; see `RoomState.nextSweep(now:)`).
    func nextSweep(now: BoardTime) -> BoardTime? { state.nextSweep(now: now) }
}
