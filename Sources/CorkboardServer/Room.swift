import CorkboardModel
import CorkboardProtocol
import Logging
import Synchronization

/// One board's room: the only sequencer of the board's changes, and the hub of its live drags.
///
/// Connections post events to the room's inbox (`post(_:)`) in the order they arrive; the room
/// takes every queued event at once, handles them in order, and then sends what they produced.
/// Committed operations go out immediately after their batch; peers' drop proposals, cursors and
/// presence are coalesced to at most one per drag session or member per tick (R11 sheds them for a
/// slow connection). The room never sees the transport: it sends `EncodedMessage`s to a
/// `ConnectionSink`.
public actor Room {
    /// The board's public description.
    public nonisolated let info: BoardInfo
    /// The keys that open the board (`isOpen` set when the board is open to anyone in this run);
    /// replaced by `RoomEvent.keysRotated` (see `KeyRotation.swift`).
    public nonisolated var keys: BoardKeys { currentKeys.withLock { $0 } }
    nonisolated let currentKeys: Mutex<BoardKeys>
    /// Names the board's log (`welcome.history`): resumes from another history get a snapshot.
    public nonisolated let history: String
    let configuration: RoomConfiguration
    let sink: any ConnectionSink
    let clock: RoomClock
    let logger: Logger
    /// The server's rooms, for drops across boards (R6).
    nonisolated let registry: RoomRegistry

    var sequencer: Sequencer
    var members: [ConnectionHandle: MemberState] = [:]
    /// Members in join order, for stable member lists.
    var memberOrder: [ConnectionHandle] = []
    var drags: [SessionKey: DragSession] = [:]
    var dragOrder: [SessionKey] = []
    /// Client ids that left while owning placeholders, with the time they left (R8 grace).
    var departed: [String: Double] = [:]
    var nextMemberNumber = 1
    /// The resume token of every client id that joined, so only its holder may resume it.
    var resumeTokens: [String: String] = [:]

    /// What the batch being handled produced, sent in order when it ends (after its operations
    /// are durable, when the room has a store).
    var outbox: [RoomOutput] = []
    /// The durable store, if any; `nil` keeps the board in memory only.
    let store: (any BoardStore)?
    /// The sequencer as of the last operation the store confirmed (only with a store).
    var durable: Sequencer
    /// Operations committed in the batch being handled, and who to tell if storing them fails.
    var batchOperations: [CommittedOperation] = []
    var batchSenders: [OperationSender] = []
    /// Batches waiting for the store, oldest first.
    var pendingBatches: [PendingBatch] = []
    /// Appends dropped by a rollback whose completions have not arrived yet; they are ignored
    /// (the store completes a board's appends in order, so they come before any later append's).
    var staleStoreCompletions = 0
    /// Tasks waiting until a seq is durable (drops across boards).
    var durabilityWaiters: [(seq: Int, continuation: CheckedContinuation<StoreError?, Never>)] = []
    /// The seq of the last snapshot handed to the store.
    var lastSnapshotSeq: Int
    /// Drag sessions whose hover changed since the last tick.
    var pendingHovers: [SessionKey] = []
    /// Members whose cursor or presence changed since the last tick.
    var pendingCursors: [ConnectionHandle] = []
    var pendingPresence: [ConnectionHandle] = []
    var tickScheduled = false
    /// Held by the batch being handled or by a move between boards that holds this room (R14).
    var gate = RoomGate()
    /// Snapshots on their way to members in parts (R14).
    var transfers = SnapshotTransfers()
    /// The board size last reported to the registry (for `/healthz`).
    var reportedSnapshotBytes = -1

    nonisolated let inbox = RoomInbox()

    /// Creates a room for a board at a seq.
    ///
    /// Placeholders whose owners are not connected start their grace period now (R8).
    public init(
        info: BoardInfo, keys: BoardKeys, sequencer: Sequencer, configuration: RoomConfiguration = RoomConfiguration(),
        sink: any ConnectionSink, registry: RoomRegistry = RoomRegistry(), store: (any BoardStore)? = nil,
        history: String? = nil, clock: RoomClock = .system, logger: Logger
    ) {
        self.info = info
        self.history = history ?? RandomToken.make(prefix: "h-", bytes: 8)
        self.registry = registry
        self.store = store
        self.durable = store == nil ? Sequencer() : sequencer
        self.lastSnapshotSeq = sequencer.head
        self.currentKeys = Mutex(keys)
        self.sequencer = sequencer
        self.configuration = configuration
        self.sink = sink
        self.clock = clock
        var logger = logger
        logger[metadataKey: "board"] = "\(info.id)"
        self.logger = logger
        registry.sizes.report(info.id, bytes: sequencer.board.estimatedSnapshotBytes)
        let now = clock.now()
        for item in sequencer.board.placeholders() {
            if let owner = sequencer.board.item(item)?.placeholder?.owner { departed[owner] = now }
        }
    }

    /// Queues an event for the room; returns at once. Events from one poster are handled in order.
    public nonisolated func post(_ event: RoomEvent) { inbox.post(event) }

    /// Handles events until `stop()`, with the tick and sweep timers running.
    public func run() async {
        let sweeper = Task { [weak self, interval = configuration.sweepInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                self?.post(.sweep)
            }
        }
        defer { sweeper.cancel() }
        while true {
            let batch = await inbox.next()
            if batch.isEmpty { break }
            // A move between boards may hold this room while it commits on both boards.
            await enterGate()
            process(batch)
            leaveGate()
        }
        saveSnapshotIfBehind(by: 1)
    }

    /// Stops `run()` after the events already queued.
    public nonisolated func stop() { inbox.close() }

    /// Handles a batch of events in order, then sends what they produced.
    ///
    /// `run()` calls this for each batch; tests call it directly to drive the room deterministically.
    public func process(_ events: [RoomEvent]) {
        let now = clock.now()
        for event in events {
            switch event {
            case .join(let handle, let hello): join(handle, hello, now: now)
            case .message(let handle, let message): receive(message, from: handle, now: now)
            case .leave(let handle): leave(handle, now: now)
            case .invalid(let handle, let error): refuse(handle, error, now: now)
            case .tick: tick()
            case .sweep: sweep(now: now)
            case .durable(let seq, let error): stored(upTo: seq, error: error)
            case .transfer: transfers.timerScheduled = false
            case .keysRotated(let keys): rotateKeys(to: keys)
            }
        }
        pumpTransfers(now: now)
        flush()
        scheduleTickIfNeeded()
        scheduleTransfersIfNeeded()
        reportSize()
    }

    /// The board's head seq.
    public var head: Int { sequencer.head }

    /// The board at head, as a snapshot.
    public var snapshot: Snapshot { sequencer.snapshot }

    /// The number of connected members.
    public var memberCount: Int { members.count }

    /// The live drag sessions, in start order.
    public var liveDrags: [DragState] { dragOrder.compactMap { drags[$0]?.state } }

    // MARK: Sending

    /// Queues a message for one connection, sent when the batch ends.
    func reply(_ handle: ConnectionHandle, _ message: ServerMessage) {
        outbox.append(.send(WireCodec.encode(message), [handle], committed: message.isCommittedOperation))
    }

    /// Queues a durable message for every member but `except`, encoded once.
    func broadcast(_ message: ServerMessage, except: ConnectionHandle? = nil) {
        let recipients = memberOrder.filter { $0 != except }
        guard !recipients.isEmpty else { return }
        outbox.append(.send(WireCodec.encode(message), recipients, committed: message.isCommittedOperation))
    }

    /// Queues closing a connection, after the messages queued before it; `discardingPending` closes
    /// at once without the connection's unread backlog (a slow client, R11).
    func closeConnection(_ handle: ConnectionHandle, code: Int, reason: String, discardingPending: Bool = false) {
        outbox.append(.close(handle, code: code, reason: reason, discardingPending: discardingPending))
    }

    func scheduleTickIfNeeded() {
        guard !tickScheduled, !pendingHovers.isEmpty || !pendingCursors.isEmpty || !pendingPresence.isEmpty
        else { return }
        tickScheduled = true
        Task { [weak self, tick = configuration.tick] in
            try? await Task.sleep(for: tick)
            self?.post(.tick)
        }
    }
}

/// The keys of a board: the edit key opens the editor role, the view key the viewer role.
///
/// An open board (the `--demo` board of `make run`) lets anyone edit, with or without a key.
public struct BoardKeys: Hashable, Codable, Sendable {
    /// Opens the editor role.
    public var edit: String
    /// Opens the viewer role.
    public var view: String
    /// Anyone may edit, whatever key they present.
    public var isOpen: Bool

    /// Creates keys.
    public init(edit: String, view: String, isOpen: Bool = false) {
        self.edit = edit
        self.view = view
        self.isOpen = isOpen
    }

    /// New random keys of 128 bits each.
    public static func random() -> BoardKeys {
        BoardKeys(edit: RandomToken.make(prefix: "e-"), view: RandomToken.make(prefix: "v-"))
    }

    /// The role a presented key opens, if any.
    public func role(for key: String?) -> Role? {
        if isOpen { return key.map { BoardKeys.constantTimeEquals($0, view) } == true ? .viewer : .editor }
        guard let key else { return nil }
        if BoardKeys.constantTimeEquals(key, edit) { return .editor }
        if BoardKeys.constantTimeEquals(key, view) { return .viewer }
        return nil
    }

    /// Compares two secrets in time independent of where they differ.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
