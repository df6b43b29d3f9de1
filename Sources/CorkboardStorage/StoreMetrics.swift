public import CoreMetrics

/// What a store's writer thread times and counts, as swift-metrics handles (no-ops until the
/// process bootstraps a backend): one record per transaction, on the writer thread, never per
/// operation. Both stores record the same series with the same meaning (the SQLite store and the
/// PostgreSQL store of a cluster node), so a dashboard does not care which one a node runs on.
public final class StoreMetrics: Sendable {
    /// The metric names, shared with the documentation (README, "Metrics").
    public enum Name {
        /// Histogram (seconds): one transaction of operations that committed: encoding them, then
        /// `BEGIN` to `COMMIT` returning (SQLite with `--durability full`: its fsync; PostgreSQL:
        /// the lease checks under `FOR SHARE`, the insert and the server's WAL flush).
        public static let commit = "corkboard_store_commit_seconds"
        /// Histogram: operations written by one committed transaction (group commit: every room's
        /// batch that was queued while the previous transaction committed).
        public static let batchOperations = "corkboard_store_batch_operations"
        /// Histogram: room batches (appends) written by one committed transaction.
        public static let batchAppends = "corkboard_store_batch_appends"
        /// Histogram (seconds): encoding and writing one snapshot, with the compaction behind it.
        public static let snapshot = "corkboard_store_snapshot_seconds"
    }

    let commit: CoreMetrics.Timer
    let batchOperations: Recorder
    let batchAppends: Recorder
    let snapshot: CoreMetrics.Timer

    /// Handles made by `factory`.
    public init(factory: any MetricsFactory) {
        commit = CoreMetrics.Timer(label: Name.commit, dimensions: [], factory: factory)
        batchOperations = Recorder(label: Name.batchOperations, dimensions: [], aggregate: true, factory: factory)
        batchAppends = Recorder(label: Name.batchAppends, dimensions: [], aggregate: true, factory: factory)
        snapshot = CoreMetrics.Timer(label: Name.snapshot, dimensions: [], factory: factory)
    }

    /// Handles from the process's bootstrapped `MetricsSystem`, made anew on each read.
    public static var system: StoreMetrics { StoreMetrics(factory: MetricsSystem.factory) }

    /// Records one transaction of `operations` operations from `appends` appends that took `elapsed`.
    public func recordCommit(operations: Int, appends: Int, elapsed: Duration) {
        commit.record(elapsed)
        batchOperations.record(operations)
        batchAppends.record(appends)
    }

    /// Records one snapshot written in `elapsed`.
    public func recordSnapshot(elapsed: Duration) { snapshot.record(elapsed) }
}

extension CoreMetrics.Timer {
    /// Records `duration` (in whole nanoseconds): how the stores and the rooms time what they do.
    public func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
