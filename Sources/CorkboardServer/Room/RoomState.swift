import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Logging

/// What a room's state may read of its connections: how much each has not read yet (R11, R14).
///
/// The one outside reading the state makes; the `Room` passes its sink, tests a table.
protocol ConnectionBacklogs: Sendable {
    /// The bytes queued for a connection and not yet written to it.
    func pendingBytes(of handle: ConnectionHandle) -> Int
    /// The bytes queued for each connection, in order.
    func pendingBytes(of handles: [ConnectionHandle]) -> [Int]
}

/// A sink's backlogs, read only.
struct SinkBacklogs: ConnectionBacklogs {
    let sink: any ConnectionSink

    func pendingBytes(of handle: ConnectionHandle) -> Int { sink.pendingBytes(of: handle) }
    func pendingBytes(of handles: [ConnectionHandle]) -> [Int] { sink.pendingBytes(of: handles) }
}

/// One board's room as a value: everything the room decides, and nothing it performs.
///
/// `handle(_:now:busy:postedAt:)` takes a batch of events in order and returns the actions they
/// produced (`RoomAction`: sends, closes, store appends, alarms); the `Room` actor only feeds it
/// events and performs the actions, so a test drives a room's behaviour with no `await`, no
/// socket and no store. Its parts are values that each own their fields: the board's
/// `Sequencer`, the `ItemLeases` on its items, `Members`, `Drags`, `EphemeralUpdates`,
/// `Durability`, `SnapshotTransfers` and the undo histories (`UndoNotices`).
///
/// The actor keeps this value in a stored property and calls it in place: a copy would retain
/// (and, on the next change, duplicate) the whole board.
struct RoomState {
    /// The board's public description.
    let info: BoardInfo
    /// Names the board's log (`welcome.history`).
    let history: String
    /// The fencing epoch of this node's lease on the board (a cluster).
    let epoch: Int?
    let configuration: RoomConfiguration
    /// Whether the room has a durable store: then operations wait for it (`Durability`).
    let hasStore: Bool
    /// The room's place among the phases of the tick and the sweep (`RoomTimers.phased`).
    let tickSlot: UInt64
    let logger: Logger
    /// How much each connection has not read yet.
    let backlogs: any ConnectionBacklogs
    /// The server's rooms, to find the boards drops across boards go to (R6).
    let registry: RoomRegistry
    /// The keys that open the board.
    var keys: BoardKeys
    /// The board's people, invites and links (issue 45), as the catalog last told the room.
    var people: BoardPeople
    /// Whether a person came or went, or the people changed, since admins last got `people`.
    var peopleNoticeDue = false

    /// The board and the one writer of it, mutated in place.
    var sequencer: Sequencer
    /// The drag and edit leases on the board's items (R9, R12), checked by every `submit`.
    var leases = ItemLeases()
    /// Who is connected, in join order (and what slow members missed, R11).
    var members: Members
    /// The live drags and their pending hovers (R9).
    var drags = Drags()
    /// Cursors, presence and the tick.
    var ephemeral = EphemeralUpdates()
    /// Batches waiting for the store, and the board at the last durable seq.
    var durability: Durability
    /// Snapshots on their way to members in parts (R14).
    var transfers = SnapshotTransfers()
    /// Every client's undo and redo history, and what each was told of it (R13).
    var undo: UndoNotices
    /// The board's activity feed (issue 43).
    var activity: ActivityFeed
    /// The clock of the batch being handled, for the times of its activity entries.
    var batchTime: BoardTime
    /// What the batch being handled decided to send.
    var outbox = RoomOutbox()
    /// What was decided so far and not yet taken by the actor, in order.
    var actions: [RoomAction] = []
    /// The board size last reported to the registry (for `/healthz`).
    var reportedSnapshotBytes = -1
    /// What the room reported to its metrics (`RoomState+Metrics.swift`).
    var tally: MetricsTally
    /// Set once another node takes the board: what joiners and members are told.
    var relinquished: ServerMessage.Redirect?
    /// Whether a move between boards holds the room, and the events waiting for it (R14).
    var hold = BoardHold()
    /// The moves between boards this room takes part in, each in its phase (R6, R14).
    var moves = CrossBoardMoves()
    /// Events a move let go of, handled next (`letGo`).
    var released: [RoomEvent] = []
    /// The deadline of the sweep alarm asked for, if any.
    var sweepDeadline: BoardTime?
    /// Whether anything went out since the last sweep (so a member may be falling behind, R11).
    var sentSinceSweep = false
    /// When the room last sent its coalesced updates, at a tick or with committed output.
    var updatesSentAt: BoardTime?
    /// When hovers last went to peers without waiting for the tick (`sendHoversAtOnce`).
    var hoversSentAt: BoardTime?
    /// Whether a `.hoverWindow` alarm is on its way.
    var hoverWindowArmed = false
    /// Whether the coalesced updates went out with committed output (busy only) after the armed
    /// tick was asked for: that tick then sends nothing (`tickFired`).
    var updatesWentEarly = false
    /// Whether the batch being handled sent a committed operation's `op` or `ack`.
    var batchSentCommitted = false
    /// The oldest placeholder's creation time, as of a head (R8).
    var placeholderScan: (head: Int, oldest: BoardTime?)?

    /// The state of a room for a board at a seq; see `Room.init`.
    init(
        info: BoardInfo, keys: BoardKeys, sequencer: Sequencer, configuration: RoomConfiguration, hasStore: Bool,
        history: String, epoch: Int?, undoEntries: [UndoHistory.StoredEntry], backlogs: any ConnectionBacklogs,
        registry: RoomRegistry, now: BoardTime, logger: Logger, activity: [ActivityRecords.Record] = [],
        people: BoardPeople = BoardPeople()
    ) {
        self.info = info
        self.keys = keys
        self.people = people
        self.history = history
        self.epoch = epoch
        self.configuration = configuration
        self.hasStore = hasStore
        self.tickSlot = RoomTimers.slot(of: info.id)
        self.backlogs = backlogs
        self.registry = registry
        var logger = logger
        logger[metadataKey: "board"] = "\(info.id)"
        self.logger = logger
        self.durability = Durability(sequencer: sequencer, hasStore: hasStore)
        self.tally = MetricsTally(countedHead: sequencer.head)
        self.activity = ActivityFeed(
            board: sequencer.board, stored: activity, limits: configuration.activityLimits, stores: hasStore)
        self.batchTime = now
        self.sequencer = sequencer
        self.members = Members(rememberedClients: configuration.rememberedClients)
        var undo = UndoNotices(boardTitle: info.title, configuration: configuration.undoHistory)
        undo.history.tracksChanges = hasStore
        undo.history.restore(undoEntries)
        self.undo = undo
        if let derive = configuration.resumeTokens {
            let board = info.id
            members.deriveToken = { derive(board, $0) }
        }
        for item in sequencer.board.placeholders() {
            if let owner = sequencer.board.item(item)?.placeholder?.owner { members.noteDeparture(of: owner, at: now) }
        }
    }

    /// Handles a batch of events in order and returns what they decided, in order.
    ///
    /// - Parameters:
    ///   - events: The batch, moved in (each event is moved out of it, not copied).
    ///   - now: The room's clock.
    ///   - busy: Whether the server is busy (its tick stretched): draggers' own proposals and
    ///     peers' updates then go with the tick or with committed output.
    ///   - postedAt: When the oldest event of the batch was posted, where a drop's broadcast time
    ///     starts (`nil`: now).
    mutating func handle(
        _ events: consuming [RoomEvent], now: BoardTime, busy: Bool = false,
        postedAt: ContinuousClock.Instant? = nil
    ) -> [RoomAction] {
        tally.batchPostedAt = postedAt
        batchTime = now
        batchSentCommitted = false
        for index in events.indices {
            // Moved out of the batch, not copied: a copy retains every string of the message.
            var event = RoomEvent.tick
            swap(&event, &events[index])
            route(event, now: now, busy: busy)
        }
        admitMovesFromNodes(now: now)
        if relinquished != nil {
            outbox = RoomOutbox()
            return takeActions()
        }
        pumpTransfers(now: now)
        sendHoversAtOnce(now: now, busy: busy)
        sendPeopleIfDue()
        flush()
        sendUpdatesWithCommittedOutput(now: now, busy: busy)
        scheduleTimers(now: now)
        reportSize()
        reportMetrics()
        return takeActions()
    }

    /// Handles one event as a batch of its own.
    mutating func handle(_ event: consuming RoomEvent, now: BoardTime, busy: Bool = false) -> [RoomAction] {
        handle([event], now: now, busy: busy)
    }

    /// Handles an event now, or keeps it while a move holds the room (`BoardHold`); then the
    /// events a move let go of meanwhile, in order.
    private mutating func route(_ event: consuming RoomEvent, now: BoardTime, busy: Bool) {
        if relinquished != nil {
            // Another node has the board: joiners are sent there, nothing else is handled.
            return redirectAfterRelinquishing(event)
        }
        guard hold.admits(event) else { return hold.keep(event) }
        handleOne(event, now: now, busy: busy)
        while !released.isEmpty {
            let waited = released
            released = []
            for event in waited { route(event, now: now, busy: busy) }
        }
    }

    private mutating func handleOne(_ event: consuming RoomEvent, now: BoardTime, busy: Bool) {
        switch event {
        case .join(let handle, let hello): join(handle, hello, now: now)
        case .joinPerson(let handle, let hello, let person): join(handle, hello, as: person, now: now)
        case .accessChanged(let change): changeAccess(change)
        case .peopleRefused(let handle, let error): refusePeopleChange(handle, error)
        case .message(let handle, let message): receive(message, from: handle, now: now, busy: busy)
        case .leave(let handle): leave(handle, now: now)
        case .invalid(let handle, let error): refuse(handle, error, now: now)
        case .tick: tickFired(now: now)
        case .hoverWindow: hoverWindowArmed = false
        case .sweep: sweep(now: now)
        case .durable(let seq, let error): stored(upTo: seq, error: error)
        case .undoWriteFailed: undo.history.rewriteAll()
        case .transfer: transfers.timerFired()
        case .keysRotated(let keys): rotateKeys(to: keys)
        case .relinquish(let handoff): relinquish(handoff)
        case .crossBoard(let step): handleCrossBoard(step, now: now)
        }
    }

    /// Takes what was decided so far, in order.
    mutating func takeActions() -> [RoomAction] {
        guard !actions.isEmpty else { return [] }
        defer { actions = [] }
        return actions
    }

    /// The seq up to which the board can no longer be rolled back (everything without a store).
    var durableHead: Int { durability.durableHead ?? sequencer.head }

    /// The board's description now: its own title once renamed (`renameBoard`), else the one it
    /// was created with.
    var currentInfo: BoardInfo { BoardInfo(id: info.id, title: sequencer.board.title ?? info.title) }
}
