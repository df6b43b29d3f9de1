public import CorkboardModel
import CorkboardProtocol
public import CorkboardStorage
import Foundation
public import Logging
import Synchronization

/// The server's boards: their records in a catalog and one live room per board, loaded from the
/// store (latest snapshot plus the operations after it) when there is one.
///
/// Rooms start lazily, the first time a board is asked for (a `hello`, an upload, a drop from
/// another board), so the server listens as soon as it has read the catalog, however long its
/// boards' histories (R18); each room runs its own event loop until `shutdown()`. Loads are one at
/// a time, and the hub's go through `openRoom(_:)`, on the directory's loading thread, so no
/// transport thread waits for the store. On a node of a cluster (`startsEveryBoard` false) a room
/// starts only for a board whose lease the node took (`open(_:epoch:)`, called by
/// `BoardOwnership`), and stops when the board goes to another node.
public final class BoardDirectory: Sendable {
    /// The server's rooms by board id.
    public let registry = RoomRegistry()
    /// The alarms every room of this server shares (aligned ticks; none for an idle board).
    public let timers: RoomTimers
    let catalog: any BoardCatalog
    /// The durable store, when boards are kept on disk.
    public let store: (any BoardStore)?
    /// How its rooms behave.
    public let configuration: RoomConfiguration
    private let sink: any ConnectionSink
    let clock: any BoardClock
    let logger: Logger
    private let openBoards: Set<String>
    /// Whether every board of the catalog gets a room (one node); `false` on a node of a cluster.
    public let startsEveryBoard: Bool
    private let state = Mutex(State())
    /// Held while a room starts, so two first joins of a board start one room.
    private let starting = Mutex(())
    /// Where `openRoom(_:)` loads boards: one thread, off the transport's and the rooms' threads.
    private let loader = DispatchQueue(label: "corkboard.board-loader", qos: .userInitiated)
    /// Where claims of invites and admins' changes of people run their catalog transactions
    /// (`BoardDirectory+People.swift`), off the transport's and the rooms' threads.
    let accessQueue = DispatchQueue(label: "corkboard.board-access", qos: .userInitiated)

    private struct State {
        var records: [BoardRecord] = []
        var lastReload: BoardTime?
        /// The catalog's generation when `refreshKeys()` last read it.
        var keysGeneration: Int?
        /// The catalog's generation when `reloadRecords()` last read the records.
        var recordsGeneration: Int?
        var tasks: [String: [Task<Void, Never>]] = [:]
        /// Imported boards of a server without a store, until their rooms start.
        var content: [String: Board] = [:]
    }

    /// Opens the catalog; rooms start when their boards are first asked for.
    ///
    /// - Parameter store: The durable store; it is also the catalog when given.
    /// - Parameter openBoards: Boards anyone may edit in this run, whatever key they present (the
    ///   `--demo` board); their stored keys are unchanged.
    /// - Parameter startsEveryBoard: Start the room of any board of the catalog when it is asked for
    ///   (one node), or only for the boards this node holds the lease of (`open(_:epoch:)`, a node of
    ///   a cluster).
    /// - Throws: `CatalogError` when the catalog cannot be read.
    public init(
        catalog: any BoardCatalog, store: (any BoardStore)? = nil,
        configuration: RoomConfiguration = RoomConfiguration(),
        sink: any ConnectionSink, openBoards: Set<String> = [], clock: any BoardClock = SystemBoardClock(),
        startsEveryBoard: Bool = true, logger: Logger
    ) throws {
        self.catalog = catalog
        self.store = store
        self.openBoards = openBoards
        self.configuration = configuration
        self.sink = sink
        self.clock = clock
        self.startsEveryBoard = startsEveryBoard
        self.timers = RoomTimers(
            clock: clock, pacing: configuration.tickPacing,
            gauge: configuration.tickPacing == .off ? nil : ProcessLoadGauge())
        self.logger = logger
        let records = try catalog.load()
        state.withLock { $0.records = records }
        if startsEveryBoard { registry.attach(opener: { [weak self] board in self?.room(board) }) }
    }

    /// Every board, in creation order.
    public var records: [BoardRecord] { state.withLock { $0.records } }

    /// The room of a board, started from the store (or the board's template) if it is not running
    /// yet, on one node; on a node of a cluster, only a room already running. An unknown id re-reads
    /// the catalog (at most once a second) in case the board was created since. The caller waits
    /// while the board loads: a transport thread calls `openRoom(_:)` instead.
    public func room(_ board: String) -> Room? {
        if let room = registry.room(board) { return room }
        guard startsEveryBoard, let record = record(board) else { return nil }
        return starting.withLock { _ in registry.room(board) ?? start(record, epoch: nil) }
    }

    /// `room(_:)` on the directory's loading thread: the caller's thread never waits for the store.
    public func openRoom(_ board: String) async -> Room? {
        if let room = registry.room(board) { return room }
        return await withCheckedContinuation { continuation in
            loader.async { continuation.resume(returning: self.room(board)) }
        }
    }

    /// The record of a board, re-reading the catalog (at most once a second) when it is unknown.
    public func record(_ board: String) -> BoardRecord? {
        if let known = state.withLock({ $0.records.first { $0.id == board } }) { return known }
        let now = clock.now
        let due = state.withLock { state in
            if let last = state.lastReload, last.duration(to: now) < .seconds(1) { return false }
            state.lastReload = now
            return true
        }
        guard due, let records = try? reloadRecords() else { return nil }
        return records.first { $0.id == board }
    }

    /// Re-reads the catalog and keeps its records (the board count of `/healthz`, routing). While
    /// the catalog's generation is unchanged since the last read, the records kept are returned
    /// without reading them again (a node's heartbeat calls this twice a second).
    ///
    /// - Throws: what the catalog throws.
    @discardableResult
    public func reloadRecords() throws -> [BoardRecord] {
        let generation = try catalog.generation()
        if let generation {
            let kept: [BoardRecord]? = state.withLock { state in
                state.recordsGeneration == generation ? state.records : nil
            }
            if let kept { return kept }
        }
        let records = try catalog.load()
        state.withLock { state in
            state.records = records
            state.recordsGeneration = generation
        }
        return records
    }

    /// The keys that open a board in this run (`isOpen` set for the `--demo` board).
    public func keys(of record: BoardRecord) -> BoardKeys {
        var keys = record.keys
        if openBoards.contains(record.id) { keys.isOpen = true }
        return keys
    }

    /// Starts the room of a board whose lease this node just took, from the store (snapshot and
    /// log); every write of the room names `epoch`. `nil` when the board cannot be loaded.
    public func open(_ record: BoardRecord, epoch: Int) -> Room? {
        if let room = registry.room(record.id) { return room }
        return starting.withLock { _ in registry.room(record.id) ?? start(record, epoch: epoch) }
    }

    /// Waits until the rooms of a board that were stopped have finished (their last snapshot is
    /// queued).
    public func waitUntilStopped(_ board: String) async {
        let tasks = state.withLock { $0.tasks.removeValue(forKey: board) ?? [] }
        for task in tasks { await task.value }
    }

    /// Creates a board and saves it in the catalog; its room starts at its first join. With `content`
    /// (an imported board) the board starts from it instead of the template: saved as its first
    /// snapshot, or kept until its room starts on a server without a store.
    ///
    /// - Throws: `CatalogError` when the id is taken or the catalog cannot be written; `StoreError`
    ///   when the content cannot be saved.
    @discardableResult
    public func create(
        id: String, title: String, template: BoardTemplate, keys: BoardKeys = .random(), content: Board? = nil
    ) throws -> BoardRecord {
        let record = BoardRecord(
            id: id, title: title, keys: keys, template: template, createdAt: clock.now.secondsSince1970)
        try catalog.add(record)
        if let content {
            if let store {
                store.saveSnapshot(board: id, snapshot: Snapshot(seq: 0, board: content), retainingLog: 0)
                store.drain()
                if let failure = store.lastFailure { throw failure }
            } else {
                state.withLock { $0.content[id] = content }
            }
        }
        // On a node of a cluster, the node the board belongs on claims it at its first hello.
        state.withLock { $0.records.append(record) }
        return record
    }

    /// Re-reads the catalog and hands every loaded board whose keys changed there (`corkboard
    /// boards rotate-keys`) its new keys, which closes the members who joined with the old ones,
    /// and every loaded board whose people changed there (another node's admin, `corkboard boards
    /// revoke`) its new people, which closes removed persons and applies new roles (issue 45).
    /// The server calls it every second.
    public func refreshKeys() {
        // One number, not every record, while the list is unchanged (an idle server stays idle).
        let generation = try? catalog.generation()
        if let generation, state.withLock({ $0.keysGeneration }) == generation { return }
        guard let stored = try? catalog.load() else { return }
        state.withLock { state in
            state.keysGeneration = generation
            // A node of a cluster keeps the whole list: boards other nodes created, deleted or re-keyed,
            // so a board it takes over later opens with its current keys.
            if !startsEveryBoard { state.records = stored }
        }
        for record in stored {
            guard let room = registry.room(record.id) else { continue }
            let current = room.keys
            let rotated = Role.allCases.contains(where: { current.key(of: $0) != record.keys.key(of: $0) })
            // People, invites and links changed by another node or process (issue 45).
            let peopleChanged = record.people.revision > room.people.revision
            guard rotated || peopleChanged else { continue }
            if rotated {
                logger.notice(
                    "share keys replaced; closing members who joined with the old ones",
                    metadata: ["board": "\(record.id)"])
            }
            room.post(.accessChanged(AccessChange(keys: record.keys, people: record.people)))
            state.withLock { state in
                if let index = state.records.firstIndex(where: { $0.id == record.id }) { state.records[index] = record }
            }
        }
    }

    /// Keeps a record as the catalog just saved it (a claim, an admin's change).
    func adopt(_ record: BoardRecord) {
        state.withLock { state in
            if let index = state.records.firstIndex(where: { $0.id == record.id }) { state.records[index] = record }
        }
    }

    /// Stops every room after the events already queued, waits for them to save their last
    /// snapshots, and waits for the store to finish writing.
    public func shutdown() async {
        for room in registry.removeAll() { room.stop() }
        let tasks = state.withLock { state in
            defer { state.tasks.removeAll() }
            return state.tasks.values.flatMap { $0 }
        }
        for task in tasks { await task.value }
        store?.drain()
    }

    @discardableResult
    private func start(_ record: BoardRecord, epoch: Int?) -> Room? {
        guard let (sequencer, undoEntries, activity) = loadSequencer(record, epoch: epoch) else { return nil }
        let room = Room(
            info: record.info, keys: keys(of: record), sequencer: sequencer, configuration: configuration, sink: sink,
            registry: registry, store: store,
            // A stored board keeps its log across restarts (and nodes); an in-memory one starts a new history.
            history: store == nil ? nil : "h-\(record.id)-\(Int(record.createdAt * 1000))",
            epoch: epoch, undoEntries: undoEntries, activity: activity, clock: clock, timers: timers,
            people: record.people, accessWriter: self, logger: logger)
        registry.insert(room)
        let task = Task { await room.run() }
        state.withLock { state in
            if let index = state.records.firstIndex(where: { $0.id == record.id }) {
                state.records[index] = record
            } else {
                state.records.append(record)
            }
            state.tasks[record.id, default: []].append(task)
        }
        return room
    }

    /// The board's sequencer: from the store (snapshot + log) when it has the board, else from the
    /// record's template (saved to the store as the first snapshot); with the clients' undo
    /// histories the store kept (R13). `nil`, logged, when the stored state cannot be read or
    /// replayed; the board is then not served.
    private func loadSequencer(
        _ record: BoardRecord, epoch: Int?
    ) -> (Sequencer, [UndoHistory.StoredEntry], [ActivityRecords.Record])? {
        let metadata: Logger.Metadata = ["board": "\(record.id)"]
        do {
            if let store, let stored = try store.load(board: record.id) {
                let sequencer = try Sequencer(
                    snapshot: stored.snapshot, replaying: stored.log, configuration: configuration.sequencer)
                let violations = sequencer.board.checkInvariants()
                if !violations.isEmpty {
                    logger.error(
                        "a stored board breaks invariants",
                        metadata: metadata.merging(["violations": "\(violations)"]) { a, _ in a })
                }
                logger.info(
                    "board loaded",
                    metadata: metadata.merging([
                        "seq": "\(sequencer.head)", "snapshotSeq": "\(stored.snapshot.seq)",
                        "epoch": "\(epoch.map(String.init) ?? "-")", "undoEntries": "\(stored.undo.count)",
                    ]) {
                        a, _ in a
                    })
                return (sequencer, stored.undo, stored.activity)
            }
            let board =
                try state.withLock({ $0.content.removeValue(forKey: record.id) })
                ?? Board(collections: record.template.collections(board: record.id))
            let sequencer = Sequencer(board: board, configuration: configuration.sequencer)
            store?.saveSnapshot(board: record.id, snapshot: sequencer.snapshot, retainingLog: 0, epoch: epoch)
            return (sequencer, [], [])
        } catch {
            logger.error(
                "cannot load a board; it is not served", metadata: metadata.merging(["error": "\(error)"]) { a, _ in a }
            )
            return nil
        }
    }
}
