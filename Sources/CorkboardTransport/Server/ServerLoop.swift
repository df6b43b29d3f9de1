import CLibWebSockets
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State owned by the server's service thread: never touched by any other thread.
final class ServerLoop {
    var wsiByID = ConnectionTable<OpaquePointer>()
    var reassembly = ConnectionTable<Reassembly>()
    /// Close code and reason sent or received, reported in `.disconnected`.
    var closeInfo: [ConnectionID: (code: Int, reason: String)] = [:]
    /// Connections whose close frame went out: nothing more is written or delivered for them.
    var closing: Set<ConnectionID> = []
    /// HTTP requests being received or handled, by connection.
    var exchanges: [OpaquePointer: HTTPExchange] = [:]
    /// The connection of each exchange, by token (a connection pointer may be reused after close).
    var exchangeTokens: [UInt64: OpaquePointer] = [:]
    var nextExchangeToken: UInt64
    /// HTTP responses being written, by connection.
    var responses: [OpaquePointer: OutgoingResponse] = [:]
    var nextID: UInt64
    var shuttingDown = false
    /// The libuv loop lws runs on, when the shard uses libuv.
    var uvLoop: UnsafeMutablePointer<uv_loop_t>?
    /// The vhost connections are adopted into (set once the context exists).
    var vhost: OpaquePointer?
    /// The listening socket, on the shard that accepts (shard 0); `nil` on the others.
    var listener: ListeningSocket?
    /// Whether the listener was adopted into the context (which then closes it).
    var listenerAdopted = false
    /// When a failing `accept` was last logged (at most once a second).
    var lastAcceptErrorLog: ContinuousClock.Instant?
    /// A descriptor held in reserve on the accepting shard: at the open-file limit it is closed
    /// to accept (and at once close) the waiting connection, so the listener never spins.
    var reserveDescriptor: Int32 = -1
    /// Every socket this shard adopted, with its remote address and whether its upgrade was
    /// admitted, until libwebsockets destroys it (the caps in ``ConnectionLimits``).
    var sockets: [OpaquePointer: AdmittedSocket] = [:]
    /// The sockets of ``sockets`` that are not WebSockets, oldest first, under the thread's cap.
    var pending: PendingSockets<OpaquePointer>
    /// Connections on ``ServerConfiguration/echoPath``: echoed by the transport, never reported.
    var echoes: Set<ConnectionID> = []
    /// Batch buffer: `Lws.pre` bytes of headroom, then `writeBatchBytes`.
    let scratch: UnsafeMutablePointer<UInt8>
    let batchCapacity: Int
    /// C allocations that must outlive the context.
    var protocols: UnsafeMutablePointer<lws_protocols>?
    var retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>?
    var tokenLimits: UnsafeMutablePointer<lws_token_limits>?
    var cStrings: [UnsafeMutablePointer<CChar>] = []
    /// The context, while it exists (for the keepalive timer).
    var context: OpaquePointer?
    /// Which connections went quiet (pings and hangups; `ServerLoop+Keepalive.swift`).
    var keepalive: Keepalive
    /// The once-a-second keepalive sweep's lws timer, and whether it is scheduled.
    let keepaliveTimer: UnsafeMutablePointer<clws_timer_t>
    var keepaliveArmed = false
    /// Messages read since output was last looked for (`ShardContext.writeWaitingOutput(reading:)`).
    var readsSinceOutput = 0

    init(configuration: ServerConfiguration, shard: Int) {
        nextID = ShardIndex.base(shard) + 1
        nextExchangeToken = ShardIndex.base(shard) + 1
        batchCapacity = configuration.writeBatchBytes
        scratch = .allocate(capacity: Lws.pre + configuration.writeBatchBytes)
        pending = PendingSockets(cap: configuration.maxPendingConnectionsPerThread)
        keepalive = Keepalive(pingInterval: configuration.pingInterval, hangupAfter: configuration.hangupAfter)
        keepaliveTimer = .allocate(capacity: 1)
        keepaliveTimer.initialize(to: clws_timer_t())
    }

    /// The WebSocket protocol's name pointer, used to pick one of the per-protocol wake callbacks
    /// (lws copies the protocol table into each vhost, but the name pointers stay ours).
    var wsProtocolName: UnsafePointer<CChar>? { protocols?[1].name }

    /// The listener protocol's name pointer: its raw-file callbacks mean connections wait.
    var listenerProtocolName: UnsafePointer<CChar>? { protocols?[2].name }

    func cString(_ s: String) -> UnsafeMutablePointer<CChar> {
        let p = Lws.cString(s)
        cStrings.append(p)
        return p
    }

    /// Frees the C allocations (after `lws_context_destroy`).
    func release() {
        for p in cStrings { free(p) }
        cStrings.removeAll()
        protocols?.deallocate()
        protocols = nil
        retryPolicy?.deallocate()
        retryPolicy = nil
        tokenLimits?.deallocate()
        tokenLimits = nil
    }

    deinit {
        scratch.deallocate()
        keepaliveTimer.deallocate()
        release()
    }
}

/// The C callback for every server protocol: finds the server from the context user pointer.
private func corkboardServerCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ inp: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
    guard let wsi, let up = lws_context_user(lws_get_context(wsi)) else {
        return lws_callback_http_dummy(wsi, reason, user, inp, len)
    }
    return Unmanaged<ShardContext>.fromOpaque(up).takeUnretainedValue().serviceCallback(wsi, reason, user, inp, len)
}

extension ShardContext {
    /// The body of the shard's service thread: create the context (on libuv, or poll when the
    /// plugin cannot be loaded), adopt the listener on the accepting shard, report readiness,
    /// serve until stopped, then destroy the context.
    func runServiceThread(ready: (Result<Void, TransportError>) -> Void) {
        let c = configuration
        Lws.quietLogging()
        installFrameGuard()
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 4)
        protocols.initialize(repeating: lws_protocols(), count: 4)
        protocols[0].name = UnsafePointer(loop.cString("http"))
        protocols[0].callback = corkboardServerCallback
        // A WebSocket that offers no subprotocol (the echo path) binds to protocol 0: give it the
        // same per-connection state and receive buffer as the application's protocol.
        protocols[0].per_session_data_size = ShardContext.sessionDataBytes
        protocols[0].rx_buffer_size = c.receiveBufferBytes
        // Without it lws caps each socket write at the receive buffer's size and copies the rest
        // of a batch into its own buffer for a later write: a batch goes out in one send.
        protocols[0].tx_packet_size = c.writeBatchBytes
        protocols[1].name = UnsafePointer(loop.cString(c.subprotocol))
        protocols[1].callback = corkboardServerCallback
        protocols[1].per_session_data_size = ShardContext.sessionDataBytes
        protocols[1].rx_buffer_size = c.receiveBufferBytes
        protocols[1].tx_packet_size = c.writeBatchBytes
        protocols[2].name = UnsafePointer(loop.cString("corkboard-listener"))
        protocols[2].callback = corkboardServerCallback
        loop.protocols = protocols
        // No validity timers of lws's own (all zero; without a policy lws would use its default
        // one): the shard pings and hangs up quiet connections itself (`Keepalive`).
        let retry = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        retry.initialize(to: lws_retry_bo_t())
        loop.retryPolicy = retry

        var info = lws_context_creation_info()
        info.port = CLWS_PORT_NO_LISTEN_SERVER
        info.protocols = UnsafePointer(protocols)
        info.gid = -1
        info.uid = -1
        info.options = CLWS_OPT_VALIDATE_UTF8
        info.user = Unmanaged.passUnretained(self).toOpaque()
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
        guard let ctx = context else {
            loop.release()
            var why = "the libwebsockets context could not be created"
            if c.usesTLS { why += ": the TLS certificate/key could not be loaded (check the paths and PEM format)" }
            ready(.failure(.listenFailed(why)))
            server.shardFinished()
            return
        }
        loop.vhost = lws_get_vhost_by_name(ctx, "default")
        guard let vhost = loop.vhost else {
            // On a foreign (libuv) loop the context survives a vhost that failed (bad TLS files),
            // and lws 4.1.6 crashes destroying it: leave that context and its loop (a few KiB, once,
            // on a failed start) rather than crash. On poll the context is destroyed as usual.
            if loop.uvLoop == nil {
                lws_context_destroy(ctx)
                loop.release()
            }
            var why = "the libwebsockets vhost could not be created"
            if c.usesTLS { why += ": the TLS certificate/key could not be loaded (check the paths and PEM format)" }
            ready(.failure(.listenFailed(why)))
            server.shardFinished()
            return
        }
        if let listener = loop.listener {
            loop.reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard clws_adopt_listener(vhost, listener.fd, loop.listenerProtocolName) != nil else {
                lws_context_destroy(ctx)
                loop.release()
                ready(.failure(.listenFailed("the listening socket could not be added to the service loop")))
                server.shardFinished()
                return
            }
            loop.listenerAdopted = true
        }
        shard.outbox.withLock { $0.context = LwsContextHandle(raw: ctx) }
        loop.context = ctx
        loop.keepaliveTimer.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        ready(.success(()))

        if let uvLoop = loop.uvLoop {
            // Returns when a wake after the stop request stops the loop.
            while !server.stopRequested.load(ordering: .acquiring) { clws_uv_loop_run(uvLoop) }
        } else {
            while !server.stopRequested.load(ordering: .acquiring) {
                if lws_service(ctx, 0) < 0 { break }
            }
        }
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
        loop.release()
        shard.finished.store(true, ordering: .releasing)
        server.shardFinished()
    }

    /// Dispatches one libwebsockets callback (service thread).
    func serviceCallback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ inp: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return writeable(wsi, user)
        case LWS_CALLBACK_RECEIVE:
            let result = receive(wsi, user, inp, len)
            loop.readsSinceOutput &+= 1
            if loop.readsSinceOutput >= ShardContext.readsBetweenOutput {
                writeWaitingOutput(reading: connectionID(user))
            }
            return result
        case LWS_CALLBACK_RECEIVE_PONG:
            if let id = connectionID(user) { loop.keepalive.heard(id) }
            return 0
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if let name = loop.wsProtocolName, lws_get_protocol(wsi)?.pointee.name == name {
                wake()
                // On libuv the loop runs until it is stopped.
                if server.stopRequested.load(ordering: .acquiring), let uvLoop = loop.uvLoop {
                    clws_uv_loop_stop(uvLoop)
                }
            }
            return 0
        case LWS_CALLBACK_RAW_RX_FILE:
            if let name = loop.listenerProtocolName, lws_get_protocol(wsi)?.pointee.name == name { acceptWaiting() }
            return 0
        case LWS_CALLBACK_RAW_ADOPT_FILE, LWS_CALLBACK_RAW_CLOSE_FILE:
            return 0
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            established(wsi, user)
            return 0
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let id = connectionID(user), !loop.closing.contains(id) {
                if let inp, len >= 2 {
                    let b = inp.assumingMemoryBound(to: UInt8.self)
                    let code = Int(b[0]) << 8 | Int(b[1])
                    let reason = String(decoding: UnsafeBufferPointer(start: b + 2, count: len - 2), as: UTF8.self)
                    loop.closeInfo[id] = (code, reason)
                }
                // lws answers with its own close frame; nothing of ours may follow or precede it.
                loop.closing.insert(id)
            }
            return 0
        case LWS_CALLBACK_CLOSED:
            closed(user)
            return 0
        case LWS_CALLBACK_HTTP:
            return http(wsi, inp, len)
        case LWS_CALLBACK_HTTP_BODY:
            return httpBody(wsi, inp, len)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return httpBodyCompleted(wsi)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            if loop.responses[wsi] != nil { return httpWriteable(wsi) }
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        case LWS_CALLBACK_WSI_DESTROY:
            unguardSocket(wsi)
            forgetHTTP(wsi)
            forgetSocket(wsi)
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        case LWS_CALLBACK_CLOSED_HTTP:
            forgetHTTP(wsi)
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        default:
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        }
    }

    /// What libwebsockets keeps for us per connection (its per-session data, zeroed): the
    /// connection's id (8 bytes), then the keepalive sweep in which the receive path last told the
    /// keepalive it heard from the peer, plus one (0: not yet), so a dragger's 30 messages a second
    /// cost one keepalive lookup a second, not 30.
    static let sessionDataBytes = 16
    private static let heardMarkOffset = 8

    private func connectionID(_ user: UnsafeMutableRawPointer?) -> ConnectionID? {
        guard let raw = user?.load(as: UInt64.self), raw != 0 else { return nil }
        return ConnectionID(rawValue: raw)
    }

    /// After `lws_cancel_service`: adopt the connections handed over, ask for writeable callbacks
    /// for every connection with pending output, arm slow-consumer kill timers, and start a
    /// requested shutdown.
    private func wake() {
        shard.outputWaiting.store(false, ordering: .relaxed)
        loop.readsSinceOutput = 0
        let (drained, completions, adoptions) = shard.outbox.withLock { ob in
            (ob.drain(), ob.takeHTTPCompletions(), ob.takeAdoptions())
        }
        for handed in adoptions { adopt(handed.fd, address: handed.address) }
        let (dirty, kill, shutdown) = drained
        for (token, response) in completions { httpCompleted(token: token, response: response) }
        if let shutdown, !loop.shuttingDown {
            loop.shuttingDown = true
            let grace = shard.outbox.withLock { ob -> Int in
                for id in ob.queues.keys {
                    ob.requestShutdownClose(id, code: shutdown.code, reason: shutdown.reason)
                }
                return ob.shutdownGraceSeconds
            }
            for wsi in loop.wsiByID.allValues {
                lws_callback_on_writable(wsi)
                Lws.dropAfter(wsi, seconds: grace)
            }
        }
        for id in dirty {
            if let wsi = loop.wsiByID[id] { writeNow(wsi, id) }
        }
        if loop.shuttingDown { countPeersNotTakingClose() }
        let killSeconds = configuration.slowConsumerKillAfter.wholeSecondsRoundedUp
        for id in kill {
            guard let wsi = loop.wsiByID[id] else { continue }
            let closeNow = shard.outbox.withLock { $0.withQueue(id) { $0.closeNow } ?? nil }
            let close = closeNow ?? (code: 1008, reason: "slow consumer")
            // A slow consumer past the transport's bound, or a close that discards the queue.
            logger.warning(
                "closing a connection at once",
                metadata: ["connection": "\(id)", "code": "\(close.code)", "reason": "\(close.reason)"])
            loop.closeInfo[id] = close
            Lws.dropAfter(wsi, seconds: killSeconds)
        }
    }

    /// Socket reads (message pieces) between two looks for queued output.
    static let readsBetweenOutput = 32

    /// Writes the output queued since the last wake, between socket reads: under load the loop
    /// finds thousands of sockets readable at once and reaches the wake (`lws_cancel_service`,
    /// one more descriptor in the ready list) only after reading them all, so a committed
    /// operation's fan-out would wait behind a whole round of input. Each connection taken is
    /// written as the wake writes it (`writeNow`); the wake still comes and does the rest (closes,
    /// long queues, adoptions, HTTP responses). The connection being read (`reading`) is not
    /// written inside its own receive callback (lws 4.1.6 may drop a writeable request made
    /// there): it stays for the wake.
    func writeWaitingOutput(reading: ConnectionID?) {
        loop.readsSinceOutput = 0
        guard shard.outputWaiting.load(ordering: .acquiring) else { return }
        shard.outputWaiting.store(false, ordering: .relaxed)
        let capacity = loop.batchCapacity
        let ready = shard.outbox.withLock { $0.takeDirty(fittingIn: capacity, except: reading) }
        for id in ready {
            if let wsi = loop.wsiByID[id], writeNow(wsi, id) { shard.writesBetweenReads.add(1, ordering: .relaxed) }
        }
    }

    /// Writes a connection's queue at the wake that found it dirty, without waiting for a
    /// writeable callback.
    ///
    /// Asking lws for a writeable callback turns POLLOUT on and, once served, off again; on libuv
    /// each turn is `uv_poll_start`, which takes the socket out of epoll and puts it back: four
    /// `epoll_ctl` calls per socket write, a fifth of the server's CPU under fan-out. A socket lws
    /// holds no unsent bytes for almost always takes a batch at once, so it is written here. If the
    /// kernel takes only part, lws keeps the rest (at most one batch) and asks for POLLOUT itself,
    /// and until it has sent it, `lws_partial_buffered` sends this connection back to the
    /// writeable callback, which keeps the slow-consumer bound on our queue. Closes, and a queue
    /// longer than one batch, also go through the callback.
    ///
    /// - Returns: Whether a batch was written.
    @discardableResult
    private func writeNow(_ wsi: OpaquePointer, _ id: ConnectionID) -> Bool {
        if loop.closing.contains(id) { return false }
        guard lws_partial_buffered(wsi) == 0 else {
            lws_callback_on_writable(wsi)
            return false
        }
        switch nextBatch(for: id) {
        case .idle:
            return false
        case .close:
            // Not consumed: the writeable callback finds the same close and starts the handshake.
            lws_callback_on_writable(wsi)
            return false
        case .write(let bytes, let more):
            guard writeBatch(wsi, bytes: bytes, more: more) else {
                Lws.dropSoon(wsi)
                return false
            }
            return true
        }
    }

    private func writeable(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) -> Int32 {
        guard let id = connectionID(user), !loop.closing.contains(id) else { return 0 }
        switch nextBatch(for: id) {
        case .idle:
            return 0
        case .close(let code, let reason):
            loop.closeInfo[id] = (code, reason)
            loop.closing.insert(id)
            let answered = Lws.startClosingHandshake(
                wsi, code: code, reason: reason, buffer: loop.scratch + Lws.pre,
                seconds: configuration.slowConsumerKillAfter.wholeSecondsRoundedUp)
            return answered ? 0 : -1
        case .write(let bytes, let more):
            return writeBatch(wsi, bytes: bytes, more: more) ? 0 : -1
        }
    }

    /// What to do next for `id`: its next frames copied into the batch buffer (after `Lws.pre`
    /// bytes of headroom), its close, or nothing.
    private func nextBatch(for id: ConnectionID) -> Outbox.WriteAction {
        let scratch = loop.scratch + Lws.pre
        let capacity = loop.batchCapacity
        return shard.outbox.withLock { $0.nextWrite(for: id, into: scratch, capacity: capacity) }
    }

    /// Writes the first `bytes` of the batch buffer, then asks for a writeable callback when
    /// `more` is queued; `false` when the socket failed. A raw write: the frames were framed by
    /// us, and the ws role sends HTTP writes unchanged.
    private func writeBatch(_ wsi: OpaquePointer, bytes: Int, more: Bool) -> Bool {
        guard Lws.write(wsi, loop.scratch + Lws.pre, bytes, LWS_WRITE_HTTP) else { return false }
        if more { lws_callback_on_writable(wsi) }
        return true
    }

    private func receive(
        _ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?, _ inp: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        // After our close frame, input is read (so the socket never closes with unread data)
        // but no longer delivered.
        // One lookup per table on this path, and none in the sets that are almost always empty.
        guard let user, let id = connectionID(user), loop.closing.isEmpty || !loop.closing.contains(id) else {
            return 0
        }
        if let observe = configuration.readWaitObserver { reportReadWait(wsi, to: observe) }
        let chunk = UnsafeRawBufferPointer(start: inp, count: inp == nil ? 0 : len)
        let (first, final) = (lws_is_first_fragment(wsi) != 0, lws_is_final_fragment(wsi) != 0)
        let outcome: Reassembly.Outcome
        if first && final {
            let limit = configuration.maxMessageBytes
            outcome = Reassembly.whole(chunk, binary: lws_frame_is_binary(wsi) != 0, limit: limit)
        } else {
            let (binary, remaining) = (lws_frame_is_binary(wsi) != 0, Int(lws_remaining_packet_payload(wsi)))
            let assembled = loop.reassembly.withValue(id) {
                $0.append(chunk, first: first, final: final, binary: binary, remainingInFrame: remaining)
            }
            guard let assembled else { return 0 }
            outcome = assembled
        }
        // The keepalive needs to hear a connection once per sweep; later frames change nothing.
        if user.load(fromByteOffset: Self.heardMarkOffset, as: UInt32.self) != loop.keepalive.now &+ 1 {
            loop.keepalive.heard(id)
            user.storeBytes(of: loop.keepalive.now &+ 1, toByteOffset: Self.heardMarkOffset, as: UInt32.self)
        }
        switch outcome {
        case .partial:
            return 0
        case .complete(let bytes, let isText):
            if !loop.echoes.isEmpty && loop.echoes.contains(id) {
                _ = shard.outbox.withLock {
                    $0.enqueue(isText ? OutboundFrame(utf8: bytes) : OutboundFrame(binary: bytes), to: id)
                }
                lws_callback_on_writable(wsi)
                return 0
            }
            emit(.message(id, InboundMessage(bytes: bytes, isText: isText)))
            return 0
        case .tooLarge:
            let reason = "message too large (limit \(configuration.maxMessageBytes) bytes)"
            loop.closeInfo[id] = (1009, reason)
            Lws.setCloseReason(wsi, code: 1009, reason: reason)
            return -1
        }
    }

    private func established(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) {
        guard let user else { return }
        let id = ConnectionID(rawValue: loop.nextID)
        loop.nextID += 1
        user.storeBytes(of: id.rawValue, as: UInt64.self)
        user.storeBytes(of: 0, toByteOffset: Self.heardMarkOffset, as: UInt32.self)
        loop.wsiByID[id] = wsi
        loop.reassembly[id] = Reassembly(limit: configuration.maxMessageBytes)
        shard.outbox.withLock { $0.register(id) }
        guardEstablished(wsi)
        follow(id)
        shard.connections.add(1, ordering: .relaxed)
        server.connections.add(1, ordering: .relaxed)
        let path = Lws.header(wsi, WSI_TOKEN_GET_URI) ?? configuration.wsPath
        if configuration.echoPath != nil && path == configuration.echoPath {
            // Served by the transport alone: counted and limited like any connection, never reported.
            loop.echoes.insert(id)
            return
        }
        let info = ConnectionInfo(
            path: path, queryItems: Lws.queryItems(wsi),
            origin: Lws.header(wsi, WSI_TOKEN_ORIGIN), remoteAddress: loop.sockets[wsi]?.client ?? clientAddress(wsi),
            userAgent: Lws.header(wsi, WSI_TOKEN_HTTP_USER_AGENT), host: Lws.header(wsi, WSI_TOKEN_HOST))
        if loop.shuttingDown {
            shard.outbox.withLock { ob in
                let s = ob.shutdownRequested
                ob.requestClose(id, code: s?.code ?? 1001, reason: s?.reason ?? "server shutting down")
            }
            lws_callback_on_writable(wsi)
        }
        emit(.connected(id, info))
    }

    private func closed(_ user: UnsafeMutableRawPointer?) {
        guard let id = connectionID(user), loop.wsiByID.removeValue(forKey: id) != nil else { return }
        loop.reassembly[id] = nil
        loop.closing.remove(id)
        loop.keepalive.remove(id)
        shard.outbox.withLock { $0.remove(id) }
        shard.connections.subtract(1, ordering: .relaxed)
        server.connections.subtract(1, ordering: .relaxed)
        let info = loop.closeInfo.removeValue(forKey: id)
        if loop.echoes.remove(id) != nil { return }
        emit(.disconnected(id, closeCode: info?.code, reason: info?.reason ?? "connection closed"))
    }

    /// Refuses bad upgrades with a real HTTP status: 404 wrong path, 403 bad origin, 400 missing
    /// subprotocol, 414/431 oversized headers, 429 refused for now by the application's gate, 503
    /// while shutting down or over a connection cap (429 and 503 with `Retry-After`). The echo
    /// path (``ServerConfiguration/echoPath``) needs no subprotocol and is never gated.
    private func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let c = configuration
        let path = Lws.header(wsi, WSI_TOKEN_GET_URI) ?? ""
        let isEcho = c.echoPath != nil && path == c.echoPath
        var refusal: (Int, String)?
        var headers: [HTTPHeader] = []
        if loop.shuttingDown {
            refusal = (503, "server shutting down")
        } else if let oversized = RequestHeaderLimit.refusal(wsi, maxHead: c.maxRequestHeaderBytes) {
            refusal = oversized
        } else if !c.acceptsWebSockets {
            refusal = (404, "this port serves HTTP only; WebSockets are on the server's public port")
        } else if path != c.wsPath && !isEcho {
            refusal = (404, "WebSocket upgrades are served on \(c.wsPath) only")
        } else if !origins.allows(
            origin: Lws.header(wsi, WSI_TOKEN_ORIGIN), port: boundPort, hostHeader: Lws.header(wsi, WSI_TOKEN_HOST))
        {
            refusal = (403, "origin not allowed")
        } else if !isEcho
            && !(Lws.header(wsi, WSI_TOKEN_PROTOCOL) ?? "").split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: " \t") == c.subprotocol
            })
        {
            refusal = (400, "the Sec-WebSocket-Protocol header must offer \(c.subprotocol)")
        } else if loop.sockets[wsi]?.evicted == true {
            return -1
        } else if !isEcho, let gated = gateRefusal(wsi, kind: .webSocket, path: path) {
            refusal = (429, gated.sentence)
            headers = [HTTPHeader("retry-after", "\(gated.retryAfter)"), HTTPHeader("cache-control", "no-store")]
        } else if let full = admitUpgrade(wsi) {
            refusal = (503, full.message)
            headers = [HTTPHeader("retry-after", "\(c.refusalRetryAfter.wholeSecondsRoundedUp)")]
        }
        guard let (status, message) = refusal else { return 0 }
        guardRefused(wsi)
        logger.debug(
            "refused upgrade", metadata: ["status": "\(status)", "reason": "\(message)", "path": "\(path)"])
        // lws_return_http_status would answer "HTTP/1.0" here (the request version is not parsed
        // yet), which strict clients reject; write the whole response ourselves.
        return Lws.writeRawResponse(wsi, status: status, body: message, headers: headers) ? 1 : -1
    }
}

extension Substring {
    /// Drops leading and trailing characters in `set`.
    func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return s
    }
}
