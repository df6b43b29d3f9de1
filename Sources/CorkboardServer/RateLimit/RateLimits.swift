public import CorkboardProtocol

/// Per-connection rate limits (OWASP's WebSocket cheat sheet: limit what one connection may ask
/// for), enforced by the `BoardHub` before a message reaches a room.
///
/// Two kinds of message are counted apart, each in its own `TokenBucket`:
/// - **operations**, which change the board or cost a snapshot: `submit`, `drop`, `sync` (and any
///   message added later that is not listed as ephemeral);
/// - **ephemeral** updates, coalesced per tick and never stored: `dropUpdate`, `cursor`,
///   `presence`, `dragBegin`, `dragAdd`, `dragEnd`, `ping`.
///
/// `hello` is not counted (it is answered before joining, and only once). Past a limit the message
/// is not applied and the connection gets `error` `rate-limited` (every operation; ephemeral
/// updates once per overrun, until one is accepted again). A connection that has more than `burst`
/// further messages of one kind refused within `closeWindow` is closed 1008. Viewers are counted
/// like editors.
public struct RateLimits: Sendable, Hashable {
    /// Operations per connection. Default 20 a second, bursts of 40 (`--rate-ops`, `--burst-ops`).
    public var operations: RateLimit
    /// Ephemeral updates per connection. Default 60 a second, bursts of 120 (`--rate-ephemeral`,
    /// `--burst-ephemeral`): twice the 30 Hz of a drag's proposals, three times the browser's cursor.
    public var ephemeral: RateLimit
    /// A connection refused more than a limit's `burst` messages of that kind within this window is
    /// closed 1008. Default 10 s.
    public var closeWindow: Duration

    /// The defaults documented on each property.
    public static let standard = RateLimits()

    /// No limits (benchmarks that flood on purpose).
    public static let off = RateLimits(operations: .off, ephemeral: .off)

    /// Limits; every default is spelled out on its property.
    public init(
        operations: RateLimit = RateLimit(perSecond: 20, burst: 40),
        ephemeral: RateLimit = RateLimit(perSecond: 60, burst: 120), closeWindow: Duration = .seconds(10)
    ) {
        self.operations = operations
        self.ephemeral = ephemeral
        self.closeWindow = closeWindow
    }

    /// The limit for a kind.
    public subscript(kind: RateLimitedKind) -> RateLimit {
        switch kind {
        case .operations: operations
        case .ephemeral: ephemeral
        }
    }
}

/// The two kinds of message the rate limits count apart.
public enum RateLimitedKind: String, Sendable, CaseIterable {
    /// Messages that change the board, take a lease or cost the room a page of work: `submit`,
    /// `drop`, `sync`, `undo`, `redo`, `editBegin`, `editEnd`, `listMembers`, `activity`, the admin
    /// messages about people (`listPeople`, `createInvite`, …).
    case operations
    /// Cursors, presence, drag updates and pings.
    case ephemeral

    /// The kind a message counts as, or `nil` for `hello` (not counted).
    public init?(_ message: ClientMessage) {
        switch message {
        case .hello: return nil
        case .dropUpdate, .cursor, .presence, .dragBegin, .dragAdd, .dragEnd, .ping: self = .ephemeral
        // No default: a new message type must be counted on purpose.
        case .submit, .drop, .sync, .undo, .redo, .editBegin, .editEnd, .listMembers, .activity, .people:
            self = .operations
        }
    }
}
