public import CoreMetrics
import CorkboardModel
import CorkboardStorage

/// What the hub and the rooms count and time, as swift-metrics handles: the backend is whatever
/// the process bootstrapped (`corkboard serve --metrics-listen` bootstraps Prometheus; without it
/// every handle is a no-op). Rooms never see the backend, only these handles.
///
/// Updates are made per batch or per broadcast, never per recipient: a batch's committed
/// operations are counted once when it ends, a drop's broadcast is timed once when its frame has
/// gone to every member, and shed ephemeral messages are summed per batch.
public final class ServerMetrics: Sendable {
    /// The metric names, shared with the documentation (README, "Metrics").
    public enum Name {
        /// Counter: operations committed (`result="committed"`, `code="ok"`) or rejected
        /// (`result="rejected"`, `code` the rejection code).
        public static let operations = "corkboard_operations_total"
        /// Histogram (seconds): a drop handed to its room → its `op` written to every other member.
        public static let dropBroadcast = "corkboard_drop_broadcast_seconds"
        /// Counter: ephemeral messages (hovers, cursors, presence, drag starts and ends) not sent to
        /// a slow member (R11), one per message and member.
        public static let ephemeralDropped = "corkboard_ephemeral_dropped_total"
        /// Counter: connections closed for not keeping up; `by="room"` (R11, 8 MiB unsent) or
        /// `by="transport"` (the hard bound).
        public static let slowConsumerCloses = "corkboard_slow_consumer_closes_total"
        /// Counter: messages refused `rate-limited`, by `kind` (`operations`, `ephemeral`).
        public static let rateLimited = "corkboard_rate_limited_total"
        /// Counter: connections closed 1008 for going on past their rate limit, by `kind`.
        public static let rateLimitCloses = "corkboard_rate_limit_closes_total"
    }

    let committed: Counter
    let rejected: [RejectCode: Counter]
    let dropBroadcast: CoreMetrics.Timer
    let ephemeralDropped: Counter
    let slowClientCloses: Counter
    let rateLimited: [RateLimitedKind: Counter]
    let rateLimitCloses: [RateLimitedKind: Counter]

    /// Handles made by `factory`. Every labelled series is made here, once, so counting is a
    /// dictionary read and an increment.
    public init(factory: any MetricsFactory) {
        committed = Counter(
            label: Name.operations, dimensions: [("result", "committed"), ("code", "ok")], factory: factory)
        var rejected: [RejectCode: Counter] = [:]
        for code in RejectCode.allCases {
            rejected[code] = Counter(
                label: Name.operations, dimensions: [("result", "rejected"), ("code", code.rawValue)],
                factory: factory)
        }
        self.rejected = rejected
        dropBroadcast = CoreMetrics.Timer(label: Name.dropBroadcast, dimensions: [], factory: factory)
        ephemeralDropped = Counter(label: Name.ephemeralDropped, dimensions: [], factory: factory)
        slowClientCloses = Counter(label: Name.slowConsumerCloses, dimensions: [("by", "room")], factory: factory)
        var limited: [RateLimitedKind: Counter] = [:]
        var closes: [RateLimitedKind: Counter] = [:]
        for kind in RateLimitedKind.allCases {
            limited[kind] = Counter(label: Name.rateLimited, dimensions: [("kind", kind.rawValue)], factory: factory)
            closes[kind] = Counter(label: Name.rateLimitCloses, dimensions: [("kind", kind.rawValue)], factory: factory)
        }
        rateLimited = limited
        rateLimitCloses = closes
    }

    /// Handles from the process's bootstrapped `MetricsSystem` (no-ops until one is bootstrapped),
    /// made anew on each read.
    public static var system: ServerMetrics { ServerMetrics(factory: MetricsSystem.factory) }

    /// Reports what a room's batch counted (`RoomAction.count`).
    func count(_ counts: RoomCounts) {
        if counts.committed > 0 { countCommitted(counts.committed) }
        for (code, count) in counts.rejected { countRejected(code, by: count) }
        if counts.ephemeralDropped > 0 { countEphemeralDropped(counts.ephemeralDropped) }
    }

    /// Counts operations committed for good (durable, with a store).
    func countCommitted(_ count: Int) { committed.increment(by: count) }

    /// Counts operations rejected with `code`.
    func countRejected(_ code: RejectCode, by count: Int = 1) { rejected[code]?.increment(by: count) }

    /// Records a drop's broadcast that reached every peer, timed from `since`.
    func recordDropBroadcast(since: ContinuousClock.Instant) {
        dropBroadcast.record(ContinuousClock.now - since)
    }

    /// Counts ephemeral deliveries shed for slow members.
    func countEphemeralDropped(_ count: Int) { ephemeralDropped.increment(by: count) }

    /// Counts a room's slow-client close.
    func countSlowClientClose() { slowClientCloses.increment() }

    /// Counts a message refused `rate-limited`, and the close when it is one.
    func countRateLimited(_ kind: RateLimitedKind, closing: Bool) {
        rateLimited[kind]?.increment()
        if closing { rateLimitCloses[kind]?.increment() }
    }
}
