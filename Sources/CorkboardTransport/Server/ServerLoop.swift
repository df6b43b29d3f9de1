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
    var wsiByID: [ConnectionID: OpaquePointer] = [:]
    var reassembly: [ConnectionID: Reassembly] = [:]
    /// Close code and reason sent or received, reported in `.disconnected`.
    var closeInfo: [ConnectionID: (code: Int, reason: String)] = [:]
    /// HTTP requests being received or handled, by connection.
    var exchanges: [OpaquePointer: HTTPExchange] = [:]
    /// The connection of each exchange, by token (a connection pointer may be reused after close).
    var exchangeTokens: [UInt64: OpaquePointer] = [:]
    var nextExchangeToken: UInt64 = 1
    /// Request body bytes reserved by the exchanges in flight.
    var bufferedRequestBytes = 0
    /// HTTP responses being written, by connection.
    var responses: [OpaquePointer: OutgoingResponse] = [:]
    var nextID: UInt64 = 1
    var shuttingDown = false
    /// Batch buffer: `Lws.pre` bytes of headroom, then `writeBatchBytes`.
    let scratch: UnsafeMutablePointer<UInt8>
    let batchCapacity: Int
    /// C allocations that must outlive the context.
    var protocols: UnsafeMutablePointer<lws_protocols>?
    var retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>?
    var cStrings: [UnsafeMutablePointer<CChar>] = []

    init(configuration: ServerConfiguration) {
        batchCapacity = configuration.writeBatchBytes
        scratch = .allocate(capacity: Lws.pre + configuration.writeBatchBytes)
    }

    /// The WebSocket protocol's name pointer, used to pick one of the per-protocol wake callbacks
    /// (lws copies the protocol table into each vhost, but the name pointers stay ours).
    var wsProtocolName: UnsafePointer<CChar>? { protocols?[1].name }

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
    }

    deinit {
        scratch.deallocate()
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
    return Unmanaged<WebSocketServer>.fromOpaque(up).takeUnretainedValue().serviceCallback(wsi, reason, user, inp, len)
}

extension WebSocketServer {
    /// The body of the service thread: create the context, report the bound port, serve until
    /// stopped, then destroy the context.
    func runServiceThread(ready: (Result<Int, TransportError>) -> Void) {
        let c = configuration
        Lws.quietLogging()
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 3)
        protocols.initialize(repeating: lws_protocols(), count: 3)
        protocols[0].name = UnsafePointer(loop.cString("http"))
        protocols[0].callback = corkboardServerCallback
        protocols[1].name = UnsafePointer(loop.cString(c.subprotocol))
        protocols[1].callback = corkboardServerCallback
        protocols[1].per_session_data_size = MemoryLayout<UInt64>.size
        protocols[1].rx_buffer_size = c.receiveBufferBytes
        loop.protocols = protocols
        let retry = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        retry.initialize(to: lws_retry_bo_t())
        retry.pointee.secs_since_valid_ping = UInt16(clamping: c.pingInterval.wholeSecondsRoundedUp)
        retry.pointee.secs_since_valid_hangup = UInt16(
            clamping: max(c.hangupAfter.wholeSecondsRoundedUp, c.pingInterval.wholeSecondsRoundedUp + 1))
        loop.retryPolicy = retry

        var info = lws_context_creation_info()
        info.port = Int32(c.port)
        info.protocols = UnsafePointer(protocols)
        info.gid = -1
        info.uid = -1
        info.options = CLWS_OPT_VALIDATE_UTF8
        if c.isLoopback {
            // Binding "127.0.0.1" by address still listened on every interface in 4.1.6; the
            // interface name binds loopback only (IPv4).
            info.iface = UnsafePointer(loop.cString("lo"))
            info.options |= CLWS_OPT_DISABLE_IPV6
        } else if !c.host.isEmpty && c.host != "0.0.0.0" && c.host != "::" {
            info.iface = UnsafePointer(loop.cString(c.host))
        }
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.retry_and_idle_policy = UnsafePointer(retry)
        info.timeout_secs = UInt32(c.handshakeTimeout.wholeSecondsRoundedUp)
        info.timeout_secs_ah_idle = UInt32(c.handshakeTimeout.wholeSecondsRoundedUp)
        info.max_http_header_pool = 1024
        if let cert = c.tlsCertificatePath, let key = c.tlsPrivateKeyPath {
            info.options |= CLWS_OPT_DO_SSL_GLOBAL_INIT
            info.ssl_cert_filepath = UnsafePointer(loop.cString(cert))
            info.ssl_private_key_filepath = UnsafePointer(loop.cString(key))
            info.alpn = UnsafePointer(loop.cString("http/1.1"))
        }

        guard let ctx = lws_create_context(&info) else {
            loop.release()
            var why = "could not listen on \(c.host):\(c.port)"
            why += ": the port may be in use or the address not local"
            if c.usesTLS { why += ", or the TLS certificate/key could not be loaded (check the paths and PEM format)" }
            why += "; choose another port or stop the process holding it"
            ready(.failure(.listenFailed(why)))
            return
        }
        let port = Int(lws_get_vhost_listen_port(lws_get_vhost_by_name(ctx, "default")))
        outbox.withLock { $0.context = LwsContextHandle(raw: ctx) }
        ready(.success(port))

        while !stopRequested.load(ordering: .acquiring) {
            if lws_service(ctx, 0) < 0 { break }
        }
        outbox.withLock { $0.context = nil }
        lws_context_destroy(ctx)
        loop.release()
        lifecycle.withLock { $0.finished = true }
        continuation.finish()
        logger.info("stopped")
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
            return receive(wsi, user, inp, len)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if let name = loop.wsProtocolName, lws_get_protocol(wsi)?.pointee.name == name { wake() }
            return 0
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            return loop.shuttingDown ? 1 : 0
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            established(wsi, user)
            return 0
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let id = connectionID(user), let inp, len >= 2 {
                let b = inp.assumingMemoryBound(to: UInt8.self)
                let code = Int(b[0]) << 8 | Int(b[1])
                let reason = String(decoding: UnsafeBufferPointer(start: b + 2, count: len - 2), as: UTF8.self)
                loop.closeInfo[id] = (code, reason)
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
        case LWS_CALLBACK_CLOSED_HTTP, LWS_CALLBACK_WSI_DESTROY:
            forgetHTTP(wsi)
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        default:
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        }
    }

    private func connectionID(_ user: UnsafeMutableRawPointer?) -> ConnectionID? {
        guard let raw = user?.load(as: UInt64.self), raw != 0 else { return nil }
        return ConnectionID(rawValue: raw)
    }

    /// After `lws_cancel_service`: ask for writeable callbacks for every connection with pending
    /// output, arm slow-consumer kill timers, and start a requested shutdown.
    private func wake() {
        let (drained, completions) = outbox.withLock { ob in (ob.drain(), ob.takeHTTPCompletions()) }
        let (dirty, kill, shutdown) = drained
        for (token, response) in completions { httpCompleted(token: token, response: response) }
        if let shutdown, !loop.shuttingDown {
            loop.shuttingDown = true
            let grace = outbox.withLock { ob -> Int in
                for id in ob.queues.keys { ob.requestClose(id, code: shutdown.code, reason: shutdown.reason) }
                return ob.shutdownGraceSeconds
            }
            for wsi in loop.wsiByID.values {
                lws_callback_on_writable(wsi)
                Lws.dropAfter(wsi, seconds: grace)
            }
        }
        for id in dirty {
            if let wsi = loop.wsiByID[id] { lws_callback_on_writable(wsi) }
        }
        let killSeconds = configuration.slowConsumerKillAfter.wholeSecondsRoundedUp
        for id in kill {
            guard let wsi = loop.wsiByID[id] else { continue }
            logger.warning("closing slow consumer", metadata: ["connection": "\(id)"])
            loop.closeInfo[id] = outbox.withLock { $0.queues[id]?.closeNow } ?? (1008, "slow consumer")
            Lws.dropAfter(wsi, seconds: killSeconds)
        }
    }

    private func writeable(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) -> Int32 {
        guard let id = connectionID(user) else { return 0 }
        let scratch = loop.scratch + Lws.pre
        let capacity = loop.batchCapacity
        let action = outbox.withLock { $0.nextWrite(for: id, into: scratch, capacity: capacity) }
        switch action {
        case .idle:
            return 0
        case .close(let code, let reason):
            loop.closeInfo[id] = (code, reason)
            Lws.setCloseReason(wsi, code: code, reason: reason)
            return -1
        case .write(let bytes, let more):
            // Raw write: the frames were framed by us; the ws role sends HTTP writes unchanged.
            guard Lws.write(wsi, scratch, bytes, LWS_WRITE_HTTP) else { return -1 }
            if more { lws_callback_on_writable(wsi) }
            return 0
        }
    }

    private func receive(
        _ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?, _ inp: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        guard let id = connectionID(user), loop.reassembly[id] != nil else { return 0 }
        let chunk = UnsafeRawBufferPointer(start: inp, count: inp == nil ? 0 : len)
        let outcome = loop.reassembly[id]!.append(
            chunk, first: lws_is_first_fragment(wsi) != 0, final: lws_is_final_fragment(wsi) != 0,
            binary: lws_frame_is_binary(wsi) != 0, remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
        switch outcome {
        case .partial:
            return 0
        case .complete(let bytes, let isText):
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
        loop.wsiByID[id] = wsi
        loop.reassembly[id] = Reassembly(limit: configuration.maxMessageBytes)
        outbox.withLock { $0.register(id) }
        connections.add(1, ordering: .relaxed)
        let info = ConnectionInfo(
            path: Lws.header(wsi, WSI_TOKEN_GET_URI) ?? configuration.wsPath, queryItems: Lws.queryItems(wsi),
            origin: Lws.header(wsi, WSI_TOKEN_ORIGIN), remoteAddress: Lws.peerAddress(wsi),
            userAgent: Lws.header(wsi, WSI_TOKEN_HTTP_USER_AGENT), host: Lws.header(wsi, WSI_TOKEN_HOST))
        if loop.shuttingDown {
            outbox.withLock { ob in
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
        outbox.withLock { $0.remove(id) }
        connections.subtract(1, ordering: .relaxed)
        let info = loop.closeInfo.removeValue(forKey: id)
        emit(.disconnected(id, closeCode: info?.code, reason: info?.reason ?? "connection closed"))
    }

    /// Refuses bad upgrades with a real HTTP status: 404 wrong path, 403 bad origin, 400 missing
    /// subprotocol, 503 while shutting down.
    private func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let c = configuration
        let path = Lws.header(wsi, WSI_TOKEN_GET_URI) ?? ""
        let refusal: (Int, String)?
        if loop.shuttingDown {
            refusal = (503, "server shutting down")
        } else if path != c.wsPath {
            refusal = (404, "WebSocket upgrades are served on \(c.wsPath) only")
        } else if !origins.allows(
            origin: Lws.header(wsi, WSI_TOKEN_ORIGIN), port: boundPort, hostHeader: Lws.header(wsi, WSI_TOKEN_HOST))
        {
            refusal = (403, "origin not allowed")
        } else if !(Lws.header(wsi, WSI_TOKEN_PROTOCOL) ?? "").split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: " \t") == c.subprotocol
        }) {
            refusal = (400, "the Sec-WebSocket-Protocol header must offer \(c.subprotocol)")
        } else {
            refusal = nil
        }
        guard let (status, message) = refusal else { return 0 }
        logger.debug(
            "refused upgrade", metadata: ["status": "\(status)", "reason": "\(message)", "path": "\(path)"])
        // lws_return_http_status would answer "HTTP/1.0" here (the request version is not parsed
        // yet), which strict clients reject; write the whole response ourselves.
        return Lws.writeRawResponse(wsi, status: status, body: message) ? 1 : -1
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
