/// A token bucket: it holds at most `burst` tokens and refills at `perSecond` tokens a second;
/// each message takes one, and a message that finds the bucket empty is over the limit.
///
/// A value read against the rooms' `BoardClock`, so tests move time by hand. The clock is the wall
/// clock: a reading earlier than the last one (the clock was set back) refills nothing, and a jump
/// forward at most fills the bucket, so a clock change never refuses more than the limit says.
public struct TokenBucket: Sendable, Equatable {
    /// The bucket's size and refill rate.
    public let limit: RateLimit
    /// Tokens in the bucket at `updated`.
    private(set) var tokens: Double
    /// When `tokens` was last brought up to date.
    private var updated: BoardTime?

    /// A full bucket for `limit`.
    public init(_ limit: RateLimit) {
        self.limit = limit
        tokens = Double(limit.burst)
    }

    /// Takes one token at `now`; returns `false` (taking nothing) when the bucket is empty.
    /// An unlimited bucket (`RateLimit.off`) always has one.
    ///
    /// - Complexity: O(1).
    public mutating func take(at now: BoardTime) -> Bool {
        guard limit.isEnabled else { return true }
        refill(at: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// The tokens the bucket holds at `now` (whole ones can be taken).
    public mutating func available(at now: BoardTime) -> Double {
        guard limit.isEnabled else { return .infinity }
        refill(at: now)
        return tokens
    }

    private mutating func refill(at now: BoardTime) {
        defer { updated = now }
        guard let updated else { return }
        let elapsed = updated.duration(to: now) / .seconds(1)
        guard elapsed > 0 else { return }
        tokens = min(Double(limit.burst), tokens + elapsed * limit.perSecond)
    }
}

/// A rate: `perSecond` messages a second on average, `burst` at once.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Messages a second on average; 0 turns the limit off.
    public var perSecond: Double
    /// Messages that may come at once (the bucket's size); at least 1 when the limit is on.
    public var burst: Int

    /// A limit of `perSecond` messages a second with bursts of `burst`.
    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// No limit.
    public static let off = RateLimit(perSecond: 0, burst: 0)

    /// Whether the limit applies (a positive rate).
    public var isEnabled: Bool { perSecond > 0 }

    /// `20/s, bursts of 40` or `off`.
    public var description: String {
        guard isEnabled else { return "off" }
        let rate = perSecond == perSecond.rounded() ? "\(Int(perSecond))" : "\(perSecond)"
        return "\(rate)/s, bursts of \(burst)"
    }
}
