import Foundation

/// A moment on the wall clock, as the rooms, the hub and the directory read it.
///
/// Rooms use wall-clock time because a placeholder's creation time is stored in the board (R8)
/// and outlives a restart; the board model takes it in seconds (`secondsSince1970`), converted
/// here at the edge. Periods are `Duration`s.
public struct BoardTime: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// The time since 1970-01-01 00:00 UTC.
    public var sinceEpoch: Duration

    /// A moment `sinceEpoch` after 1970-01-01 00:00 UTC.
    public init(sinceEpoch: Duration) { self.sinceEpoch = sinceEpoch }

    /// A moment given in seconds since 1970, as the board model and records store it.
    public init(secondsSince1970 seconds: Double) { sinceEpoch = .seconds(seconds) }

    /// Seconds since 1970, as the board model and records store them.
    public var secondsSince1970: Double { sinceEpoch / .seconds(1) }

    /// The moment `duration` later.
    public func advanced(by duration: Duration) -> BoardTime { BoardTime(sinceEpoch: sinceEpoch + duration) }

    /// The time from this moment to `other`.
    public func duration(to other: BoardTime) -> Duration { other.sinceEpoch - sinceEpoch }

    /// Whether `a` is earlier than `b`.
    public static func < (a: BoardTime, b: BoardTime) -> Bool { a.sinceEpoch < b.sinceEpoch }

    /// Seconds since 1970.
    public var description: String { "\(secondsSince1970)" }
}

/// The one clock a server's rooms, hub and directory read and sleep on: every period they keep
/// (the tick, sweeps, lease and placeholder limits, timeouts) is a `Duration` on it.
///
/// `SystemBoardClock` is the wall clock; tests inject a manual clock (`CorkboardTesting`) and
/// move it by hand, so timeouts are tested without waiting for them.
public protocol BoardClock: Clock where Instant == BoardTime {}

/// The system's wall clock; sleeping waits on the continuous clock.
public struct SystemBoardClock: BoardClock {
    /// The system clock.
    public init() {}

    /// Now.
    public var now: BoardTime { BoardTime(secondsSince1970: Date().timeIntervalSince1970) }

    /// One microsecond.
    public var minimumResolution: Duration { .microseconds(1) }

    /// Waits until the wall clock reads `deadline`.
    public func sleep(until deadline: BoardTime, tolerance: Duration?) async throws {
        let wait = now.duration(to: deadline)
        guard wait > .zero else { return try Task.checkCancellation() }
        try await ContinuousClock().sleep(for: wait, tolerance: tolerance)
    }
}
