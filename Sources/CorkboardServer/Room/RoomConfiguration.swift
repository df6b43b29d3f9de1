public import CorkboardModel

/// How a room behaves; every default is spelled out. Periods are `Duration`s on the room's
/// `BoardClock`.
public struct RoomConfiguration: Sendable {
    /// How often coalesced ephemeral updates (cursors, presence, and peers' drop proposals while
    /// the server is busy) go out: at most one per drag session or member per tick. Default 33 ms.
    public var tick: Duration
    /// How long a hover may wait, while the server is not busy, for the room's other hovers to go
    /// out in the same socket writes: at most one hover send per room per window, the first one
    /// at once. Zero sends each batch's hovers as it ends. Default 8 ms (a quarter of the tick).
    public var hoverWindow: Duration
    /// How the tick stretches while the server is busy (every room of a server together), so that
    /// committed operations keep their latency. Default `TickPacing()`: up to 500 ms above 75 %
    /// of the CPUs the process may use.
    public var tickPacing: TickPacing
    /// How often the room ends quiet drags and cleans up placeholders. Default 1 s.
    public var sweepInterval: Duration
    /// A drag with no update for this long loses its lease (R9). Default 15 s.
    public var leaseQuietPeriod: Duration
    /// A departed owner's placeholders are deleted after this long without a resume (R8). Default 30 s.
    public var placeholderGracePeriod: Duration
    /// A placeholder uncommitted for this long is deleted (R8). Default 300 s.
    public var placeholderMaximumAge: Duration
    /// A connection with more unsent bytes than this loses ephemeral updates, coalesced to the
    /// latest per drag session and member, until it drains (R11). Default 256 KiB.
    public var slowClientBytes: Int
    /// A connection with more unsent bytes than this is closed 1008 ("too slow") so it can resume
    /// (R10) instead of falling further behind. Default 8 MiB, below the transport's hard bound.
    public var slowClientCloseBytes: Int
    /// Invalid messages tolerated per `invalidMessageWindow` before the connection is closed 1008.
    /// Default 20.
    public var invalidMessageLimit: Int
    /// The window for `invalidMessageLimit`. Default 10 s.
    public var invalidMessageWindow: Duration
    /// A connection that has not joined a board this long after connecting is closed 4001. Default 10 s.
    public var helloTimeout: Duration
    /// With a store, a snapshot is saved every this many operations (and at shutdown). Default 1,000.
    public var snapshotInterval: Int
    /// With a store, a snapshot is also saved once the operations since the last one hold this
    /// many bytes (`CommittedOperation.estimatedBytes`, R18), so the stored log behind it stays
    /// small when operations are big. Default 32 MiB.
    public var snapshotBytes: Int
    /// The sequencer's retention (resume log and resend memory) and the board's size limit
    /// (`maxSnapshotBytes`, 64 MiB by default, R14).
    public var sequencer: Sequencer.Configuration
    /// A board whose snapshot is estimated at most this large goes inline in `welcome` and
    /// `synced`; a larger one follows in `snapshotPart` messages (R14). Default 1 MiB.
    public var inlineSnapshotBytes: Int
    /// The size a snapshot part aims at (a part ends at the first element past it). Default 256 KiB.
    public var snapshotPartBytes: Int
    /// The next part goes out only while the member has fewer unsent bytes than this (flow
    /// control), so a transfer never nears the slow-client close. Default 1 MiB.
    public var snapshotWindowBytes: Int
    /// A transfer that makes no progress (the member reads nothing) for this long closes the
    /// connection like a slow client (R11). Default 15 s.
    public var snapshotStallTimeout: Duration
    /// How often active transfers are checked for room in their window. Default 10 ms.
    public var snapshotPumpInterval: Duration
    /// How long a board's encoding in parts is kept after its last transfer began, so the next
    /// joiners get it and the operations since (O(change) for the room) rather than the board
    /// encoded anew; then the sweep lets it go, so an idle room holds no copy. Default 60 s.
    public var sharedPartsRetention: Duration
    /// Per-connection rate limits the hub enforces before a room sees a message. Default
    /// `RateLimits.standard` (20 operations and 60 ephemeral updates a second).
    public var rateLimits: RateLimits
    /// Where the hub and the rooms count and time what they do (`corkboard_…` metrics). Default:
    /// handles from the process's bootstrapped `MetricsSystem` (no-ops until one is bootstrapped).
    public var metrics: ServerMetrics
    /// Derives the resume token of a (board, client id) from a secret the nodes of a cluster share,
    /// so a node that takes a board over accepts the tokens another node gave (R10 across nodes).
    /// `nil` (one node): random tokens each room remembers.
    public var resumeTokens: (@Sendable (_ board: String, _ clientId: String) -> String)?
    /// An edit lease with no `editBegin` (refresh) or save from its editor for this long ends (R12).
    /// Default 60 s.
    public var editLeaseQuietPeriod: Duration
    /// The bounds of every client's undo and redo history (R13): 200 entries a stack by default.
    public var undoHistory: UndoHistory.Configuration
    /// How many departed clients a room remembers (R10): their resume tokens, and with them
    /// their undo histories. The least recently departed are forgotten first, and may then join
    /// again under their ids like new clients. Default ``defaultRememberedClients``.
    public var rememberedClients: Int
    /// 32 MiB of operations between snapshots at most (`snapshotBytes`).
    public static let defaultSnapshotBytes = 32 << 20
    /// 1,000 departed clients, as many as keep an undo history (`UndoHistory.Configuration.clients`).
    public static let defaultRememberedClients = 1_000

    /// The bounds of each board's activity feed (issue 43, R18), in memory and in the store.
    public var activityLimits = ActivityFeedLimits()

    /// Creates a configuration.
    public init(
        tick: Duration = .milliseconds(33),
        tickPacing: TickPacing = TickPacing(),
        hoverWindow: Duration = .milliseconds(8),
        sweepInterval: Duration = .seconds(1),
        leaseQuietPeriod: Duration = .seconds(LeaseTable.defaultQuietPeriod),
        placeholderGracePeriod: Duration = .seconds(PlaceholderLimits.ownerGracePeriod),
        placeholderMaximumAge: Duration = .seconds(PlaceholderLimits.maximumAge),
        slowClientBytes: Int = 256 * 1024,
        slowClientCloseBytes: Int = 8 * 1024 * 1024,
        invalidMessageLimit: Int = 20,
        invalidMessageWindow: Duration = .seconds(10),
        helloTimeout: Duration = .seconds(10),
        snapshotInterval: Int = 1_000,
        snapshotBytes: Int = RoomConfiguration.defaultSnapshotBytes,
        sequencer: Sequencer.Configuration = Sequencer.Configuration(),
        inlineSnapshotBytes: Int = 1 << 20,
        snapshotPartBytes: Int = 256 << 10,
        snapshotWindowBytes: Int = 1 << 20,
        snapshotStallTimeout: Duration = .seconds(15),
        snapshotPumpInterval: Duration = .milliseconds(10),
        sharedPartsRetention: Duration = .seconds(60),
        rateLimits: RateLimits = .standard,
        metrics: ServerMetrics = .system,
        editLeaseQuietPeriod: Duration = .seconds(EditLeaseTable.defaultQuietPeriod),
        undoHistory: UndoHistory.Configuration = UndoHistory.Configuration(),
        rememberedClients: Int = RoomConfiguration.defaultRememberedClients,
        resumeTokens: (@Sendable (_ board: String, _ clientId: String) -> String)? = nil
    ) {
        self.editLeaseQuietPeriod = editLeaseQuietPeriod
        self.undoHistory = undoHistory
        self.rememberedClients = rememberedClients
        self.resumeTokens = resumeTokens
        self.tick = tick
        self.tickPacing = tickPacing
        self.hoverWindow = hoverWindow
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
        self.snapshotBytes = snapshotBytes
        self.sequencer = sequencer
        self.inlineSnapshotBytes = inlineSnapshotBytes
        self.snapshotPartBytes = snapshotPartBytes
        self.snapshotWindowBytes = snapshotWindowBytes
        self.snapshotStallTimeout = snapshotStallTimeout
        self.snapshotPumpInterval = snapshotPumpInterval
        self.sharedPartsRetention = sharedPartsRetention
        self.rateLimits = rateLimits
        self.metrics = metrics
    }

    /// The tick in whole milliseconds, as announced in `welcome`.
    var tickMilliseconds: Int {
        let (seconds, attoseconds) = tick.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
