import CorkboardModel

/// What one batch counted for the server's metrics: the state decides the counts, the `Room`
/// reports them (`RoomAction.count`), once per batch and never per recipient.
struct RoomCounts: Equatable {
    /// Operations that became durable (committed, without a store).
    var committed = 0
    /// Operations and drops refused, by code.
    var rejected: [RejectCode: Int] = [:]
    /// Ephemeral messages shed for slow members (R11).
    var ephemeralDropped = 0

    /// Whether there is nothing to report.
    var isEmpty: Bool { committed == 0 && rejected.isEmpty && ephemeralDropped == 0 }
}

/// What a room has already reported to its `ServerMetrics`, so each batch reports only what changed.
struct MetricsTally {
    /// The seq up to which committed operations were counted: the durable head (the head without
    /// a store), so an operation counts once it is committed for good.
    var countedHead: Int
    /// `Members.shedDeliveries` when last reported.
    var countedShed = 0
    /// What the batch being handled counted so far.
    var batch = RoomCounts()
    /// When the batch being handled was posted to the room's inbox (`nil` for a batch handed to
    /// `process(_:)` by hand): where a drop's broadcast time starts.
    var batchPostedAt: ContinuousClock.Instant?
}

/// Counting per batch, never per recipient: one comparison per batch when nothing changed.
extension RoomState {
    /// Counts a refusal (`by` operations at once) for the batch's report.
    mutating func countRejected(_ code: RejectCode, by count: Int = 1) {
        tally.batch.rejected[code, default: 0] += count
    }

    /// Ends the batch's counting: adds the operations that became durable (or, without a store,
    /// were committed) and the ephemeral messages shed for slow members since the last batch, and
    /// asks the actor to report them when there is anything to report.
    mutating func reportMetrics() {
        let head = durableHead
        if head != tally.countedHead {
            if head > tally.countedHead { tally.batch.committed += head - tally.countedHead }
            tally.countedHead = head
        }
        let shed = members.shedDeliveries
        if shed != tally.countedShed {
            tally.batch.ephemeralDropped += shed &- tally.countedShed
            tally.countedShed = shed
        }
        guard !tally.batch.isEmpty else { return }
        actions.append(.count(tally.batch))
        tally.batch = RoomCounts()
    }

    /// When the message being handled reached the room: its batch's posting time, else now.
    var batchStart: ContinuousClock.Instant { tally.batchPostedAt ?? .now }
}
