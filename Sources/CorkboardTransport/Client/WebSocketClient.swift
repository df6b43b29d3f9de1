import CLibWebSockets
import Dispatch
public import Logging
import Synchronization

/// A WebSocket client on libwebsockets: one service thread drives any number of connections
/// (thousands per process), over `ws://` and `wss://`, with optional reconnection.
///
/// Any thread may call ``connect(to:subprotocol:origin:reconnect:allowSelfSigned:)``, the `send`
/// methods and ``close(_:code:reason:)``; they queue work and wake the service thread. Client
/// frames are masked in place by libwebsockets, so every queued write owns its buffer.
public final class WebSocketClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: ClientConfiguration
    let logger: Logger
    let pending: Mutex<ClientOutbox>
    let lifecycle = Mutex<(started: Bool, finished: Bool)>((false, false))
    let nextID = Atomic<UInt64>(1)
    let stopRequested = Atomic<Bool>(false)
    let openCount = Atomic<Int>(0)
    let eventHandler: (@Sendable (ClientEvent) -> Void)?
    let continuation: AsyncStream<ClientEvent>.Continuation
    /// Service-thread state: touched only by the service thread after ``start()``.
    nonisolated(unsafe) let loop: ClientLoop

    /// Connection events, unless an `eventHandler` was given. Finishes after ``shutdown(timeout:)``.
    public let events: AsyncStream<ClientEvent>

    /// Creates a client; call ``start()`` before connecting.
    ///
    /// - Parameters:
    ///   - configuration: limits and timeouts shared by every connection.
    ///   - logger: where the client logs.
    ///   - eventHandler: if given, receives every event on the service thread instead of ``events``
    ///     (for load generators; it must be quick).
    public init(
        configuration: ClientConfiguration = ClientConfiguration(), logger: Logger,
        eventHandler: (@Sendable (ClientEvent) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        self.eventHandler = eventHandler
        pending = Mutex(ClientOutbox())
        (events, continuation) = AsyncStream.makeStream(of: ClientEvent.self, bufferingPolicy: .unbounded)
        loop = ClientLoop(configuration: configuration)
    }

    /// Established connections right now.
    public var openConnectionCount: Int { openCount.load(ordering: .relaxed) }

    /// Creates the client context on its own service thread.
    ///
    /// - Throws: ``TransportError`` if called twice or if libwebsockets cannot create the context.
    public func start() throws(TransportError) {
        try lifecycle.withLock { (l: inout (started: Bool, finished: Bool)) throws(TransportError) in
            if l.started {
                throw .invalidState("WebSocketClient.start() was called twice; create a new client instead")
            }
            l.started = true
        }
        Lws.raiseFileDescriptorLimit()
        let ready = DispatchSemaphore(value: 0)
        let result = Mutex<TransportError??>(nil)
        try ServiceThread.spawn(name: "cb-client") { [self] in
            runServiceThread { error in
                result.withLock { $0 = .some(error) }
                ready.signal()
            }
        }
        ready.wait()
        if let error = result.withLock({ $0 }) ?? nil {
            lifecycle.withLock { $0.finished = true }
            continuation.finish()
            throw error
        }
    }

    /// Opens a connection (asynchronously, on the service thread) and returns its identifier.
    ///
    /// - Parameters:
    ///   - url: `ws://host:port/path?query` or `wss://…`.
    ///   - subprotocol: the `Sec-WebSocket-Protocol` to offer, or `nil` for none.
    ///   - origin: the `Origin` header to send, or `nil` for none.
    ///   - reconnect: what to do when the connection fails or closes unexpectedly.
    ///   - allowSelfSigned: accept self-signed certificates and skip the hostname check (tests).
    /// - Throws: ``TransportError`` if the URL is invalid or the client is not running.
    @discardableResult
    public func connect(
        to url: String, subprotocol: String? = "corkboard.v1", origin: String? = nil,
        reconnect: ReconnectPolicy = .none, allowSelfSigned: Bool = false
    ) throws(TransportError) -> ClientConnectionID {
        let parsed = try WebSocketURL(parsing: url)
        if parsed.tls && !configuration.tls {
            throw .invalidConfiguration(
                "\(url) needs TLS: create the WebSocketClient with ClientConfiguration(tls: true)")
        }
        let id = ClientConnectionID(rawValue: nextID.add(1, ordering: .relaxed).oldValue)
        let request = ConnectRequest(
            id: id, url: parsed, subprotocol: subprotocol, origin: origin, reconnect: reconnect,
            allowSelfSigned: allowSelfSigned)
        try enqueue { (ob: inout ClientOutbox) throws(TransportError) in
            guard ob.context != nil else {
                throw .invalidState("the WebSocketClient is not running; call start() first")
            }
            ob.connects.append(request)
        }
        return id
    }

    /// Sends a text message (one frame).
    public func send(text: String, to id: ClientConnectionID) {
        send(bytes: Array(text.utf8), isText: true, to: id)
    }

    /// Sends `bytes` as one text or binary frame. Text bytes are sent as given, unchecked, so a
    /// test can send invalid UTF-8.
    public func send(bytes: [UInt8], isText: Bool, to id: ClientConnectionID) {
        send(fragments: [bytes], isText: isText, to: id)
    }

    /// Sends one message as several frames (a first frame, continuations, the last with FIN).
    public func send(fragments: [[UInt8]], isText: Bool, to id: ClientConnectionID) {
        guard !fragments.isEmpty else { return }
        let writes = fragments.enumerated().map { i, f in
            ClientWrite(
                payload: f,
                flags: clws_ws_flags(isText ? 0 : 1, i == 0 ? 1 : 0, i == fragments.count - 1 ? 1 : 0))
        }
        try? enqueue { (ob: inout ClientOutbox) in
            ob.writes[id, default: []].append(contentsOf: writes)
            ob.dirty.append(id)
        }
    }

    /// Messages queued for a connection and not yet handed to its socket: a sender that must not
    /// outrun the connection (a load generator sending as fast as it can) waits while it is high.
    public func queuedWrites(for id: ClientConnectionID) -> Int {
        pending.withLock { $0.writes[id]?.count ?? 0 }
    }

    /// Closes a connection with `code` and `reason` after its queued writes; it is not reconnected.
    public func close(_ id: ClientConnectionID, code: Int = 1000, reason: String = "") {
        try? enqueue { (ob: inout ClientOutbox) in
            ob.closes.append((id, code, reason))
        }
    }

    /// Stops the service thread, dropping every connection, and finishes ``events``.
    ///
    /// Returns within `timeout`.
    public func shutdown(timeout: Duration = .seconds(3)) async {
        guard lifecycle.withLock({ $0.started && !$0.finished }) else { return }
        stopRequested.store(true, ordering: .releasing)
        pending.withLock { ob in
            if let c = ob.context { Lws.wake(c) }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !lifecycle.withLock({ $0.finished }) && clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private func enqueue(_ body: (inout ClientOutbox) throws(TransportError) -> Void) throws(TransportError) {
        let context = try pending.withLock { (ob: inout ClientOutbox) throws(TransportError) -> LwsContextHandle? in
            try body(&ob)
            if ob.wakePending { return nil }
            ob.wakePending = true
            return ob.context
        }
        if let context { Lws.wake(context) }
    }

    func emit(_ event: ClientEvent) {
        if let eventHandler {
            eventHandler(event)
        } else {
            continuation.yield(event)
        }
    }
}

/// A connection request, kept for reconnects.
struct ConnectRequest: Sendable {
    let id: ClientConnectionID
    let url: WebSocketURL
    let subprotocol: String?
    let origin: String?
    let reconnect: ReconnectPolicy
    let allowSelfSigned: Bool
}

/// One frame a client will write; owns its buffer (lws masks it in place).
struct ClientWrite: Sendable {
    var payload: [UInt8]
    var flags: Int32
}

/// Work queued for the client's service thread, behind its mutex.
struct ClientOutbox: Sendable {
    var context: LwsContextHandle?
    var wakePending = false
    var connects: [ConnectRequest] = []
    var writes: [ClientConnectionID: [ClientWrite]] = [:]
    var dirty: [ClientConnectionID] = []
    var closes: [(ClientConnectionID, Int, String)] = []
}
