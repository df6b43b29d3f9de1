import CLibWebSockets
import Dispatch
public import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket and HTTP server on libwebsockets, run by ``ServerConfiguration/threads`` service
/// threads, each with its own context (on libuv's epoll loop by default) and its share of the
/// connections.
///
/// The server binds one listening socket itself; the first service thread accepts and hands each
/// new connection to the threads in turn. Any thread may call ``send(_:to:)``,
/// ``broadcast(_:to:)`` and ``close(_:code:reason:discardingQueued:)``: they only queue work under
/// the owning thread's mutex and wake that thread (`lws_cancel_service`), and wake-ups coalesce, so
/// one wake drains every connection with pending output. A broadcast is encoded once: the same
/// ``OutboundFrame`` is queued for recipients on every thread. Each writeable callback packs
/// several queued frames for its connection into one socket write.
///
/// Events arrive on ``events``, or, if an `eventHandler` was given to the initialiser, on that
/// closure, called on the connection's service thread (with several threads, concurrently for
/// connections of different threads; it must be quick and must not block). Events of one
/// connection always arrive in order.
public final class WebSocketServer: Sendable {
    /// The configuration the server was created with.
    public let configuration: ServerConfiguration
    let logger: Logger
    /// One per service thread.
    let shards: [ShardState]
    let lifecycle = Mutex(Lifecycle())
    let routes = Mutex<[String: @Sendable (HTTPRequest) -> HTTPResponse]>([:])
    let asyncRoutes = Mutex<[HTTPRoute]>([])
    let connections = Atomic<Int>(0)
    let stopRequested = Atomic<Bool>(false)
    let eventHandler: (@Sendable (ServerEvent) -> Void)?
    let continuation: AsyncStream<ServerEvent>.Continuation
    let origins: OriginPolicy
    let staticFiles: StaticFiles?
    /// The shard the next accepted connection goes to (round robin).
    let nextShardIndex = Atomic<Int>(0)
    /// Request body bytes reserved by HTTP exchanges in flight, on every service thread.
    let bufferedRequestBytes = Atomic<Int>(0)
    /// The connection caps and every address's counts, shared by the service threads.
    let limits: Mutex<ConnectionLimits>
    /// What the application refuses for now (``setAdmissionGate(_:)``).
    let admissionGate = AtomicLazyReference<AdmissionGateBox>()

    /// Connection events: connected, messages and disconnections, in order per connection.
    ///
    /// Not used when an `eventHandler` was given. Finishes after ``shutdown(code:reason:timeout:)``.
    public let events: AsyncStream<ServerEvent>

    struct Lifecycle {
        var started = false
        var finished = false
        var boundPort = 0
        /// Service threads still running.
        var running = 0
        /// The socket that keeps the kernel stamping arrivals while reads are timed
        /// (``ReadTiming``), closed when the server finishes.
        var timestampHold: Int32?
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
        shards = (0..<max(1, configuration.threads)).map { ShardState(index: $0, configuration: configuration) }
        (events, continuation) = AsyncStream.makeStream(of: ServerEvent.self, bufferingPolicy: .unbounded)
        origins = OriginPolicy(
            allowedOrigins: configuration.allowedOrigins, allowMissing: configuration.allowMissingOrigin,
            usesTLS: configuration.usesTLS)
        staticFiles = configuration.webRoot.map(StaticFiles.init(root:))
        limits = Mutex(
            ConnectionLimits(
                maxWebSockets: configuration.maxConnections,
                maxWebSocketsPerAddress: configuration.maxConnectionsPerAddress,
                maxPendingPerAddress: configuration.maxPendingConnectionsPerAddress))
    }

    /// The port actually bound (useful with port 0); 0 before ``start()``.
    public var boundPort: Int { lifecycle.withLock { $0.boundPort } }

    /// The number of established WebSocket connections.
    public var connectionCount: Int { connections.load(ordering: .relaxed) }

    /// The number of established WebSocket connections on each service thread.
    public var connectionCountsByThread: [Int] { shards.map { $0.connections.load(ordering: .relaxed) } }

    /// Frames queued and not yet written, across all connections.
    public var queuedFrameCount: Int { shards.reduce(0) { sum, s in sum + s.outbox.withLock { $0.totalQueuedFrames } } }

    /// The backlog of one connection: frames and encoded bytes queued and not yet written (zero for
    /// an unknown or closed connection).
    ///
    /// Applications use it to shed optional traffic for a lagging client before the hard
    /// slow-consumer bound (`maxQueuedFrames`/`maxQueuedBytes`) closes it.
    public func backlog(of id: ConnectionID) -> (frames: Int, bytes: Int) {
        guard let shard = shard(of: id.rawValue) else { return (0, 0) }
        return shard.outbox.withLock { ob in ob.withQueue(id) { ($0.count, $0.queuedBytes) } ?? (0, 0) }
    }

    /// The encoded bytes queued and not yet written for each of `ids`, in order (zero for an
    /// unknown or closed connection): ``backlog(of:)`` for many connections, one lock per service
    /// thread instead of one per connection.
    ///
    /// - Complexity: O(ids).
    public func queuedBytes(of ids: [ConnectionID]) -> [Int] {
        if shards.count == 1 {
            return shards[0].outbox.withLock { ob in ids.map { ob.queuedBytes(of: $0) } }
        }
        var bytes = [Int](repeating: 0, count: ids.count)
        var byShard = [[Int]](repeating: [], count: shards.count)
        for (position, id) in ids.enumerated() where ShardIndex.of(id.rawValue) < shards.count {
            byShard[ShardIndex.of(id.rawValue)].append(position)
        }
        for (index, positions) in byShard.enumerated() where !positions.isEmpty {
            shards[index].outbox.withLock { ob in
                for position in positions { bytes[position] = ob.queuedBytes(of: ids[position]) }
            }
        }
        return bytes
    }

    /// Connections refused since start: upgrades answered 503 by a connection cap, sockets closed
    /// at accept (over the pending cap of their address, at the open-file limit), pending sockets
    /// evicted over their thread's cap, and requests answered 429 for the application's gate
    /// (``setAdmissionGate(_:)``).
    ///
    /// ``refusedConnectionCounts`` summed.
    public var refusedConnectionCount: Int { limits.withLock { $0.refused } }

    /// Connections refused since start, by reason: the counts behind
    /// `corkboard_connections_refused_total{reason}`.
    public var refusedConnectionCounts: [ConnectionRefusalReason: Int] { limits.withLock { $0.refusals } }

    /// Sockets open now from `address` that are not WebSockets, and its WebSockets (caps' view).
    public func connectionCounts(from address: String) -> (pending: Int, webSockets: Int) {
        limits.withLock { $0.counts(for: address) }
    }

    /// Lets the application refuse some requests for a while (once; a later call is ignored): `decide` is asked on a service thread, and must be quick, about
    ///
    /// - every WebSocket upgrade whose handshake passed its checks (path, origin, subprotocol),
    ///   before the connection caps: a refusal is answered `429 Too Many Requests` with
    ///   `Retry-After` and "message; try again in N s", no WebSocket;
    /// - every static file asked for with a query (`GET /?board=…`): a refusal is answered `429`
    ///   with `Retry-After` and a readable HTML page saying why and how long to wait when the
    ///   request accepts `text/html` (a browser), else the one line.
    ///
    /// Files without a query, the application's routes (`/healthz`…) and WebSockets already open
    /// are never asked about. The address in each request is the client's, behind a trusted
    /// proxy the one it forwarded. Refusals are counted in ``refusedConnectionCounts`` under their
    /// reason. The application decides who is refused (for example an address throttled for its
    /// failed joins).
    public func setAdmissionGate(_ decide: @escaping @Sendable (AdmissionRequest) -> AdmissionRefusal?) {
        _ = admissionGate.storeIfNil(AdmissionGateBox(decide))
    }

    /// Connections closed as slow consumers since start.
    public var slowConsumerCount: Int {
        shards.reduce(0) { sum, s in sum + s.outbox.withLock { $0.slowConsumerCount } }
    }

    /// WebSocket frames written to sockets since start, on every service thread (counted per
    /// socket write, under the lock the write takes anyway).
    public var framesWrittenCount: Int {
        shards.reduce(0) { sum, s in sum &+ s.outbox.withLock { $0.framesWritten } }
    }

    /// The identifiers of every established connection, in no particular order.
    public var connectionIDs: [ConnectionID] { shards.flatMap { s in s.outbox.withLock { Array($0.queues.keys) } } }

    /// The shard that owns a connection or exchange id.
    func shard(of raw: UInt64) -> ShardState? {
        let index = ShardIndex.of(raw)
        return index < shards.count ? shards[index] : nil
    }

    /// Reserves room for a request body against ``ServerConfiguration/maxBufferedRequestBytes``
    /// (shared by every service thread); `false` when it does not fit.
    func reserveRequestBytes(_ n: Int) -> Bool {
        var current = bufferedRequestBytes.load(ordering: .relaxed)
        while current + n <= configuration.maxBufferedRequestBytes {
            let (exchanged, original) = bufferedRequestBytes.compareExchange(
                expected: current, desired: current + n, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives back what ``reserveRequestBytes(_:)`` reserved.
    func releaseRequestBytes(_ n: Int) { bufferedRequestBytes.subtract(n, ordering: .relaxed) }

    /// The shard the next accepted connection goes to (round robin; accepting thread).
    func nextShard() -> ShardState {
        let turn = UInt(bitPattern: nextShardIndex.wrappingAdd(1, ordering: .relaxed).oldValue)
        return shards[Int(turn % UInt(shards.count))]
    }

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
        shard(of: token)?.enqueue { $0.httpCompletions.append((token, response)) }
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
        let listener: ListeningSocket
        do {
            listener = try ListeningSocket.open(host: configuration.host, port: configuration.port)
        } catch {
            finishWithoutStarting()
            throw error
        }
        let hold = configuration.readWaitObserver == nil ? nil : ReadTiming.hold()
        lifecycle.withLock {
            $0.boundPort = listener.port
            $0.timestampHold = hold
        }
        shards[0].loop.listener = listener
        let results = Mutex<[Result<Void, TransportError>]>([])
        let ready = DispatchSemaphore(value: 0)
        var spawned = 0
        for shard in shards {
            do {
                try ServiceThread.spawn(name: "cb-service-\(shard.index)") { [self] in
                    // Lives on the service thread, which keeps it until the context is destroyed.
                    ShardContext(server: self, shard: shard).runServiceThread { outcome in
                        results.withLock { $0.append(outcome) }
                        ready.signal()
                    }
                }
                spawned += 1
                lifecycle.withLock { $0.running += 1 }
            } catch {
                results.withLock { $0.append(.failure(error)) }
                break
            }
        }
        for _ in 0..<spawned { ready.wait() }
        if let failure = results.withLock({ $0.compactMap { if case .failure(let e) = $0 { e } else { nil } }.first }) {
            // Stop the threads that did start; they close the listener with their context.
            stopRequested.store(true, ordering: .releasing)
            for shard in shards { shard.wake() }
            if spawned == 0 {
                Glibc.close(listener.fd)
                releaseTimestampHold()
            }
            // They stop within milliseconds: the caller gets the error once they are gone (the
            // port free, nothing left logging behind it).
            let clock = ContinuousClock()
            let deadline = clock.now + Self.stopAllowance
            while spawned > 0 && !lifecycle.withLock({ $0.finished }) && clock.now < deadline { usleep(1_000) }
            throw failure
        }
        logger.info(
            "listening",
            metadata: [
                "host": "\(configuration.host)", "port": "\(listener.port)", "tls": "\(configuration.usesTLS)",
                "wsPath": "\(configuration.wsPath)", "threads": "\(shards.count)",
                "eventLoop": "\(configuration.eventLoop.rawValue)",
            ])
    }

    /// Marks a server that never ran as finished.
    private func finishWithoutStarting() {
        lifecycle.withLock { $0.finished = true }
        continuation.finish()
    }

    /// Lets the kernel stop stamping arrivals for this server (``ReadTiming``).
    private func releaseTimestampHold() {
        let fd = lifecycle.withLock { l in
            defer { l.timestampHold = nil }
            return l.timestampHold
        }
        if let fd { Glibc.close(fd) }
    }

    /// A service thread destroyed its context; the last one finishes the server.
    func shardFinished() {
        let last = lifecycle.withLock { l -> Bool in
            l.running -= 1
            if l.running == 0 { l.finished = true }
            return l.running == 0
        }
        if last {
            releaseTimestampHold()
            continuation.finish()
            logger.info("stopped")
        }
    }

    /// Queues `frame` for one connection. Unknown or closing connections are ignored.
    ///
    /// If the connection's queue goes past `maxQueuedFrames`/`maxQueuedBytes`, its queue is dropped
    /// and it is closed with 1008 "slow consumer".
    public func send(_ frame: OutboundFrame, to id: ConnectionID) {
        shard(of: id.rawValue)?.enqueue { _ = $0.enqueue(frame, to: id) }
    }

    /// Queues the same encoded `frame` (one shared buffer) for every connection in `ids`.
    ///
    /// The recipients come as an array, not as any collection: called from another module, a
    /// generic parameter is not specialized, and iterating a lazy map through it looked up generic
    /// metadata for every recipient (1.5 % of the server's samples at 200 watchers).
    ///
    /// - Complexity: O(ids), one lock acquisition and at most one wake per service thread that
    ///   holds a recipient; the payload is not copied.
    public func broadcast(_ frame: OutboundFrame, to ids: [ConnectionID]) {
        if shards.count == 1 {
            shards[0].enqueue { ob in for id in ids { _ = ob.enqueue(frame, to: id) } }
            return
        }
        var byShard = [[ConnectionID]](repeating: [], count: shards.count)
        for id in ids where ShardIndex.of(id.rawValue) < shards.count { byShard[ShardIndex.of(id.rawValue)].append(id) }
        for (index, recipients) in byShard.enumerated() where !recipients.isEmpty {
            shards[index].enqueue { ob in for id in recipients { _ = ob.enqueue(frame, to: id) } }
        }
    }

    /// Queues `frame` for every established connection.
    public func broadcastToAll(_ frame: OutboundFrame) {
        for shard in shards {
            shard.enqueue { ob in for id in Array(ob.queues.keys) { _ = ob.enqueue(frame, to: id) } }
        }
    }

    /// Closes a connection with `code` and `reason` once the frames already queued for it are written.
    ///
    /// With `discardingQueued`, the queued frames are dropped instead and the close frame goes out
    /// as soon as the socket takes it; a peer that stopped reading is dropped after
    /// ``ServerConfiguration/slowConsumerKillAfter`` (closing a client that cannot keep up).
    public func close(_ id: ConnectionID, code: Int = 1000, reason: String = "", discardingQueued: Bool = false) {
        shard(of: id.rawValue)?.enqueue { ob in
            if discardingQueued {
                ob.requestImmediateClose(id, code: code, reason: reason)
            } else {
                ob.requestClose(id, code: code, reason: reason)
            }
        }
    }

    /// How long ``shutdown(code:reason:timeout:)`` waits for the service threads once it asked them
    /// to stop, even when its own deadline has passed.
    static let stopAllowance: Duration = .seconds(1)
    /// How long a shutdown waits, once only peers that cannot take their close are left, for one
    /// of them to take it after all.
    static let unwritableCloseWait: Duration = .milliseconds(250)

    /// Stops accepting, closes every WebSocket with `code`, and stops the service threads.
    ///
    /// New TCP connections are dropped at once; established WebSockets get a close frame at once,
    /// their unsent frames dropped (a client resumes, and what they acknowledged is stored), and
    /// each is waited for until it answers the close. Once the only connections left are peers
    /// that are not taking their close (they stopped reading), they are dropped after
    /// `unwritableCloseWait` instead of at the deadline; so are connections still open near the
    /// deadline. Returns
    /// within `timeout` (plus scheduling slack, and at most a second more when the calling task
    /// itself was held up past the deadline) with the service threads stopped and the port free,
    /// unless a thread is stuck; `events` then finishes.
    public func shutdown(code: Int = 1001, reason: String = "server shutting down", timeout: Duration = .seconds(4))
        async
    {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let running = lifecycle.withLock { $0.started && !$0.finished }
        guard running else { return }
        logger.info("shutting down", metadata: ["connections": "\(connectionCount)", "code": "\(code)"])
        let graceSeconds = max(1, Int((timeout.seconds * 0.6).rounded(.down)))
        for shard in shards {
            shard.enqueue { ob in
                ob.shutdownRequested = (code, reason)
                ob.shutdownGraceSeconds = graceSeconds
            }
        }
        let graceDeadline = clock.now + .seconds(graceSeconds) + .milliseconds(200)
        // Peers that read take their close at once and answer it within a round trip: wait for
        // them (up to the grace). A peer that stopped reading cannot even be sent its close:
        // once every connection left is one of those, and none took its close for a while, waiting
        // longer helps nobody; stopping the threads drops them.
        // The count is trusted once every shard recounted it twice since it last changed (a starved
        // thread's count is stale).
        func recounts() -> [Int] { shards.map { $0.peerRecounts.load(ordering: .acquiring) } }
        var stuck = (count: -1, since: clock.now, recounts: recounts())
        // A shard that has not yet seen the shutdown may be about to count a connection whose
        // handshake it just answered: no count is final before every shard recounted once.
        func seenByAll() -> Bool { shards.allSatisfy { $0.peerRecounts.load(ordering: .acquiring) > 0 } }
        while connectionCount > 0 || !seenByAll(), clock.now < min(graceDeadline, deadline - .milliseconds(300)) {
            // Each wake recounts the connections not taking their close (ServerLoop+Shutdown).
            for shard in shards { shard.wake() }
            try? await Task.sleep(for: .milliseconds(20))
            let notTaking = shards.reduce(0) { $0 + $1.peersNotTakingClose.load(ordering: .relaxed) }
            if notTaking != stuck.count { stuck = (notTaking, clock.now, recounts()) }
            let open = connectionCount
            let fresh = zip(recounts(), stuck.recounts).allSatisfy { $0 - $1 >= 2 }
            if open > 0 && notTaking >= open && fresh && clock.now - stuck.since >= Self.unwritableCloseWait { break }
        }
        stopRequested.store(true, ordering: .releasing)
        for shard in shards { shard.wake() }
        // The threads stop (and free the port) within milliseconds of the request. A caller that
        // itself ran late (a starved task whose deadline passed in the grace stage) still gives
        // them that moment, so a returned shutdown has closed the listener whenever it could.
        let stopDeadline = max(deadline, clock.now + Self.stopAllowance)
        while !lifecycle.withLock({ $0.finished }) && clock.now < stopDeadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        if !lifecycle.withLock({ $0.finished }) {
            logger.warning("service threads did not stop before the shutdown deadline; they stop at their next wake")
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
