/// How busy a ``LeanWebSocketClient``'s loop thread has been since it started: the wall time it
/// spent in rounds (from `epoll_wait` returning to the next call of it: handling the ready
/// sockets, taking what other threads queued, writing) and how long those rounds took.
///
/// A message that arrives while the loop is in a round waits for the rest of it, and a frame
/// queued by another thread waits for the next one, so a loop busy most of the time, or with long
/// rounds, delays what a load run measures by about that much (the tool's own queueing, not the
/// server's). Rounds count wall time, including time the thread was preempted.
///
/// The counts only grow: take the stats over an interval with ``since(_:)``.
public struct LeanLoopStats: Sendable, Equatable, Codable {
    /// Wall time spent in rounds, in nanoseconds.
    public var busyNanos: UInt64 = 0
    /// Rounds counted.
    public var rounds: UInt64 = 0
    /// Rounds by length in microseconds, one bucket per microsecond below 8, then 8 per power of
    /// two; empty until the first round.
    public var roundCounts: [UInt64] = []

    public init() {}

    /// Counts one round of `nanos` nanoseconds.
    public mutating func record(roundNanos nanos: UInt64) {
        busyNanos &+= nanos
        rounds &+= 1
        if roundCounts.isEmpty { roundCounts = Array(repeating: 0, count: Self.bucketCount) }
        roundCounts[Self.bucket(microseconds: nanos / 1000)] &+= 1
    }

    /// What was counted after `earlier` (a snapshot of the same loop taken before this one).
    public func since(_ earlier: LeanLoopStats) -> LeanLoopStats {
        var result = LeanLoopStats()
        result.busyNanos = busyNanos &- earlier.busyNanos
        result.rounds = rounds &- earlier.rounds
        if !roundCounts.isEmpty {
            result.roundCounts = roundCounts.indices.map { index in
                roundCounts[index] &- (index < earlier.roundCounts.count ? earlier.roundCounts[index] : 0)
            }
        }
        return result
    }

    /// Both counts together (several loops, or several processes, over the same interval).
    public func adding(_ other: LeanLoopStats) -> LeanLoopStats {
        var result = self
        result.busyNanos &+= other.busyNanos
        result.rounds &+= other.rounds
        if result.roundCounts.isEmpty {
            result.roundCounts = other.roundCounts
        } else {
            for (index, count) in other.roundCounts.enumerated() { result.roundCounts[index] &+= count }
        }
        return result
    }

    /// The round length at or below which `percent` % of the rounds fell, in microseconds: the
    /// upper bound of the bucket holding that rank (at most 12.5 % above the true value); 0 with
    /// no rounds.
    public func roundMicroseconds(atPercentile percent: Double) -> UInt64 {
        guard rounds > 0 else { return 0 }
        let rank = max(1, UInt64((Double(rounds) * min(100, max(0, percent)) / 100).rounded(.up)))
        var seen: UInt64 = 0
        for (index, count) in roundCounts.enumerated() {
            seen += count
            if seen >= rank { return Self.upperBound(ofBucket: index) }
        }
        return Self.upperBound(ofBucket: Self.bucketCount - 1)
    }

    /// The round length at or below which `percent` % of the busy time was spent (each round
    /// weighted by its length, taken as its bucket's middle), in microseconds: what a message
    /// arriving while the loop is busy meets. Half the busy time went to rounds longer than the
    /// 50th. 0 with no rounds.
    public func roundMicroseconds(atTimePercentile percent: Double) -> UInt64 {
        guard rounds > 0 else { return 0 }
        let weights = roundCounts.indices.map { Double(roundCounts[$0]) * Self.middle(ofBucket: $0) }
        let total = weights.reduce(0, +)
        guard total > 0 else { return roundMicroseconds(atPercentile: percent) }
        let target = total * min(100, max(0, percent)) / 100
        var seen = 0.0
        for (index, weight) in weights.enumerated() where weight > 0 {
            seen += weight
            if seen >= target { return Self.upperBound(ofBucket: index) }
        }
        return longestRoundMicroseconds
    }

    /// The longest round's bucket bound, in microseconds (0 with no rounds).
    public var longestRoundMicroseconds: UInt64 {
        guard let last = roundCounts.lastIndex(where: { $0 > 0 }) else { return 0 }
        return Self.upperBound(ofBucket: last)
    }

    // MARK: Buckets: 8 per power of two above 8 µs, one per microsecond below

    /// Buckets kept: rounds up to 2^26 µs (67 s) apart, longer ones in the last.
    static let bucketCount = 192

    /// The bucket of a round of `micros` microseconds.
    static func bucket(microseconds micros: UInt64) -> Int {
        guard micros >= 8 else { return Int(micros) }
        let octave = 63 - micros.leadingZeroBitCount  // at least 3
        let sub = Int((micros >> UInt64(octave - 3)) & 7)
        return min(bucketCount - 1, (octave - 2) * 8 + sub)
    }

    /// The middle of `bucket`'s lengths, in microseconds (a round under 1 µs counts as half of one).
    static func middle(ofBucket bucket: Int) -> Double {
        let low = bucket == 0 ? 0 : Double(upperBound(ofBucket: bucket - 1) + 1)
        return (low + Double(upperBound(ofBucket: bucket)) + (bucket == 0 ? 1 : 0)) / 2
    }

    /// The largest round length (µs) that falls in `bucket`.
    static func upperBound(ofBucket bucket: Int) -> UInt64 {
        guard bucket >= 8 else { return UInt64(bucket) }
        let octave = bucket / 8 + 2
        let sub = UInt64(bucket % 8)
        return ((8 + sub + 1) << UInt64(octave - 3)) - 1
    }
}
