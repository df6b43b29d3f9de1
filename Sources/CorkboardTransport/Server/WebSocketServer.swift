import CLibWebSockets
import Dispatch
public import Logging
import Synchronization

/// A WebSocket and HTTP server on libwebsockets, run by one service thread.
///
/// Any thread may call ``send(_:to:)``, ``broadcast(_:to:)`` and ``close(_:code:reason:)``: they
/// only queue work under a mutex and wake the service thread (`lws_cancel_service`), and wake-ups
/// coalesce, so one wake drains every connection with pending output. Each writeable callback
/// packs several queued frames for its connection into one socket write.
///
/// Events arrive on ``events``, or, if an `eventHandler` was given to the initialiser, on that
/// closure, called on the service thread (it must be quick and must not block).
public final class WebSocketServer: Sendable {
    /// The configuration the server was created with.
    public let configuration: ServerConfiguration
    let logger: Logger
    let outbox: Mutex<Outbox>
    let lifecycle = Mutex(Lifecycle())
    let routes = Mutex<[String: @Sendable (HTTPRequest) -> HTTPResponse]>([:])
    let asyncRoutes = Mutex<[HTTPRoute]>([])
    let connections = Atomic<Int>(0)
    let stopRequested = Atomic<Bool>(false)
    let eventHandler: (@Sendable (ServerEvent) -> Void)?
    let continuation: AsyncStream<ServerEvent>.Continuation
    let origins: OriginPolicy
    let staticFiles: StaticFiles?
    /// Service-thread state: touched only by the service thread after ``start()`` hands it over.
    nonisolated(unsafe) let loop: ServerLoop

    /// Connection events: connected, messages and disconnections, in order per connection.
    ///
    /// Not used when an `eventHandler` was given. Finishes after ``shutdown(code:reason:timeout:)``.
    public let events: AsyncStream<ServerEvent>

    struct Lifecycle {
        var started = false
        var finished = false
        var boundPort = 0
    }

    /// Creates a server; nothing is bound until ``start()``.
    ///
    /// - Parameters:
    ///   - configuration: addresses, limits and timeouts.
    ///   - logger: where the server logs; it never creates its own.
    ///   - eventHandler: if given, receives every event on the service thread instead of ``events``.
    public init(
        configuration: ServerConfiguration, logger: Logger,
        eventHandler: (@Sendable (ServerEvent) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        self.eventHandler = eventHandler
        outbox = Mutex(
            Outbox(maxQueuedBytes: configuration.maxQueuedBytes, maxQueuedFrames: configuration.maxQueuedFrames))
        (events, continuation) = AsyncStream.makeStream(of: ServerEvent.self, bufferingPolicy: .unbounded)
        origins = OriginPolicy(
            allowedOrigins: configuration.allowedOrigins, allowMissing: configuration.allowMissingOrigin,
            usesTLS: configuration.usesTLS)
        staticFiles = configuration.webRoot.map(StaticFiles.init(root:))
        loop = ServerLoop(configuration: configuration)
    }

    /// The port actually bound (useful with port 0); 0 before ``start()``.
    public var boundPort: Int { lifecycle.withLock { $0.boundPort } }

    /// The number of established WebSocket connections.
    public var connectionCount: Int { connections.load(ordering: .relaxed) }

    /// Frames queued and not yet written, across all connections.
    public var queuedFrameCount: Int { outbox.withLock { $0.totalQueuedFrames } }

    /// The backlog of one connection: frames and encoded bytes queued and not yet written (zero for
    /// an unknown or closed connection).
    ///
    /// Applications use it to shed optional traffic for a lagging client before the hard
    /// slow-consumer bound (`maxQueuedFrames`/`maxQueuedBytes`) closes it.
    public func backlog(of id: ConnectionID) -> (frames: Int, bytes: Int) {
        outbox.withLock { ob in ob.queues[id].map { ($0.count, $0.queuedBytes) } ?? (0, 0) }
    }

    /// Connections closed as slow consumers since start.
    public var slowConsumerCount: Int { outbox.withLock { $0.slowConsumerCount } }

    /// The identifiers of every established connection, in no particular order.
    public var connectionIDs: [ConnectionID] { outbox.withLock { Array($0.queues.keys) } }

    /// Adds a dynamic HTTP route for an exact path (call before ``start()``).
    ///
    /// The handler runs on the service thread and must be fast (the application's `/healthz`, for
    /// example). It also answers `HEAD` without the body.
    public func addRoute(_ path: String, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        routes.withLock { $0[path] = handler }
    }

    /// Adds an HTTP route whose handler runs off the service thread, in a task, so it may do I/O
    /// (call before ``start()``).
    ///
    /// - `.post` routes receive the request body in ``HTTPRequest/body``. The request must carry a
    ///   `Content-Length` (else 411 `length-required`) of at most `maxBodyBytes` (else 413
    ///   `too-large`, answered from the header, before any of the body is read); the body is
    ///   collected as it arrives and the handler runs once it is complete. While more than
    ///   ``ServerConfiguration/maxBufferedRequestBytes`` are in flight, new bodies get 503 `busy`.
    /// - `.get` routes also answer `HEAD` (without the body).
    /// - A path that has routes, but none for the method, is answered 405 with `Allow`.
    ///
    /// Errors the transport answers itself are JSON `{"code": …, "message": …}` and close the
    /// connection when the request body was not read. A handler that has not answered within
    /// ``ServerConfiguration/httpHandlerTimeout`` loses its connection.
    public func addRoute(
        _ method: HTTPMethod, _ pattern: HTTPPathPattern, maxBodyBytes: Int = 0,
        handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        let route = HTTPRoute(method: method, pattern: pattern, maxBodyBytes: max(0, maxBodyBytes), handler: handler)
        asyncRoutes.withLock { $0.append(route) }
    }

    /// Hands a finished asynchronous HTTP response to the service thread (any thread).
    func completeHTTP(token: UInt64, response: HTTPResponse) {
        let context = outbox.withLock { ob -> LwsContextHandle? in
            ob.httpCompletions.append((token, response))
            return ob.takeWakeRequest() ? ob.context : nil
        }
        if let context { Lws.wake(context) }
    }

    /// Creates the libwebsockets context on a new service thread and binds the listening socket.
    ///
    /// Returns once the socket is bound (``boundPort`` is then valid).
    ///
    /// - Throws: ``TransportError`` if the configuration is invalid, the address cannot be bound
    ///   (for example the port is in use), or the TLS certificate or key cannot be loaded.
    public func start() throws(TransportError) {
        try configuration.validate()
        try lifecycle.withLock { (l: inout Lifecycle) throws(TransportError) in
            if l.started {
                throw .invalidState("WebSocketServer.start() was called twice; create a new server instead")
            }
            l.started = true
        }
        Lws.raiseFileDescriptorLimit()
        let ready = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Int, TransportError>?>(nil)
        try ServiceThread.spawn { [self] in
            runServiceThread { outcome in
                result.withLock { $0 = outcome }
                ready.signal()
            }
        }
        ready.wait()
        switch result.withLock({ $0 })! {
        case .success(let port):
            lifecycle.withLock { $0.boundPort = port }
            logger.info(
                "listening",
                metadata: [
                    "host": "\(configuration.host)", "port": "\(port)", "tls": "\(configuration.usesTLS)",
                    "wsPath": "\(configuration.wsPath)",
                ])
        case .failure(let error):
            lifecycle.withLock { $0.finished = true }
            continuation.finish()
            throw error
        }
    }

    /// Queues `frame` for one connection. Unknown or closing connections are ignored.
    ///
    /// If the connection's queue goes past `maxQueuedFrames`/`maxQueuedBytes`, its queue is dropped
    /// and it is closed with 1008 "slow consumer".
    public func send(_ frame: OutboundFrame, to id: ConnectionID) {
        let context = outbox.withLock { ob -> LwsContextHandle? in
            _ = ob.enqueue(frame, to: id)
            return ob.takeWakeRequest() ? ob.context : nil
        }
        if let context { Lws.wake(context) }
    }

    /// Queues the same encoded `frame` (one shared buffer) for every connection in `ids`.
    ///
    /// - Complexity: O(ids) under one lock acquisition; the payload is not copied.
    public func broadcast(_ frame: OutboundFrame, to ids: some Collection<ConnectionID>) {
        let context = outbox.withLock { ob -> LwsContextHandle? in
            for id in ids { _ = ob.enqueue(frame, to: id) }
            return ob.takeWakeRequest() ? ob.context : nil
        }
        if let context { Lws.wake(context) }
    }

    /// Queues `frame` for every established connection.
    public func broadcastToAll(_ frame: OutboundFrame) {
        let context = outbox.withLock { ob -> LwsContextHandle? in
            for id in Array(ob.queues.keys) { _ = ob.enqueue(frame, to: id) }
            return ob.takeWakeRequest() ? ob.context : nil
        }
        if let context { Lws.wake(context) }
    }

    /// Closes a connection with `code` and `reason` once the frames already queued for it are written.
    ///
    /// With `discardingQueued`, the queued frames are dropped instead and the close frame goes out
    /// as soon as the socket takes it; a peer that stopped reading is dropped after
    /// ``ServerConfiguration/slowConsumerKillAfter`` (closing a client that cannot keep up).
    public func close(_ id: ConnectionID, code: Int = 1000, reason: String = "", discardingQueued: Bool = false) {
        let context = outbox.withLock { ob -> LwsContextHandle? in
            if discardingQueued {
                ob.requestImmediateClose(id, code: code, reason: reason)
            } else {
                ob.requestClose(id, code: code, reason: reason)
            }
            return ob.takeWakeRequest() ? ob.context : nil
        }
        if let context { Lws.wake(context) }
    }

    /// Stops accepting, closes every WebSocket with `code`, and stops the service thread.
    ///
    /// New TCP connections are dropped at once; established WebSockets get their queued frames
    /// and then a close frame; connections still open near the deadline are dropped. Returns
    /// within `timeout` (plus scheduling slack); `events` then finishes.
    public func shutdown(code: Int = 1001, reason: String = "server shutting down", timeout: Duration = .seconds(4))
        async
    {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let running = lifecycle.withLock { $0.started && !$0.finished }
        guard running else { return }
        logger.info("shutting down", metadata: ["connections": "\(connectionCount)", "code": "\(code)"])
        let graceSeconds = max(1, Int((timeout.seconds * 0.6).rounded(.down)))
        let context = outbox.withLock { ob -> LwsContextHandle? in
            ob.shutdownRequested = (code, reason)
            ob.shutdownGraceSeconds = graceSeconds
            return ob.takeWakeRequest() ? ob.context : nil
        }
        if let context { Lws.wake(context) }
        let graceDeadline = clock.now + .seconds(graceSeconds) + .milliseconds(200)
        while connectionCount > 0 && clock.now < min(graceDeadline, deadline - .milliseconds(300)) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        stopRequested.store(true, ordering: .releasing)
        outbox.withLock { ob in
            if let c = ob.context { Lws.wake(c) }
        }
        while !lifecycle.withLock({ $0.finished }) && clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        if !lifecycle.withLock({ $0.finished }) {
            logger.warning("service thread did not stop before the shutdown deadline; it will stop on its next wake")
        }
    }

    /// Delivers an event to the handler or the stream.
    func emit(_ event: ServerEvent) {
        if let eventHandler {
            eventHandler(event)
        } else {
            continuation.yield(event)
        }
    }
}
