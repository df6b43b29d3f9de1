import CLibWebSockets
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ShardContext: LwsContextOwner {}

/// A shard's service thread from start to end: its context, the checks before serving, the loop,
/// and the teardown.
extension ShardContext {
    /// The body of the shard's service thread: create the context (on libuv, or poll when the
    /// plugin cannot be loaded), check that the frame guard is in the read path (``ReadPathCheck``)
    /// and adopt the listener on the accepting shard, report readiness, serve until stopped, then
    /// destroy the context.
    func runServiceThread(ready: (Result<Void, TransportError>) -> Void) {
        Lws.quietLogging()
        installFrameGuard()
        let ctx: OpaquePointer
        switch createContext() {
        case .success(let created):
            ctx = created
        case .failure(let error):
            ready(.failure(error))
            server.shardFinished()
            return
        }
        if let refusal = prepareToServe(ctx) {
            ready(.failure(refusal))
        } else {
            shard.outbox.withLock { $0.context = LwsContextHandle(raw: ctx) }
            loop.context = ctx
            loop.keepaliveTimer.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
            ready(.success(()))
            runLoop(ctx) { false }
        }
        tearDown(ctx)
    }

    /// Runs the event loop until `done` says so or the server is asked to stop. On libuv the loop
    /// returns only when a callback stops it (the wake after a stop request, or whoever makes
    /// `done` true).
    func runLoop(_ ctx: OpaquePointer, until done: () -> Bool) {
        while !done() && !server.stopRequested.load(ordering: .acquiring) {
            if let uvLoop = loop.uvLoop {
                clws_uv_loop_run(uvLoop)
            } else if lws_service(ctx, 0) < 0 {
                break
            }
        }
    }

    /// Creates the context and its vhost from the configuration; on failure nothing is left to
    /// tear down (except, on libuv, a context lws cannot destroy: see below).
    private func createContext() -> Result<OpaquePointer, TransportError> {
        let c = configuration
        // The C callback of every protocol: hands the event to this shard (the context's user pointer).
        let callback: Lws.Callback = { Lws.dispatch(to: ShardContext.self, $0, $1, $2, $3, $4) }
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 4)
        protocols.initialize(repeating: lws_protocols(), count: 4)
        protocols[0].name = UnsafePointer(loop.cString("http"))
        protocols[0].callback = callback
        // A WebSocket that offers no subprotocol (the echo path) binds to protocol 0: give it the
        // same per-connection state and receive buffer as the application's protocol.
        protocols[0].per_session_data_size = ShardContext.sessionDataBytes
        protocols[0].rx_buffer_size = c.receiveBufferBytes
        // Without it lws caps each socket write at the receive buffer's size and copies the rest
        // of a batch into its own buffer for a later write: a batch goes out in one send.
        protocols[0].tx_packet_size = c.writeBatchBytes
        protocols[1].name = UnsafePointer(loop.cString(c.subprotocol))
        protocols[1].callback = callback
        protocols[1].per_session_data_size = ShardContext.sessionDataBytes
        protocols[1].rx_buffer_size = c.receiveBufferBytes
        protocols[1].tx_packet_size = c.writeBatchBytes
        // Raw descriptors: the listener (a raw file) and the read-path check's probe (a raw socket).
        protocols[2].name = UnsafePointer(loop.cString("corkboard-listener"))
        protocols[2].callback = callback
        loop.protocols = protocols
        // No validity timers of lws's own (all zero; without a policy lws would use its default
        // one): the shard pings and hangs up quiet connections itself (`Keepalive`).
        let retry = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        retry.initialize(to: lws_retry_bo_t())
        loop.retryPolicy = retry

        var info = Lws.contextInfo(
            port: CLWS_PORT_NO_LISTEN_SERVER, protocols: protocols, options: CLWS_OPT_VALIDATE_UTF8, owner: self)
        info.retry_and_idle_policy = UnsafePointer(retry)
        info.timeout_secs = UInt32(c.handshakeTimeout.wholeSecondsRoundedUp)
        info.timeout_secs_ah_idle = UInt32(c.handshakeTimeout.wholeSecondsRoundedUp)
        info.max_http_header_pool = UInt16(ServerConfiguration.headerPoolPerThread)
        info.max_http_header_data = UInt16(c.maxRequestHeaderBytes)
        loop.tokenLimits = RequestHeaderLimit.tokenLimits(c.maxRequestHeaderBytes)
        info.token_limits = UnsafePointer(loop.tokenLimits)
        if let cert = c.tlsCertificatePath, let key = c.tlsPrivateKeyPath {
            info.options |= CLWS_OPT_DO_SSL_GLOBAL_INIT
            info.ssl_cert_filepath = UnsafePointer(loop.cString(cert))
            info.ssl_private_key_filepath = UnsafePointer(loop.cString(key))
            info.alpn = UnsafePointer(loop.cString("http/1.1"))
        }
        var context: OpaquePointer?
        if c.eventLoop == .libuv, let uvLoop = clws_uv_loop_create() {
            // lws runs on a libuv loop this thread owns ("foreign" to lws): it can be stopped
            // from a callback and closed after the context, whatever lws does inside uv_run.
            var loops: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(uvLoop)]
            context = loops.withUnsafeMutableBufferPointer { buffer in
                var uv = info
                uv.options |= CLWS_OPT_LIBUV
                uv.foreign_loops = buffer.baseAddress
                return lws_create_context(&uv)
            }
            if context == nil {
                clws_uv_loop_destroy(uvLoop)
                logger.warning(
                    "the libuv event loop could not start (is libwebsockets-evlib-uv installed?); using poll",
                    metadata: ["thread": "\(shard.index)"])
            } else {
                loop.uvLoop = uvLoop
            }
        }
        if context == nil { context = lws_create_context(&info) }
        var why = ""
        if c.usesTLS { why = ": the TLS certificate/key could not be loaded (check the paths and PEM format)" }
        guard let ctx = context else {
            loop.release()
            return .failure(.listenFailed("the libwebsockets context could not be created" + why))
        }
        loop.vhost = lws_get_vhost_by_name(ctx, "default")
        guard loop.vhost != nil else {
            // On a foreign (libuv) loop the context survives a vhost that failed (bad TLS files),
            // and lws 4.1.6 crashes destroying it: leave that context and its loop (a few KiB, once,
            // on a failed start) rather than crash. On poll the context is destroyed as usual.
            if loop.uvLoop == nil {
                lws_context_destroy(ctx)
                loop.release()
            }
            return .failure(.listenFailed("the libwebsockets vhost could not be created" + why))
        }
        return .success(ctx)
    }

    /// What must hold before the shard serves: the frame guard in the read path (checked on the
    /// first shard, ``ReadPathCheck``), and the listener adopted on the accepting shard. Returns
    /// why the shard cannot serve, or `nil`.
    private func prepareToServe(_ ctx: OpaquePointer) -> TransportError? {
        guard let vhost = loop.vhost else { return .listenFailed("the libwebsockets vhost is missing") }
        if shard.index == 0 && configuration.acceptsWebSockets, let reason = findUnguardedReads(ctx, vhost) {
            guard configuration.allowUnguardedReads else { return ReadPathCheck.refusal(reason) }
            logger.warning(
                """
                the WebSocket frame guard is not in libwebsockets' read path; serving without it, as allowed: \
                clients' unmasked and malformed frames reach libwebsockets unchecked
                """,
                metadata: ["reason": "\(reason)"])
        }
        if let listener = loop.listener {
            loop.reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard clws_adopt_listener(vhost, listener.fd, loop.listenerProtocolName) != nil else {
                // Not closed at teardown: lws may have closed it already, and the number may be
                // another thread's by then.
                loop.listener = nil
                return .listenFailed("the listening socket could not be added to the service loop")
            }
            loop.listenerAdopted = true
        }
        return nil
    }

    /// Destroys the context and frees what the shard held, then tells the server the shard ended.
    private func tearDown(_ ctx: OpaquePointer) {
        shard.outbox.withLock { $0.context = nil }
        stopKeepalive()
        loop.context = nil
        if let uvLoop = loop.uvLoop {
            // Guards against lws 4.1.6 closing its cancel pipe's number twice on libuv (shim.h).
            if clws_uv_destroy_context(ctx, uvLoop) == CLWS_PIPE_CALLBACK_CANCELLED {
                logger.debug(
                    "another thread took the cancel pipe's number during shutdown; left a few bytes unfreed",
                    metadata: ["thread": "\(shard.index)"])
            }
            loop.uvLoop = nil
        } else {
            lws_context_destroy(ctx)
        }
        // lws closes the adopted listener on the poll loop but leaves it open on libuv: close it
        // unless it is gone (or its number already belongs to something else).
        if let listener = loop.listener, !loop.listenerAdopted || listener.isStillListening() {
            close(listener.fd)
        }
        for handed in shard.outbox.withLock({ $0.takeAdoptions() }) {
            close(handed.fd)
            server.limits.withLock { $0.closed(address: handed.address, wasWebSocket: false) }
        }
        if loop.reserveDescriptor >= 0 {
            close(loop.reserveDescriptor)
            loop.reserveDescriptor = -1
        }
        // Read timers of sockets the context took with it without a WSI_DESTROY, if any.
        for socket in loop.sockets.values { socket.readTimer?.free() }
        loop.sockets.removeAll()
        loop.release()
        shard.finished.store(true, ordering: .releasing)
        server.shardFinished()
    }
}
