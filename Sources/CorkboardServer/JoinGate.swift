/// Decides whether a connection may join a board now: the application's throttles (the address
/// that sent wrong keys for this board too often waits). Asked by the ``BoardHub`` for every
/// `hello` before it reaches a room or the cluster's router; it must be quick and never block.
public protocol JoinGate: Sendable {
    /// `nil` when the connection may join `board` now (the gate may then remember which board the
    /// connection asked for), else why not and for how long.
    func refusal(for handle: ConnectionHandle, board: String) -> JoinRefusal?
}

/// Why a `hello` is refused for now: answered `error` `rate-limited` with the sentence, then
/// closed 1008 with it.
public struct JoinRefusal: Sendable, Equatable {
    /// One sentence saying why, without the wait ("too many failed joins to this board from your address").
    public var message: String
    /// Whole seconds (at least 1) until a join may succeed again.
    public var retryAfter: Int

    /// Creates a refusal.
    public init(message: String, retryAfter: Int) {
        self.message = message
        self.retryAfter = max(1, retryAfter)
    }

    /// The close reason: "`message`; try again in N s" (at most 123 bytes: a close reason's limit).
    public var closeReason: String { String("\(message); try again in \(retryAfter) s".utf8.prefix(123))! }
}
