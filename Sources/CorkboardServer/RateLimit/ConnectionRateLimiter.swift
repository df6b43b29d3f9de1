/// One connection's rate limits: a token bucket per kind of message, and per kind a second bucket
/// of "strikes" that refused messages take, so a connection that keeps going past its limit is
/// closed (see `RateLimits`). A value the hub keeps per connection.
public struct ConnectionRateLimiter: Sendable {
    /// What happens to a message.
    public enum Verdict: Equatable, Sendable {
        /// Within the limit: handle it.
        case accept
        /// Over the limit: drop it; answer `rate-limited` when `notify`.
        case refuse(notify: Bool)
        /// Over the limit again and again: close the connection 1008.
        case close
    }

    private var operations: Lane
    private var ephemeral: Lane

    private struct Lane {
        var bucket: TokenBucket
        var strikes: TokenBucket
        /// Whether the connection was told of the current overrun (ephemeral updates are told once).
        var notified = false

        init(_ limit: RateLimit, closeWindow: Duration) {
            bucket = TokenBucket(limit)
            // `burst` refusals within `closeWindow` empty it; it refills at that pace.
            let strikes = max(1, limit.burst)
            self.strikes = TokenBucket(
                limit.isEnabled
                    ? RateLimit(perSecond: Double(strikes) / max(0.001, closeWindow / .seconds(1)), burst: strikes)
                    : .off)
        }
    }

    /// A connection's limiter with full buckets.
    public init(_ limits: RateLimits) {
        operations = Lane(limits.operations, closeWindow: limits.closeWindow)
        ephemeral = Lane(limits.ephemeral, closeWindow: limits.closeWindow)
    }

    /// Counts a message of `kind` at `now` and says what to do with it.
    ///
    /// - Complexity: O(1).
    public mutating func admit(_ kind: RateLimitedKind, at now: BoardTime) -> Verdict {
        switch kind {
        case .operations: Self.admit(&operations, at: now, notifyEvery: true)
        case .ephemeral: Self.admit(&ephemeral, at: now, notifyEvery: false)
        }
    }

    private static func admit(_ lane: inout Lane, at now: BoardTime, notifyEvery: Bool) -> Verdict {
        if lane.bucket.take(at: now) {
            lane.notified = false
            return .accept
        }
        guard lane.strikes.take(at: now) else { return .close }
        defer { lane.notified = true }
        return .refuse(notify: notifyEvery || !lane.notified)
    }
}
