import CorkboardModel
import Foundation

/// How a room behaves; every default is spelled out.
public struct RoomConfiguration: Sendable {
    /// How often coalesced ephemeral updates (peers' drop proposals, cursors, presence) go out:
    /// at most one per drag session or member per tick. Default 33 ms.
    public var tick: Duration
    /// How often the room ends quiet drags and cleans up placeholders. Default 1 s.
    public var sweepInterval: Duration
    /// A drag with no update for this long loses its lease (R9). Default 15 s.
    public var leaseQuietPeriod: Double
    /// A departed owner's placeholders are deleted after this long without a resume (R8). Default 30 s.
    public var placeholderGracePeriod: Double
    /// A placeholder uncommitted for this long is deleted (R8). Default 300 s.
    public var placeholderMaximumAge: Double
    /// A connection with more unsent bytes than this loses ephemeral updates, coalesced to the
    /// latest per drag session and member, until it drains (R11). Default 256 KiB.
    public var slowClientBytes: Int
    /// A connection with more unsent bytes than this is closed 1008 ("too slow") so it can resume
    /// (R10) instead of falling further behind. Default 8 MiB, below the transport's hard bound.
    public var slowClientCloseBytes: Int
    /// Invalid messages tolerated per `invalidMessageWindow` before the connection is closed 1008.
    /// Default 20.
    public var invalidMessageLimit: Int
    /// The window for `invalidMessageLimit`, in seconds. Default 10.
    public var invalidMessageWindow: Double
    /// A connection that has not joined a board this long after connecting is closed 4001. Default 10 s.
    public var helloTimeout: Double
    /// With a store, a snapshot is saved every this many operations (and at shutdown). Default 1,000.
    public var snapshotInterval: Int
    /// The sequencer's retention (resume log and resend memory).
    public var sequencer: Sequencer.Configuration

    /// Creates a configuration.
    public init(
        tick: Duration = .milliseconds(33),
        sweepInterval: Duration = .seconds(1),
        leaseQuietPeriod: Double = LeaseTable.defaultQuietPeriod,
        placeholderGracePeriod: Double = PlaceholderLimits.ownerGracePeriod,
        placeholderMaximumAge: Double = PlaceholderLimits.maximumAge,
        slowClientBytes: Int = 256 * 1024,
        slowClientCloseBytes: Int = 8 * 1024 * 1024,
        invalidMessageLimit: Int = 20,
        invalidMessageWindow: Double = 10,
        helloTimeout: Double = 10,
        snapshotInterval: Int = 1_000,
        sequencer: Sequencer.Configuration = Sequencer.Configuration()
    ) {
        self.tick = tick
        self.sweepInterval = sweepInterval
        self.leaseQuietPeriod = leaseQuietPeriod
        self.placeholderGracePeriod = placeholderGracePeriod
        self.placeholderMaximumAge = placeholderMaximumAge
        self.slowClientBytes = slowClientBytes
        self.slowClientCloseBytes = slowClientCloseBytes
        self.invalidMessageLimit = invalidMessageLimit
        self.invalidMessageWindow = invalidMessageWindow
        self.helloTimeout = helloTimeout
        self.snapshotInterval = snapshotInterval
        self.sequencer = sequencer
    }

    /// The tick in whole milliseconds, as announced in `welcome`.
    var tickMilliseconds: Int {
        let (seconds, attoseconds) = tick.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// The room's clock: wall-clock seconds (placeholder ages are stored in the board and outlive a
/// restart). Tests inject a manual one.
public struct RoomClock: Sendable {
    /// Reads the time in seconds.
    public var now: @Sendable () -> Double

    /// Creates a clock from a reading function.
    public init(now: @escaping @Sendable () -> Double) { self.now = now }

    /// Seconds since 1970 from the system clock.
    public static let system = RoomClock { Date().timeIntervalSince1970 }
}
