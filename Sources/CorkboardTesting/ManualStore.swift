public import CorkboardModel
public import CorkboardStorage
import Dispatch
import Synchronization
public import Testing

/// A `BoardStore` that records what rooms hand it and completes appends only when the test says,
/// so a test decides when (and whether) each transaction commits.
public final class ManualStore: BoardStore {
    /// One `append` call: one part, or the parts of a move between boards that commit together.
    public struct Append: Sendable {
        public var parts: [BoardAppend]
        public var completed = false
        /// Whether it was completed with an error.
        public var failed = false
        /// Every part's operations, in order.
        public var operations: [CommittedOperation] { parts.flatMap(\.operations) }
    }

    /// One `saveSnapshot` call.
    public struct SavedSnapshot: Equatable, Sendable {
        public var board: String
        public var snapshot: Snapshot
        public var retainingLog: Int
    }

    private struct State {
        var appends: [Append] = []
        var snapshots: [SavedSnapshot] = []
        var failure: StoreError?
    }

    private let state = Mutex(State())
    private let changes = ChangeSignal()
    private let loads = Mutex((held: false, started: [String](), waiting: 0))
    private let released = DispatchSemaphore(value: 0)

    /// A store with nothing in it.
    public init() {}

    public func load() throws -> [BoardRecord] { [] }
    public func save(_ records: [BoardRecord]) throws {}
    /// Nothing stored (rooms start from their templates); waits while loads are held.
    public func load(board: String) throws(StoreError) -> StoredBoard? {
        let held = loads.withLock { loads in
            loads.started.append(board)
            if loads.held { loads.waiting += 1 }
            return loads.held
        }
        if held { released.wait() }
        return nil
    }

    /// Makes every `load(board:)` wait until `releaseLoads()`: a board that takes long to load.
    public func holdLoads() { loads.withLock { $0.held = true } }

    /// Lets the held loads, and later ones, finish.
    public func releaseLoads() {
        let waiting = loads.withLock { loads in
            defer { loads.waiting = 0 }
            loads.held = false
            return loads.waiting
        }
        for _ in 0..<waiting { released.signal() }
    }

    /// The boards `load(board:)` was asked for, in call order.
    public var loadsStarted: [String] { loads.withLock { $0.started } }
    public func drain() {}
    public var lastFailure: StoreError? { state.withLock { $0.failure } }
    /// Does nothing: the test decides when appends succeed again.
    public func probeWhileFailing() {}

    public func append(atomically parts: [BoardAppend]) {
        state.withLock { $0.appends.append(Append(parts: parts)) }
        changes.notify()
    }

    public func saveSnapshot(board: String, snapshot: Snapshot, retainingLog: Int) {
        state.withLock {
            $0.snapshots.append(SavedSnapshot(board: board, snapshot: snapshot, retainingLog: retainingLog))
        }
    }

    /// The seqs of each append so far, in call order.
    public var appendedSeqs: [[Int]] { state.withLock { $0.appends.map { $0.operations.map(\.seq) } } }

    /// The undo changes of each append's parts, in call order.
    public var appendedUndo: [[UndoHistory.Changes]] { state.withLock { $0.appends.map { $0.parts.map(\.undo) } } }

    /// The boards of each append's parts, in call order.
    public var appendedBoards: [[String]] { state.withLock { $0.appends.map { $0.parts.map(\.board) } } }

    /// The snapshots saved so far.
    public var snapshots: [SavedSnapshot] { state.withLock { $0.snapshots } }

    /// The operations of a board in the appends completed without an error, in seq order.
    public func committedOperations(board: String) -> [CommittedOperation] {
        state.withLock { $0.appends.filter { $0.completed && !$0.failed } }.flatMap(\.parts)
            .filter { $0.board == board }.flatMap(\.operations).sorted { $0.seq < $1.seq }
    }

    /// The undo entries a store would hold for a board after the appends completed without an
    /// error (R13): each part's changes, in order, applied as a store applies them (the board's
    /// entries gone when replaced whole, then per client: all of them when it was forgotten, the
    /// removed seqs, the added entries).
    public func undoEntries(board: String) -> [UndoHistory.StoredEntry] {
        var stored: [String: [Int: UndoHistory.StoredEntry]] = [:]
        let appends = state.withLock { $0.appends.filter { $0.completed && !$0.failed } }
        for part in appends.flatMap(\.parts) where part.board == board {
            if part.undo.replacesAll { stored.removeAll() }
            for change in part.undo.clients {
                var entries = change.removesAll ? [:] : stored[change.clientId, default: [:]]
                for seq in change.removed { entries[seq] = nil }
                for entry in change.added { entries[entry.seq] = entry }
                stored[change.clientId] = entries.isEmpty ? nil : entries
            }
        }
        return stored.values.flatMap(\.values).sorted { ($0.clientId, $0.seq) < ($1.clientId, $1.seq) }
    }

    /// The activity entries a store would hold for a board after the appends completed without an
    /// error (issue 43): each part's new entries, less those below its `keepFrom`, oldest first.
    public func activityRecords(board: String) -> [ActivityRecords.Record] {
        var stored: [ActivityRecords.Record] = []
        let appends = state.withLock { $0.appends.filter { $0.completed && !$0.failed } }
        for part in appends.flatMap(\.parts) where part.board == board {
            stored += part.activity.added
            if let keepFrom = part.activity.keepFrom { stored.removeAll { $0.seq < keepFrom } }
        }
        return stored
    }

    /// Waits until `condition` holds, checking it after every append; `false` after `timeout`.
    public func wait(timeout: Duration = .seconds(20), until condition: () -> Bool) async -> Bool {
        await changes.wait(timeout: timeout, until: condition)
    }

    /// Completes every append not completed yet, in order; returns how many.
    @discardableResult
    public func completePending(error: StoreError? = nil) -> Int {
        let open = state.withLock { state in state.appends.indices.filter { !state.appends[$0].completed } }
        for index in open { complete(index, error: error) }
        return open.count
    }

    /// Runs the completions of append number `index` (0-based), every part, as the store's writer
    /// would.
    public func complete(_ index: Int, error: StoreError? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let parts = state.withLock { state -> [BoardAppend]? in
            guard index < state.appends.count, !state.appends[index].completed else { return nil }
            state.appends[index].completed = true
            state.appends[index].failed = error != nil
            state.failure = error
            return state.appends[index].parts
        }
        guard let parts else {
            Issue.record("append \(index) does not exist or was already completed", sourceLocation: sourceLocation)
            return
        }
        for part in parts { part.completion(error) }
    }
}
