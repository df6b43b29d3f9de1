import CorkboardProtocol
import CorkboardServer
import CorkboardTransport
import Logging
import Synchronization

/// Throttling by remote address, shared by the ``ConnectionGateway`` (which admits connections)
/// and the rooms' ``TransportSink`` (which closes them):
/// - failed joins: a connection closed 4003 (wrong key or unknown board, answered alike) counts
///   against its address; 10 within a minute throttle it;
/// - rate-limit closes: a connection closed for going on past its rate limit counts against its
///   address; 3 within a minute throttle it, so reconnecting does not buy a fresh burst every time.
///
/// A close is counted when the server decides it, before the close frame leaves: the client cannot
/// reconnect before its failure is on the books (counted when the transport reported the closed
/// socket instead, a client reconnecting at once could race its own failure and join once more).
///
/// Once an address is throttled, the transport is told (``refuse``,
/// `WebSocketServer.refuseConnections`) so its further attempts are answered 429 at `accept`,
/// before any HTTP or WebSocket handshake: a client reconnecting in a tight loop then costs an
/// accept and a send each. ``admit(_:from:)`` still refuses the connections that were already on
/// their way (accepted before the throttle began), closing them 1008.
final class AddressThrottles: Sendable {
    /// Why a new connection is closed at once, and in how many seconds its address may try again.
    enum Refusal: Equatable {
        case failedJoins(wait: Int)
        case rateLimitCloses(wait: Int)

        /// Whole seconds (at least 1) until the address may try again.
        var wait: Int {
            switch self {
            case .failedJoins(let wait), .rateLimitCloses(let wait): wait
            }
        }

        /// The reason of the 1008 close: ``sentence(_:)`` and the wait.
        var closeReason: String { "\(AddressThrottles.sentence(self)); try again in \(wait) s" }
    }

    private struct State {
        var failedJoins = JoinThrottle()
        var rateLimitCloses = JoinThrottle(limit: 3, window: 60)
        /// The address of every admitted connection still open.
        var addresses: [ConnectionID: String] = [:]
    }

    /// Tells the transport that `address` is throttled for `seconds` more, and why.
    typealias Refuse = @Sendable (_ address: String, _ seconds: Double, _ refusal: Refusal) -> Void

    private let state = Mutex(State())
    private let now: @Sendable () -> Double
    private let logger: Logger
    private let refuse: Refuse?

    /// - Parameters:
    ///   - now: seconds on any steady scale (the throttles' windows are differences).
    ///   - refuse: called whenever a close leaves its address throttled, with how long it stays so.
    init(logger: Logger, now: @escaping @Sendable () -> Double, refuse: Refuse? = nil) {
        self.logger = logger
        self.now = now
        self.refuse = refuse
    }

    /// What the transport answers a throttled address at accept, by reason (the 1008 close reasons
    /// without the wait).
    static func sentence(_ refusal: Refusal) -> String {
        switch refusal {
        case .failedJoins: return "too many failed joins from your address"
        case .rateLimitCloses: return "connections from your address keep passing their rate limit"
        }
    }

    /// A new connection from `address`: `nil` when it may go on (its address is then remembered
    /// until ``forget(_:)``), else why it must be closed.
    func admit(_ id: ConnectionID, from address: String) -> Refusal? {
        let time = now()
        return state.withLock { state in
            if let wait = state.failedJoins.retryAfter(address, now: time) { return .failedJoins(wait: wait) }
            if let wait = state.rateLimitCloses.retryAfter(address, now: time) { return .rateLimitCloses(wait: wait) }
            state.addresses[id] = address
            return nil
        }
    }

    /// The server is closing `id` with `code` and `reason`: a failed join or a rate-limit close
    /// counts against its address. Logged once per episode, when the address becomes throttled (a
    /// line per refused connection would let one address flood the log).
    func closing(_ id: ConnectionID, code: Int, reason: String) {
        let isFailedJoin = code == CloseCode.badKey
        let isRateLimitClose = code == CloseCode.policyViolation && reason == BoardHub.rateLimitCloseReason
        guard isFailedJoin || isRateLimitClose else { return }
        let time = now()
        let throttle: WritableKeyPath<State, JoinThrottle> = isFailedJoin ? \.failedJoins : \.rateLimitCloses
        let (address, throttledAt, throttledFor): (String?, Int?, Double?) = state.withLock { state in
            guard let address = state.addresses[id] else { return (nil, nil, nil) }
            let throttles = state[keyPath: throttle].failed(address, now: time)
            return (
                address, throttles ? state[keyPath: throttle].limit : nil,
                state[keyPath: throttle].throttledFor(address, now: time)
            )
        }
        if let address, let seconds = throttledFor, let refuse {
            let wait = JoinThrottle.wholeSeconds(seconds)
            refuse(address, seconds, isFailedJoin ? .failedJoins(wait: wait) : .rateLimitCloses(wait: wait))
        }
        guard let limit = throttledAt, let address else { return }
        if isFailedJoin {
            logger.notice(
                "throttling an address for its failed joins",
                metadata: ["remote": "\(address)", "limit": "\(limit) a minute"])
        } else {
            logger.notice(
                "throttling an address whose connections keep passing their rate limit",
                metadata: ["remote": "\(address)", "limit": "\(limit) closes a minute"])
        }
    }

    /// The connection is gone.
    func forget(_ id: ConnectionID) {
        _ = state.withLock { $0.addresses.removeValue(forKey: id) }
    }
}
