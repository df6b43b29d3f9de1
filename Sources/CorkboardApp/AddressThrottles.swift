import CoreMetrics
import CorkboardProtocol
import CorkboardServer
import CorkboardTransport
import Logging
import Synchronization

/// Throttling by client address, shared by the ``ConnectionGateway`` (which admits connections),
/// the hub (which asks before every `hello` joins: ``JoinGate``), the transport (which asks before
/// every WebSocket upgrade and every board page: `WebSocketServer.setAdmissionGate`) and the rooms'
/// ``TransportSink`` (which closes connections). It punishes the offender, not everyone behind the
/// same address (an office behind one router):
/// - failed joins (a connection closed 4003: wrong key or unknown board, answered alike) count per
///   address **and board**: ``failedJoinsPerBoard`` (10) within a minute refuse that address's joins
///   to that board (and its page), and nothing else; a stale link to one board locks no one out of
///   the others. They also count per address across boards: ``failedJoinsPerAddress`` (30) within
///   a minute refuse the address's new WebSockets, so guessing keys over many boards is throttled too;
/// - rate-limit closes: a connection closed for going on past its rate limit counts against its
///   address; ``rateLimitClosesPerAddress`` (3) within a minute refuse the address's new WebSockets,
///   so reconnecting does not buy a fresh burst every time.
///
/// A refusal lasts until the oldest failure that keeps the count at its limit is a minute old.
/// While it lasts, the address's WebSockets already open keep working, and the start page and
/// static files are served; a refused page is answered with a readable HTML page.
///
/// A close is counted when the server decides it, before the close frame leaves: the client cannot
/// reconnect before its failure is on the books.
final class AddressThrottles: Sendable {
    /// Failed joins to one board from one address within ``window`` that refuse its joins to that board.
    static let failedJoinsPerBoard = 10
    /// Failed joins to any boards from one address within ``window`` that refuse its new WebSockets.
    static let failedJoinsPerAddress = 30
    /// Rate-limit closes from one address within ``window`` that refuse its new WebSockets.
    static let rateLimitClosesPerAddress = 3
    /// The window, in seconds.
    static let window = 60.0

    /// Why something is refused, and in how many seconds the address may try again.
    enum Refusal: Equatable {
        /// Too many failed joins from the address to every board together: new WebSockets refused.
        case failedJoins(wait: Int)
        /// Too many failed joins from the address to one board: joins to that board (and its page) refused.
        case failedJoinsToBoard(wait: Int)
        /// Too many rate-limit closes from the address: new WebSockets refused.
        case rateLimitCloses(wait: Int)

        /// Whole seconds (at least 1) until the address may try again.
        var wait: Int {
            switch self {
            case .failedJoins(let wait), .failedJoinsToBoard(let wait), .rateLimitCloses(let wait): wait
            }
        }

        /// Why, in one sentence without the wait.
        var sentence: String {
            switch self {
            case .failedJoins: "too many failed joins from your address"
            case .failedJoinsToBoard: "too many failed joins to this board from your address"
            case .rateLimitCloses: "connections from your address keep passing their rate limit"
            }
        }

        /// The reason of the 1008 close: the sentence and the wait.
        var closeReason: String { "\(sentence); try again in \(wait) s" }

        /// What a person reading the refusal page should know besides.
        var detail: String {
            switch self {
            case .failedJoins:
                "Share links with a wrong or outdated key were tried too often from your network. "
                    + "Boards already open keep working; the start page is open to you."
            case .failedJoinsToBoard:
                "A share link to this board with a wrong or outdated key was tried too often from your network; "
                    + "ask the board's owner for the current link. Other boards and the start page are open to you."
            case .rateLimitCloses:
                "Connections from your network sent too many messages too fast. Boards already open keep working."
            }
        }

        /// The transport's reason, for counting.
        var transportReason: ConnectionRefusalReason {
            switch self {
            case .failedJoins, .failedJoinsToBoard: .failedJoins
            case .rateLimitCloses: .rateLimitCloses
            }
        }

        /// The transport's answer to a refused upgrade or page.
        var admissionRefusal: AdmissionRefusal {
            AdmissionRefusal(reason: transportReason, retryAfter: wait, message: sentence, detail: detail)
        }
    }

    private struct State {
        var failedJoinsPerBoard = JoinThrottle(
            limit: AddressThrottles.failedJoinsPerBoard, window: AddressThrottles.window)
        var failedJoins = JoinThrottle(limit: AddressThrottles.failedJoinsPerAddress, window: AddressThrottles.window)
        var rateLimitCloses = JoinThrottle(
            limit: AddressThrottles.rateLimitClosesPerAddress, window: AddressThrottles.window)
        /// The address of every admitted connection still open.
        var addresses: [ConnectionID: String] = [:]
        /// The board each connection last asked to join (where its failed join counts).
        var boards: [ConnectionID: String] = [:]
    }

    private let state = Mutex(State())
    private let now: @Sendable () -> Double
    private let logger: Logger

    /// - Parameter now: seconds on any steady scale (the throttles' windows are differences).
    init(logger: Logger, now: @escaping @Sendable () -> Double) {
        self.logger = logger
        self.now = now
    }

    /// The key of one address's failures on one board.
    private static func key(_ address: String, _ board: String) -> String { "\(address) \(board)" }

    /// Whether the address's new WebSockets are refused now, and why.
    private static func webSocketRefusal(_ state: State, _ address: String, _ time: Double) -> Refusal? {
        if let wait = state.rateLimitCloses.retryAfter(address, now: time) { return .rateLimitCloses(wait: wait) }
        if let wait = state.failedJoins.retryAfter(address, now: time) { return .failedJoins(wait: wait) }
        return nil
    }

    /// Whether the address's joins to `board` are refused now, and why.
    private static func joinRefusal(_ state: State, _ address: String, _ board: String, _ time: Double) -> Refusal? {
        if let refusal = webSocketRefusal(state, address, time) { return refusal }
        if let wait = state.failedJoinsPerBoard.retryAfter(key(address, board), now: time) {
            return .failedJoinsToBoard(wait: wait)
        }
        return nil
    }

    /// A new WebSocket upgrade from `address` (the transport asks before the connection caps):
    /// `nil` when it may go on.
    func webSocketRefusal(from address: String) -> Refusal? {
        let time = now()
        return state.withLock { Self.webSocketRefusal($0, address, time) }
    }

    /// A page for `board` asked for by `address` (`GET /?board=…`): refused while the address may
    /// not join the board (its joins there or its new WebSockets are refused).
    func pageRefusal(from address: String, board: String) -> Refusal? {
        let time = now()
        return state.withLock { Self.joinRefusal($0, address, board, time) }
    }

    /// The transport's gate: upgrades and board pages (``webSocketRefusal(from:)``, ``pageRefusal(from:board:)``).
    func admission(_ request: AdmissionRequest) -> AdmissionRefusal? {
        switch request.kind {
        case .webSocket:
            return webSocketRefusal(from: request.address)?.admissionRefusal
        case .page:
            guard let board = request.query("board") else { return nil }
            return pageRefusal(from: request.address, board: board)?.admissionRefusal
        }
    }

    /// A new connection from `address`: `nil` when it may go on (its address is then remembered
    /// until ``forget(_:)``), else why it must be closed (one already upgrading when its address's
    /// new WebSockets began to be refused).
    func admit(_ id: ConnectionID, from address: String) -> Refusal? {
        let time = now()
        return state.withLock { state in
            if let refusal = Self.webSocketRefusal(state, address, time) { return refusal }
            state.addresses[id] = address
            return nil
        }
    }

    /// The connection `id` asks to join `board`: `nil` when it may (the board is remembered: a
    /// failed join counts there), else why not.
    func joinRefusal(_ id: ConnectionID, board: String) -> Refusal? {
        let time = now()
        return state.withLock { state in
            guard let address = state.addresses[id] else { return nil }
            if let refusal = Self.joinRefusal(state, address, board, time) { return refusal }
            state.boards[id] = board
            return nil
        }
    }

    /// The server is closing `id` with `code` and `reason`: a failed join counts against its
    /// address and the board it asked for, a rate-limit close against its address. Logged once per
    /// episode, when a limit is reached (a line per refusal would let one address flood the log).
    func closing(_ id: ConnectionID, code: Int, reason: String) {
        let isFailedJoin = code == CloseCode.badKey
        let isRateLimitClose = code == CloseCode.policyViolation && reason == BoardHub.rateLimitCloseReason
        guard isFailedJoin || isRateLimitClose else { return }
        let time = now()
        /// Which limits this close reached (each logged once per episode).
        struct Reached {
            var address: String?
            var board: String?
            var rateLimitCloses = false
            var failedJoinsToBoard = false
            var failedJoins = false
        }
        let reached = state.withLock { state -> Reached in
            guard let address = state.addresses[id] else { return Reached() }
            var reached = Reached(address: address)
            if isRateLimitClose {
                reached.rateLimitCloses = state.rateLimitCloses.failed(address, now: time)
                return reached
            }
            reached.board = state.boards[id]
            if let board = reached.board {
                reached.failedJoinsToBoard = state.failedJoinsPerBoard.failed(Self.key(address, board), now: time)
            }
            reached.failedJoins = state.failedJoins.failed(address, now: time)
            return reached
        }
        guard let address = reached.address else { return }
        if reached.rateLimitCloses {
            logger.notice(
                "refusing new WebSockets from an address whose connections keep passing their rate limit",
                metadata: ["remote": "\(address)", "limit": "\(Self.rateLimitClosesPerAddress) closes a minute"])
        }
        if reached.failedJoinsToBoard {
            logger.notice(
                "refusing an address's joins to a board for its failed joins there",
                metadata: [
                    "remote": "\(address)", "board": "\(reached.board ?? "-")",
                    "limit": "\(Self.failedJoinsPerBoard) a minute",
                ])
        }
        if reached.failedJoins {
            logger.notice(
                "refusing new WebSockets from an address for its failed joins to many boards",
                metadata: ["remote": "\(address)", "limit": "\(Self.failedJoinsPerAddress) a minute"])
        }
    }

    /// The connection is gone.
    func forget(_ id: ConnectionID) {
        state.withLock {
            $0.addresses.removeValue(forKey: id)
            $0.boards.removeValue(forKey: id)
        }
    }
}

/// The hub's ``JoinGate`` over the throttles (the hub's handles are the transport's ids); each
/// refusal is counted in `corkboard_connections_refused_total` under its reason.
struct ThrottledJoins: JoinGate {
    let throttles: AddressThrottles
    private let refusedJoins = Counter(
        label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", "failed-joins")])
    private let refusedFlooders = Counter(
        label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", "rate-limit-closes")])

    init(throttles: AddressThrottles) { self.throttles = throttles }

    func refusal(for handle: ConnectionHandle, board: String) -> JoinRefusal? {
        guard let refusal = throttles.joinRefusal(ConnectionID(rawValue: handle.rawValue), board: board) else {
            return nil
        }
        switch refusal {
        case .failedJoins, .failedJoinsToBoard: refusedJoins.increment()
        case .rateLimitCloses: refusedFlooders.increment()
        }
        return JoinRefusal(message: refusal.sentence, retryAfter: refusal.wait)
    }
}
