public import CorkboardModel
public import CorkboardProtocol
public import CorkboardTransport
import Logging
import Synchronization

/// One client's connection to one board: it joins with `hello`, keeps a ``ClientReplica`` in step
/// with the committed stream, and sends operations and drags.
///
/// The replica follows the rules of the protocol:
/// - the welcome's snapshot initializes (or, on a resume, resets) the replica; a resume welcome's
///   `ops` are applied in seq order (R10);
/// - every `op` is applied with `ClientReplica.applyCommitted(_:)`; a gap in seqs triggers a `sync`;
/// - this client's own operations come back as an `ack` instead of an `op`: a committed ack is
///   applied as the stream entry for that seq, a rejected one drops the pending operation;
/// - after a lost link, ``resume(timeout:)`` (or the transport's reconnect policy) sends
///   `hello{clientId, lastSeq}` and then resends every pending operation as `submit` with its
///   original opId, which the server answers with the first outcome (nothing applies twice).
///
/// On a cluster the connection follows the server's `redirect` to the node that sequences the
/// board at once (close 4005), and a link that cannot be made to one entry URL is retried at once
/// on the next of ``Options/url`` and ``Options/alternateURLs`` (each once, then the reconnect
/// policy decides). A link that goes silent (``Options/liveness``) is dropped within seconds and
/// the next one avoids the silent URL.
///
/// Sending never blocks: messages are queued for the client's service thread. Calls that wait for
/// an answer are bounded by a timeout (``Options/timeout`` unless given) and fail with a
/// ``BoardClientError`` that says what was awaited.
///
/// Thread safety: every method may be called from any thread or task.
public final class BoardConnection: Sendable {
    /// What to connect to and how to behave.
    public struct Options: Sendable {
        /// The server's WebSocket URL, `ws://host:port/ws` (or `wss://…` with a TLS client).
        public var url: String
        /// More entry URLs of the same cluster (other nodes, or load balancers): after a link to one
        /// cannot be made, the next one is tried.
        public var alternateURLs: [String]
        /// The board id.
        public var board: String
        /// The board's edit or view key; `nil` for an open board.
        public var key: String?
        /// The display name peers see.
        public var name: String
        /// The client identity to use; `nil` lets the server assign one (read it from the welcome).
        public var clientId: String?
        /// A replica to resume from (for example one saved by a bot): the connection sends
        /// `hello{clientId: replica.clientId, lastSeq: replica.confirmedSeq}` and resends its pending
        /// operations after the welcome.
        public var replica: ClientReplica?
        /// The `resumeToken` of the welcome that gave `clientId` (or `replica`'s client id), needed to
        /// resume a client id the room already knows; later resumes use the latest welcome's token.
        public var resumeToken: String?
        /// The `Origin` header to send, if any.
        public var origin: String?
        /// Whether a `wss://` link accepts a self-signed certificate and skips the hostname check
        /// (a test server); the client must be created with `ClientConfiguration(tls: true)`.
        public var allowSelfSigned: Bool
        /// Whether the connection reconnects by itself after a lost link (on the next entry URL when
        /// a link cannot be made); each reconnect resumes. A redirect is followed whatever the policy.
        public var reconnect: ReconnectPolicy
        /// The default bound of every awaiting call.
        public var timeout: Duration
        /// How a silent link is noticed and dropped (``Liveness``); `nil` waits for TCP to notice.
        public var liveness: Liveness?
        /// Whether ``BoardState/history`` records every message received (tests, debugging).
        public var recordsHistory: Bool
        /// Called on the service thread with every message, after the replica was updated; must be
        /// quick (a load generator records a timestamp, a bot schedules work).
        public var onMessage: (@Sendable (ServerMessage) -> Void)?

        /// Creates options; every parameter but the URL and board has a default.
        public init(
            url: String, board: String, key: String? = nil, name: String = "Swift client", clientId: String? = nil,
            replica: ClientReplica? = nil, resumeToken: String? = nil, origin: String? = nil,
            allowSelfSigned: Bool = false, reconnect: ReconnectPolicy = .none,
            timeout: Duration = .seconds(10), recordsHistory: Bool = false, alternateURLs: [String] = [],
            liveness: Liveness? = .standard, onMessage: (@Sendable (ServerMessage) -> Void)? = nil
        ) {
            self.url = url
            self.alternateURLs = alternateURLs
            self.board = board
            self.key = key
            self.name = name
            self.clientId = clientId
            self.replica = replica
            self.resumeToken = resumeToken
            self.origin = origin
            self.allowSelfSigned = allowSelfSigned
            self.reconnect = reconnect
            self.timeout = timeout
            self.liveness = liveness
            self.recordsHistory = recordsHistory
            self.onMessage = onMessage
        }
    }

    /// The options the connection was opened with.
    public let options: Options
    let client: BoardClient
    let logger: Logger
    let core: Mutex<Core>
    /// Makes this connection's generated opIds and session ids unique across processes.
    let idPrefix: String

    init(client: BoardClient, options: Options) {
        self.client = client
        self.options = options
        var logger = client.logger
        logger[metadataKey: "board"] = "\(options.board)"
        self.logger = logger
        idPrefix = BoardConnection.randomPrefix()
        var core = Core(state: BoardState(replica: options.replica ?? ClientReplica(clientId: "")))
        core.hasReplica = options.replica != nil
        self.core = Mutex(core)
    }

    // MARK: Reading the state

    /// The connection's state now (a copy).
    public var state: BoardState { core.withLock { $0.state } }

    /// The replica now (a copy).
    public var replica: ClientReplica { core.withLock { $0.state.replica } }

    /// This connection as a member of the board, once joined.
    public var member: Member? { core.withLock { $0.state.member } }

    /// The client id (assigned by the server on the first join unless given), once joined.
    public var clientId: String? {
        core.withLock { $0.hasReplica ? $0.state.replica.clientId : nil }
    }

    /// A stream of every message received from now on, after the replica was updated.
    ///
    /// Each call returns a new stream; it finishes when the connection closes for good. A stream
    /// nobody reads keeps at most `limit` messages (the newest).
    public func messages(bufferingNewest limit: Int = 10_000) -> AsyncStream<ServerMessage> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ServerMessage.self, bufferingPolicy: .bufferingNewest(limit))
        let id = core.withLock { core -> UInt64? in
            guard !core.state.isClosed else { return nil }
            core.counter += 1
            core.subscribers[core.counter] = continuation
            return core.counter
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.core.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Identifiers

    /// A fresh operation id, unique for this client (a random prefix and a counter).
    public func makeOpID() -> String {
        core.withLock { makeOpID(&$0) }
    }

    /// A fresh drag session id, unique among this connection's drags.
    public func makeSessionID() -> String {
        core.withLock { core in
            core.counter += 1
            return "\(idPrefix)d\(core.counter)"
        }
    }

    func makeOpID(_ core: inout Core) -> String {
        core.counter += 1
        return "\(idPrefix)\(core.counter)"
    }

    private static func randomPrefix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<8).map { _ in alphabet.randomElement()! }) + "-"
    }

    // MARK: Sending

    /// Sends any client message as is, if the board is joined; returns whether it was queued.
    ///
    /// A `submit` or `drop` sent this way is not made pending in the replica, but its ack is still
    /// applied as the stream entry for its seq. Use ``submit(_:opId:session:)`` and
    /// ``sendDrop(session:destination:copy:board:key:opId:)`` to get optimistic application and
    /// resending after a resume.
    @discardableResult
    public func send(_ message: ClientMessage) -> Bool {
        core.withLock { core in
            guard core.phase == .joined else { return false }
            transmit(message, &core)
            return true
        }
    }

    /// Sends bytes as one frame exactly as given, bypassing the codec, if the board is joined;
    /// returns whether they were queued.
    ///
    /// For bots and tests that check how a server treats malformed input: the replica never sees
    /// the message, and its answer (usually an `error`) arrives like any other message.
    @discardableResult
    public func sendUnchecked(_ bytes: [UInt8], isText: Bool = true) -> Bool {
        core.withLock { core in
            guard core.phase == .joined, let link = core.link else { return false }
            client.transport.send(bytes: bytes, isText: isText, to: link)
            return true
        }
    }

    /// Sends a message with a fresh `ref` and waits for the answer that echoes it (`ack`,
    /// `dragGranted`, `proposal`, `synced`, `pong` or `error`).
    ///
    /// For `submit` and `drop` the `ack` is also matched by opId, so an answer to a resend after a
    /// resume counts. Messages without an answer (`dragEnd`, `cursor`, `presence`) time out; send
    /// them with ``send(_:)``.
    /// - Returns: The answer; an `error` answer is returned, not thrown.
    /// - Throws: ``BoardClientError``: `notJoined`, `timedOut`, `closed` (the link was lost before an
    ///   answer that would not survive a resume), `cancelled`.
    public func request(_ message: ClientMessage, timeout: Duration? = nil) async throws(BoardClientError)
        -> ServerMessage
    {
        let ref = core.withLock { core in
            core.counter += 1
            return "q\(core.counter)"
        }
        let opID = message.opID
        let outcome = await wait(
            for: "the answer to \(message.type) \(ref)", match: .answer(ref: ref, opID: opID),
            keepsAcrossReconnect: opID != nil, timeout: timeout
        ) { (core: inout Core) throws(BoardClientError) in
            guard core.phase == .joined else { throw self.notJoined("send \(message.type)") }
            if let opID { core.inflight[ref] = opID }
            self.transmit(message.withRef(ref), &core)
        }
        return try outcome.get().message
    }

    /// Pings the server and returns the board's head seq from the `pong`.
    ///
    /// - Throws: ``BoardClientError`` as ``request(_:timeout:)``.
    public func ping(timeout: Duration? = nil) async throws(BoardClientError) -> Int {
        let answer = try await request(.ping(ClientMessage.Ping()), timeout: timeout)
        guard case .pong(let pong) = answer else { throw unexpected(answer, answering: "ping") }
        return pong.head
    }

    /// Asks for members by id, or for a page of members after `after`, and adds them to
    /// ``BoardState/members``; returns the answer.
    ///
    /// - Throws: ``BoardClientError`` as ``request(_:timeout:)``.
    @discardableResult
    public func listMembers(
        ids: [String]? = nil, after: String? = nil, limit: Int? = nil, timeout: Duration? = nil
    ) async throws(BoardClientError) -> ServerMessage.MemberList {
        let answer = try await request(
            .listMembers(ClientMessage.ListMembers(ids: ids, after: after, limit: limit)), timeout: timeout)
        guard case .memberList(let list) = answer else { throw unexpected(answer, answering: "listMembers") }
        return list
    }

    // MARK: Waiting

    /// Waits until a condition on the state holds, checking it now and after every message.
    ///
    /// - Parameters:
    ///   - what: What is awaited, for the timeout error ("gc1 moved to found").
    ///   - timeout: The bound; `nil` uses ``Options/timeout``.
    ///   - condition: Evaluated on the service thread under the connection's lock: keep it quick
    ///     and do not call the connection from it.
    /// - Returns: The state that satisfied the condition.
    /// - Throws: ``BoardClientError``: `timedOut` (naming `what`), `closed` when the connection
    ///   closes for good in a state that does not meet the condition, `cancelled`.
    @discardableResult
    public func wait(
        _ what: String, timeout: Duration? = nil, until condition: @escaping @Sendable (BoardState) -> Bool
    ) async throws(BoardClientError) -> BoardState {
        try await wait(for: what, match: .state(condition), keepsAcrossReconnect: true, timeout: timeout).get().state
    }

    /// Waits until the board is joined (the first welcome, or the next one after a resume).
    ///
    /// - Throws: ``BoardClientError``: `refused` with the server's error (bad key, unknown board),
    ///   `closed` or `connectFailed` when the link ends first, `timedOut`.
    public func waitUntilJoined(timeout: Duration? = nil) async throws(BoardClientError) {
        let baseline = core.withLock { core -> JoinBaseline? in
            core.phase == .joined ? nil : JoinBaseline(core)
        }
        guard let baseline else { return }
        try await waitForJoin(after: baseline, timeout: timeout)
    }

    /// Counters taken before a link opens, so a welcome or a failure that comes quickly still counts.
    struct JoinBaseline {
        var joins: Int
        var losses: Int

        init(_ core: Core) {
            joins = core.state.joinCount
            losses = core.state.connectionLosses
        }
    }

    func waitForJoin(after baseline: JoinBaseline, timeout: Duration?) async throws(BoardClientError) {
        let state = try await wait("the welcome to board \(options.board)", timeout: timeout) { state in
            state.joinCount > baseline.joins || state.isClosed
                || (state.connectionLosses > baseline.losses && state.lastClose?.willReconnect == false)
        }
        guard state.joinCount <= baseline.joins else { return }
        throw joinFailure(state)
    }

    /// Waits until the replica has applied everything the server had committed when it answered
    /// a `ping`, and every operation this client submitted has been answered.
    ///
    /// - Returns: The settled state.
    @discardableResult
    public func settle(timeout: Duration? = nil) async throws(BoardClientError) -> BoardState {
        let head = try await ping(timeout: timeout)
        return try await wait("the replica to reach seq \(head) with no pending operation", timeout: timeout) {
            $0.replica.confirmedSeq >= head && $0.replica.pending.isEmpty
        }
    }

    // MARK: Helpers

    func notJoined(_ what: String) -> BoardClientError {
        BoardClientError(
            .notJoined, "Cannot \(what): board \(options.board) is not joined; wait for the welcome or resume.")
    }

    func unexpected(_ answer: ServerMessage, answering what: String) -> BoardClientError {
        if case .error(let error) = answer { return .refused(error, answering: what) }
        return BoardClientError(.refused, "The server answered \(what) with \(answer.type) instead.")
    }

    func joinFailure(_ state: BoardState) -> BoardClientError {
        let close = state.lastClose
        if let error = state.lastError, [.badKey, .unknownBoard, .unsupportedProtocol].contains(error.code) {
            return BoardClientError(
                .refused, "The server refused to join board \(options.board): \(error)", serverError: error,
                closeCode: close?.code)
        }
        let how = close.map { "\($0.reason)\($0.code.map { " (close code \($0))" } ?? "")" } ?? "closed"
        return BoardClientError(
            state.joinCount == 0 && close?.code == nil ? .connectFailed : .closed,
            "The link to board \(options.board) at \(core.withLock { $0.url }) ended before the welcome: \(how).",
            closeCode: close?.code)
    }
}
