/// Everything a run needs to know, taken from the command line and validated.
public struct BotSettings: Sendable {
    /// The server's WebSocket URL.
    public var url: String
    /// More entry URLs of the same cluster, tried in turn when one cannot be reached.
    public var alternateURLs: [String] = []
    /// The board id.
    public var board: String
    /// The board's edit key; `nil` for an open board.
    public var key: String?
    /// The bots' display name; bot `n` shows as `name n`.
    public var name: String
    /// How many bots (one connection each).
    public var bots: Int
    /// How long the bots act.
    public var duration: Duration
    /// Actions per second per bot.
    public var rate: Double
    /// The seed of every choice.
    public var seed: UInt64
    /// The probability that an action deliberately targets items peers are dragging; 0 disables.
    public var conflictProbability: Double
    /// Whether the bots also send malformed, unknown, oversized and out-of-range messages.
    public var badInput: Bool
    /// Whether a `wss://` server may present a self-signed certificate.
    public var allowSelfSigned: Bool
    /// The bound of every awaited answer.
    public var timeout: Duration

    /// Settings for a run.
    public init(
        url: String, board: String, key: String?, name: String, bots: Int, duration: Duration, rate: Double,
        seed: UInt64, conflictProbability: Double, badInput: Bool, allowSelfSigned: Bool, timeout: Duration
    ) {
        self.url = url
        self.board = board
        self.key = key
        self.name = name
        self.bots = bots
        self.duration = duration
        self.rate = rate
        self.seed = seed
        self.conflictProbability = conflictProbability
        self.badInput = badInput
        self.allowSelfSigned = allowSelfSigned
        self.timeout = timeout
    }

    /// Whether the URL needs TLS.
    var usesTLS: Bool { url.hasPrefix("wss://") }

    /// Most bots one process runs.
    public static let maxBots = 500
    /// Longest run, in seconds.
    public static let maxDurationSeconds = 3600.0
    /// Highest rate, in actions per second per bot.
    public static let maxRate = 100.0

    /// The display name of bot `index` (0-based).
    func name(ofBot index: Int) -> String { bots == 1 ? name : "\(name) \(index + 1)" }
}
