public import CorkboardModel

/// Durable storage for boards: committed operations, snapshots and the board list.
///
/// Rooms acknowledge and broadcast an operation only after the store reports the transaction
/// holding it committed. The embedded implementation is SQLite (`CorkboardStore`); the shared one,
/// which several server nodes use at once, is PostgreSQL (`CorkboardPostgres`): there every write
/// names the fencing epoch of the writer's lease on the board, and a write under an epoch that is
/// no longer the board's fails with `StoreError.Kind.fenced`.
public protocol BoardStore: BoardCatalog, Sendable {
    /// A board's durable state: its latest snapshot and every retained operation (some may precede
    /// the snapshot; they serve resume, R10). `nil` when the store has no state for the board yet.
    ///
    /// - Throws: `StoreError` when the data cannot be read or decoded.
    func load(board: String) throws(StoreError) -> StoredBoard?

    /// Queues committed operations for the next transaction and returns at once; each part's
    /// `completion` runs on the store's writer once that transaction committed (`nil`) or failed.
    ///
    /// The parts are all or nothing: they commit in one transaction, and if any part cannot be
    /// written (a gap in its board's log, a failed write) every part fails. A move between two
    /// boards hands the source's `moveOut` and the destination's insert over as one call, so no
    /// crash or failure can leave the items on neither board or on both (R14). Appends queued close
    /// together share one transaction (group commit). Completions run in the order of the calls
    /// (and of the parts within a call), and writes (appends and snapshots) happen in that order.
    func append(atomically parts: [BoardAppend])

    /// Queues a snapshot; the same transaction deletes operations more than `retainingLog` before it.
    func saveSnapshot(board: String, snapshot: Snapshot, retainingLog: Int)

    /// Queues a snapshot written under a lease's fencing epoch: a store shared by several nodes
    /// writes it only while `epoch` is still the board's (`nil`: no lease, as for an import). The
    /// embedded store has no leases and ignores the epoch.
    func saveSnapshot(board: String, snapshot: Snapshot, retainingLog: Int, epoch: Int?)

    /// Waits until every queued write has finished (shutdown).
    func drain()

    /// The last failure, if the most recent transaction failed; `nil` when healthy.
    var lastFailure: StoreError? { get }

    /// While `lastFailure` is set, tries a harmless write in the background so the store reports
    /// healthy again (and `/healthz` recovers) as soon as it can save, without waiting for someone's
    /// next operation. Returns at once; does nothing while healthy. The server calls it every second.
    func probeWhileFailing()

    /// A secret kept with the boards, from which a server derives resume tokens (HMAC of board
    /// and client id), so a client's token is still accepted after a restart and its undo history
    /// applies (R10, R13). Created with the store; `nil` for a store that keeps none.
    var resumeSecret: [UInt8]? { get }
}

extension BoardStore {
    /// No secret: rooms hand out random resume tokens.
    public var resumeSecret: [UInt8]? { nil }

    /// Writes the snapshot without a fence (a store without leases).
    public func saveSnapshot(board: String, snapshot: Snapshot, retainingLog: Int, epoch: Int?) {
        saveSnapshot(board: board, snapshot: snapshot, retainingLog: retainingLog)
    }

    /// Queues committed operations of one board; see `append(atomically:)`.
    public func append(
        board: String, operations: [CommittedOperation], completion: @escaping @Sendable (StoreError?) -> Void
    ) {
        append(atomically: [BoardAppend(board: board, operations: operations, completion: completion)])
    }
}

/// One board's operations in an append, and what to run when their transaction ends.
public struct BoardAppend: Sendable {
    /// The board.
    public var board: String
    /// Its committed operations, in seq order, continuing the board's stored log.
    public var operations: [CommittedOperation]
    /// The record the store writes for each operation (its wire JSON), as the room already encoded
    /// it for its broadcast, so a commit is encoded once: one per operation, in the same order.
    /// Empty when the caller did not encode them; the store then encodes each operation itself.
    public var records: [[UInt8]]
    /// The fencing epoch of the lease under which the board's room sequenced them (a node of a
    /// cluster); a shared store refuses the whole append (`StoreError.Kind.fenced`) when it is no
    /// longer the board's epoch. `nil` without leases (one node).
    public var epoch: Int?
    /// The id of a move between boards owned by two nodes: the transaction also records the move
    /// as committed, so the other node learns the outcome even if this one dies before telling it
    /// (a shared store; `nil` otherwise).
    public var moveID: String?
    /// Runs on the store's writer with `nil` once the transaction committed, or its error.
    public var completion: @Sendable (StoreError?) -> Void
    /// What changed in the clients' undo histories with these operations (R13), written in the
    /// same transaction as a delta (`UndoHistory.Changes`: the entries added, the seqs removed, a
    /// client or the whole board replaced). A part may carry only these (no operations): a
    /// refused undo, a forgotten client.
    public var undo: UndoHistory.Changes
    /// The activity entries of these operations (issue 43), written in the same transaction, and
    /// the seq below which the board keeps none any more (the store deletes those), if it moved.
    public var activity: ActivityRecords = ActivityRecords()

    /// Creates a part of an append.
    public init(
        board: String, operations: [CommittedOperation], records: [[UInt8]] = [], epoch: Int? = nil,
        moveID: String? = nil, undo: UndoHistory.Changes = [], completion: @escaping @Sendable (StoreError?) -> Void
    ) {
        precondition(
            records.isEmpty || records.count == operations.count, "A BoardAppend has one record per operation or none.")
        self.board = board
        self.operations = operations
        self.records = records
        self.epoch = epoch
        self.moveID = moveID
        self.undo = undo
        self.completion = completion
    }

    /// The record of the operation at `index`: the one the caller encoded, else `encode`'s.
    public func record(at index: Int, encode: (CommittedOperation) -> [UInt8]?) -> [UInt8]? {
        records.isEmpty ? encode(operations[index]) : records[index]
    }

    /// Whether the part writes anything: operations or undo histories.
    public var writes: Bool { !operations.isEmpty || !undo.isEmpty }
}

/// A board's activity entries in an append (issue 43): the new ones, and how far the board's
/// bounded feed dropped the oldest (R18).
public struct ActivityRecords: Sendable {
    /// One entry as stored: its seq and its JSON (`ActivityCoding.record`).
    public struct Record: Sendable, Equatable {
        public var seq: Int
        public var json: [UInt8]
        /// Creates a record.
        public init(seq: Int, json: [UInt8]) {
            self.seq = seq
            self.json = json
        }
    }

    /// The new entries, in seq order.
    public var added: [Record]
    /// Entries with a smaller seq are no longer kept: the store deletes them (`nil`: unchanged).
    public var keepFrom: Int?

    /// Creates the activity part of an append.
    public init(added: [Record] = [], keepFrom: Int? = nil) {
        self.added = added
        self.keepFrom = keepFrom
    }

    /// Whether there is nothing to write.
    public var isEmpty: Bool { added.isEmpty && keepFrom == nil }
}

/// A board as loaded from a store: a snapshot and retained operations, in seq order.
public struct StoredBoard: Sendable {
    /// The latest snapshot.
    public var snapshot: Snapshot
    /// Retained operations in seq order; those after `snapshot.seq` replay onto it.
    public var log: [CommittedOperation]
    /// Every client's undo and redo entries (R13), in no particular order.
    public var undo: [UndoHistory.StoredEntry]
    /// The board's activity entries (issue 43), oldest first.
    public var activity: [ActivityRecords.Record]

    /// Creates a stored board.
    public init(
        snapshot: Snapshot, log: [CommittedOperation], undo: [UndoHistory.StoredEntry] = [],
        activity: [ActivityRecords.Record] = []
    ) {
        self.snapshot = snapshot
        self.log = log
        self.undo = undo
        self.activity = activity
    }
}
