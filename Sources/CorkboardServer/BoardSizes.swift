import Synchronization

/// The snapshot size of every live board (R14), as each room last reported it, for `/healthz`.
/// Rooms report after each batch that changed it; reading takes a lock, never an await.
public final class BoardSizes: Sendable {
    private let sizes = Mutex<[String: Int]>([:])

    /// No boards yet.
    public init() {}

    /// Records a board's estimated snapshot bytes.
    func report(_ board: String, bytes: Int) { sizes.withLock { $0[board] = bytes } }

    /// Every live board's estimated snapshot bytes, by board id.
    public var all: [String: Int] { sizes.withLock { $0 } }

    /// The sum over live boards.
    public var total: Int { sizes.withLock { $0.values.reduce(0, +) } }

    /// The largest live board's estimate (0 with no boards).
    public var largest: Int { sizes.withLock { $0.values.max() ?? 0 } }
}
