public import CorkboardModel

/// What a store supplies to its ``GroupCommitWriter``: how it encodes an append, writes one
/// transaction of appends, writes a snapshot, reads a board's stored seq and probes its database.
///
/// Everything else is the writer's, the same on every store: the queue, grouping the appends that
/// arrived while the previous transaction committed, the order of writes and completions, the
/// check that each board's log continues without a gap, the last failure and the probe. Every
/// method runs on the writer's thread, one at a time.
public protocol GroupCommitBackend: Sendable {
    /// One append's rows as the store writes them, encoded before its transaction begins.
    associatedtype Rows

    /// The highest seq stored for a board, in its log or a snapshot (0 for none).
    ///
    /// - Throws: `StoreError` when the database cannot be read; the append that asked fails alone.
    func storedSeq(of board: String) throws(StoreError) -> Int

    /// Encodes the parts of one append (their operations and undo histories) off the database's
    /// time.
    ///
    /// - Throws: `StoreError` (`invalidData`) when a part cannot be encoded; the append fails alone.
    func encode(_ parts: [BoardAppend]) throws(StoreError) -> Rows

    /// Writes one transaction: begins it, runs the store's own checks of the entries (refusing
    /// those that must not be written, ``GroupCommitTransaction/refuse(_:_:)``), writes the rows of
    /// ``GroupCommitTransaction/admit()`` and commits.
    ///
    /// - Throws: `StoreError` when the transaction did not commit: nothing of it was written, and
    ///   every append that went into it fails with the error.
    func write(_ transaction: inout GroupCommitTransaction<Rows>) throws(StoreError)

    /// Writes a snapshot and deletes what it makes unnecessary (older snapshots, operations more
    /// than `retainingLog` before it), in one transaction.
    func writeSnapshot(_ snapshot: SnapshotWrite) -> SnapshotOutcome

    /// A harmless write transaction: it commits once the database can be written again.
    ///
    /// - Throws: `StoreError` while it cannot.
    func probe() throws(StoreError)
}

/// A snapshot queued for the writer.
public struct SnapshotWrite: Sendable {
    /// The board.
    public var board: String
    /// The board at `snapshot.seq`.
    public var snapshot: Snapshot
    /// How many operations before the snapshot its transaction keeps (resume, R10).
    public var retainingLog: Int
    /// The lease epoch it is written under on a shared store (`nil`: no lease, or no leases).
    public var epoch: Int?

    /// A snapshot to write.
    public init(board: String, snapshot: Snapshot, retainingLog: Int, epoch: Int? = nil) {
        self.board = board
        self.snapshot = snapshot
        self.retainingLog = retainingLog
        self.epoch = epoch
    }
}

/// How a snapshot's transaction ended.
public enum SnapshotOutcome: Sendable {
    /// It committed.
    case written
    /// Nothing was written: its epoch is no longer the board's (another node holds the board).
    /// Not a database failure.
    case fenced
    /// It failed, and nothing of it was written.
    case failed(StoreError)
}
