import CLibWebSockets
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State owned by the client's service thread.
final class ClientLoop {
    /// One connection and its reconnect bookkeeping.
    struct Record {
        let request: ConnectRequest
        var wsi: OpaquePointer?
        var established = false
        var failures = 0
        var retryAt: ContinuousClock.Instant?
        var userClose: (code: Int, reason: String)?
        var closeInfo: (code: Int, reason: String)?
        var reassembly: Reassembly
        var strings: [UnsafeMutablePointer<CChar>] = []
    }

    var records: [UInt64: Record] = [:]
    var protocols: UnsafeMutablePointer<lws_protocols>?
    var protocolName: UnsafeMutablePointer<CChar>?
    var alpn: UnsafeMutablePointer<CChar>?
    var timer: UnsafeMutablePointer<clws_timer_t>?
    var timerArmed = false
    var context: OpaquePointer?
    var stopping = false
    let maxMessageBytes: Int

    init(configuration: ClientConfiguration) {
        maxMessageBytes = configuration.maxMessageBytes
    }

    func freeStrings(_ r: Record) {
        for s in r.strings { free(s) }
    }

    func release() {
        for r in records.values { freeStrings(r) }
        records.removeAll()
        protocols?.deallocate()
        protocols = nil
        if let protocolName { free(protocolName) }
        protocolName = nil
        if let alpn { free(alpn) }
        alpn = nil
        timer?.deallocate()
        timer = nil
    }
}

extension WebSocketClient: LwsContextOwner {}

private func corkboardClientTimer(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let owner = Lws.timerOwner(sul) else { return }
    Unmanaged<WebSocketClient>.fromOpaque(owner).takeUnretainedValue().timerFired()
}

extension WebSocketClient {
    func runServiceThread(ready: (TransportError?) -> Void) {
        Lws.quietLogging()
        let name = Lws.cString("corkboard-client")
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(name)
        protocols[0].callback = { Lws.dispatch(to: WebSocketClient.self, $0, $1, $2, $3, $4) }
        protocols[0].rx_buffer_size = configuration.receiveBufferBytes
        loop.protocols = protocols
        loop.protocolName = name
        loop.alpn = Lws.cString("http/1.1")
        let timer = UnsafeMutablePointer<clws_timer_t>.allocate(capacity: 1)
        timer.initialize(to: clws_timer_t())
        timer.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        loop.timer = timer

        var info = Lws.contextInfo(
            port: CLWS_PORT_NO_LISTEN, protocols: protocols,
            options: CLWS_OPT_VALIDATE_UTF8 | CLWS_OPT_JUST_USE_RAW_ORIGIN, owner: self)
        if configuration.tls {
            // Only TLS clients touch OpenSSL's global state (see ClientConfiguration.tls).
            info.options |= CLWS_OPT_DO_SSL_GLOBAL_INIT
        }
        info.timeout_secs = UInt32(configuration.connectTimeout.wholeSecondsRoundedUp)
        info.connect_timeout_secs = UInt32(configuration.connectTimeout.wholeSecondsRoundedUp)
        // Bigger per-thread read buffer: fewer read() calls when many small frames arrive.
        info.pt_serv_buf_size = UInt32(max(4096, configuration.receiveBufferBytes))
        guard let ctx = lws_create_context(&info) else {
            loop.release()
            ready(.invalidState("could not create the libwebsockets client context (out of memory or OpenSSL failed)"))
            return
        }
        loop.context = ctx
        pending.withLock { $0.context = LwsContextHandle(raw: ctx) }
        ready(nil)
        while !stopRequested.load(ordering: .acquiring) {
            if lws_service(ctx, 0) < 0 { break }
        }
        loop.stopping = true
        pending.withLock { $0.context = nil }
        if let t = loop.timer { lws_sul_schedule(ctx, 0, &t.pointee.sul, nil, LWS_SET_TIMER_USEC_CANCEL) }
        lws_context_destroy(ctx)
        loop.context = nil
        loop.release()
        lifecycle.withLock { $0.finished = true }
        continuation.finish()
    }

    func serviceCallback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ inp: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        let key = UInt64(UInt(bitPattern: lws_get_opaque_user_data(wsi)))
        switch reason {
        case LWS_CALLBACK_CLIENT_RECEIVE:
            guard loop.records[key] != nil else { return 0 }
            let chunk = UnsafeRawBufferPointer(start: inp, count: inp == nil ? 0 : len)
            let outcome = loop.records[key]!.reassembly.append(
                chunk, first: lws_is_first_fragment(wsi) != 0, final: lws_is_final_fragment(wsi) != 0,
                binary: lws_frame_is_binary(wsi) != 0, remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
            switch outcome {
            case .partial: return 0
            case .complete(let bytes, let isText):
                emit(.message(ClientConnectionID(rawValue: key), InboundMessage(bytes: bytes, isText: isText)))
                return 0
            case .tooLarge:
                loop.records[key]!.closeInfo = (1009, "message too large")
                Lws.setCloseReason(wsi, code: 1009, reason: "message too large")
                return -1
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writeable(wsi, key)
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            wake()
            return 0
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            guard loop.records[key] != nil else { return -1 }
            loop.records[key]!.established = true
            loop.records[key]!.failures = 0
            loop.records[key]!.closeInfo = nil
            openCount.add(1, ordering: .relaxed)
            emit(.connected(ClientConnectionID(rawValue: key)))
            lws_callback_on_writable(wsi)
            return 0
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if loop.records[key] != nil, let inp, len >= 2 {
                let b = inp.assumingMemoryBound(to: UInt8.self)
                loop.records[key]!.closeInfo = (
                    Int(b[0]) << 8 | Int(b[1]),
                    String(decoding: UnsafeBufferPointer(start: b + 2, count: len - 2), as: UTF8.self)
                )
            }
            return 0
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let message = inp.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
            connectionEnded(key, wsi: wsi, error: message)
            return 0
        case LWS_CALLBACK_CLIENT_CLOSED:
            connectionEnded(key, wsi: wsi, error: nil)
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        }
    }

    private func writeable(_ wsi: OpaquePointer, _ key: UInt64) -> Int32 {
        let id = ClientConnectionID(rawValue: key)
        let next: ClientWrite? = pending.withLock { ob in
            guard var queue = ob.writes.removeValue(forKey: id), !queue.isEmpty else { return nil }
            let w = queue.removeFirst()
            if !queue.isEmpty { ob.writes[id] = queue }
            return w
        }
        guard var write = next else {
            if let close = loop.records[key]?.userClose {
                loop.records[key]!.closeInfo = close
                Lws.setCloseReason(wsi, code: close.code, reason: close.reason)
                return -1
            }
            return 0
        }
        let count = write.payload.count
        var buffer = [UInt8](repeating: 0, count: Lws.pre + count)
        write.payload.withUnsafeBufferPointer { src in
            if count > 0 {
                buffer.withUnsafeMutableBufferPointer {
                    ($0.baseAddress! + Lws.pre).update(from: src.baseAddress!, count: count)
                }
            }
        }
        write.payload = []
        let ok = buffer.withUnsafeMutableBufferPointer { b in
            Lws.write(wsi, b.baseAddress! + Lws.pre, count, lws_write_protocol(UInt32(write.flags)))
        }
        if !ok { return -1 }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// After a wake: start requested connections, arm writes, begin requested closes.
    private func wake() {
        let (connects, dirty, closes) = pending.withLock { ob in
            ob.wakePending = false
            let r = (ob.connects, ob.dirty, ob.closes)
            ob.connects.removeAll()
            ob.dirty.removeAll()
            ob.closes.removeAll()
            return r
        }
        for request in connects {
            loop.records[request.id.rawValue] = ClientLoop.Record(
                request: request, reassembly: Reassembly(limit: loop.maxMessageBytes))
            attempt(request.id.rawValue)
        }
        for id in dirty {
            if let wsi = loop.records[id.rawValue]?.wsi, loop.records[id.rawValue]?.established == true {
                lws_callback_on_writable(wsi)
            }
        }
        for (id, code, reason) in closes {
            guard loop.records[id.rawValue] != nil else { continue }
            loop.records[id.rawValue]!.userClose = (code, reason)
            if let wsi = loop.records[id.rawValue]!.wsi {
                lws_callback_on_writable(wsi)
                Lws.dropAfter(wsi, seconds: 5)
            } else {
                // Waiting for a retry: just forget it.
                finish(id.rawValue)
                emit(.disconnected(id, code: code, reason: reason, willReconnect: false))
            }
        }
    }

    /// Starts one connection attempt.
    private func attempt(_ key: UInt64) {
        guard let ctx = loop.context, var record = loop.records[key] else { return }
        for s in record.strings { free(s) }
        record.strings = []
        let r = record.request
        func keep(_ s: String) -> UnsafePointer<CChar> {
            let p = Lws.cString(s)
            record.strings.append(p)
            return UnsafePointer(p)
        }
        var ci = lws_client_connect_info()
        ci.context = ctx
        ci.address = keep(r.url.host)
        ci.port = Int32(r.url.port)
        ci.path = keep(r.url.path)
        ci.host = keep(r.url.host)
        if let o = r.origin { ci.origin = keep(o) }
        if let p = r.subprotocol { ci.protocol = keep(p) }
        ci.local_protocol_name = UnsafePointer(loop.protocolName)
        ci.ietf_version_or_minus_one = -1
        ci.opaque_user_data = UnsafeMutableRawPointer(bitPattern: UInt(key))
        if r.url.tls {
            ci.ssl_connection = Int32(LCCSCF_USE_SSL.rawValue)
            if r.allowSelfSigned {
                ci.ssl_connection |= Int32(LCCSCF_ALLOW_SELFSIGNED.rawValue)
                ci.ssl_connection |= Int32(LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue)
            }
            ci.alpn = UnsafePointer(loop.alpn)
        }
        record.established = false
        record.retryAt = nil
        record.reassembly = Reassembly(limit: loop.maxMessageBytes)
        loop.records[key] = record
        let wsi = lws_client_connect_via_info(&ci)
        if loop.records[key] != nil && loop.records[key]!.retryAt == nil {
            if let wsi {
                loop.records[key]!.wsi = wsi
            } else if loop.records[key]!.wsi == nil {
                connectionEnded(key, wsi: nil, error: "could not start connecting to \(r.url.host):\(r.url.port)")
            }
        }
    }

    /// A connection failed or closed: report it and schedule a retry if the policy allows.
    private func connectionEnded(_ key: UInt64, wsi: OpaquePointer?, error: String?) {
        guard var record = loop.records[key] else { return }
        if let wsi, let current = record.wsi, current != wsi { return }
        let id = ClientConnectionID(rawValue: key)
        let wasEstablished = record.established
        if wasEstablished { openCount.subtract(1, ordering: .relaxed) }
        record.wsi = nil
        record.established = false
        pending.withLock { _ = $0.writes.removeValue(forKey: id) }
        var willReconnect = false
        if record.userClose == nil && !loop.stopping {
            record.failures += 1
            if let delay = record.request.reconnect.delay(beforeAttempt: record.failures) {
                record.retryAt = .now + delay
                willReconnect = true
            }
        }
        let closeInfo = record.closeInfo ?? record.userClose
        loop.records[key] = record
        if !willReconnect { finish(key) } else { armTimer() }
        if wasEstablished {
            emit(
                .disconnected(
                    id, code: closeInfo?.code, reason: closeInfo?.reason ?? "connection closed",
                    willReconnect: willReconnect))
        } else {
            let text = error ?? "connection closed during the handshake"
            emit(
                .failed(
                    id,
                    .connectFailed(
                        "connecting to \(record.request.url.host):\(record.request.url.port) failed: \(text)"),
                    willReconnect: willReconnect))
        }
    }

    private func finish(_ key: UInt64) {
        if let r = loop.records.removeValue(forKey: key) { loop.freeStrings(r) }
    }

    private func armTimer() {
        guard !loop.timerArmed, let ctx = loop.context, let t = loop.timer else { return }
        loop.timerArmed = true
        lws_sul_schedule(ctx, 0, &t.pointee.sul, corkboardClientTimer, 50_000)
    }

    /// Every 50 ms while retries are pending: start the ones that are due.
    func timerFired() {
        loop.timerArmed = false
        guard !loop.stopping else { return }
        let now = ContinuousClock.now
        var waiting = false
        for (key, record) in loop.records {
            guard let at = record.retryAt else { continue }
            if at <= now { attempt(key) } else { waiting = true }
        }
        if waiting { armTimer() }
    }
}
