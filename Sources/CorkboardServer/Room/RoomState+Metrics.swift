/// What a room has already reported to its `ServerMetrics`, so each batch reports only what changed.
struct MetricsTally {
    /// The seq up to which committed operations were counted: the durable head (the head without
    /// a store), so an operation counts once it is committed for good.
    var countedHead: Int
    /// `Members.shedDeliveries` when last reported.
    var countedShed = 0
    /// When the batch being handled was posted to the room's inbox (`nil` for a batch handed to
    /// `process(_:)` by hand): where a drop's broadcast time starts.
    var batchPostedAt: ContinuousClock.Instant?
}

/// Counting per batch, never per recipient: one comparison per batch when nothing changed.
extension RoomState {
    /// Counts the operations that became durable (or, without a store, were committed) and the
    /// ephemeral messages shed for slow members since the last batch.
    mutating func reportMetrics() {
        let head = durableHead
        if head != tally.countedHead {
            if head > tally.countedHead { configuration.metrics.countCommitted(head - tally.countedHead) }
            tally.countedHead = head
        }
        let shed = members.shedDeliveries
        if shed != tally.countedShed {
            configuration.metrics.countEphemeralDropped(shed &- tally.countedShed)
            tally.countedShed = shed
        }
    }

    /// When the message being handled reached the room: its batch's posting time, else now.
    var batchStart: ContinuousClock.Instant { tally.batchPostedAt ?? .now }
}
