/// Everything a run needs to know, taken from the command line and validated.
struct BotSettings: Sendable {
    /// The server's WebSocket URL.
    var url: String
    /// The board id.
    var board: String
    /// The board's edit key; `nil` for an open board.
    var key: String?
    /// The bots' display name; bot `n` shows as `name n`.
    var name: String
    /// How many bots (one connection each).
    var bots: Int
    /// How long the bots act.
    var duration: Duration
    /// Actions per second per bot.
    var rate: Double
    /// The seed of every choice.
    var seed: UInt64
    /// The probability that an action deliberately targets items peers are dragging; 0 disables.
    var conflictProbability: Double
    /// Whether the bots also send malformed, unknown, oversized and out-of-range messages.
    var badInput: Bool
    /// Whether a `wss://` server may present a self-signed certificate.
    var allowSelfSigned: Bool
    /// The bound of every awaited answer.
    var timeout: Duration

    /// Whether the URL needs TLS.
    var usesTLS: Bool { url.hasPrefix("wss://") }

    /// Most bots one process runs.
    static let maxBots = 500
    /// Longest run, in seconds.
    static let maxDurationSeconds = 3600.0
    /// Highest rate, in actions per second per bot.
    static let maxRate = 100.0

    /// The display name of bot `index` (0-based).
    func name(ofBot index: Int) -> String { bots == 1 ? name : "\(name) \(index + 1)" }
}
