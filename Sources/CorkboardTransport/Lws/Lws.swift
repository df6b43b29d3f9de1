import CLibWebSockets
import CLinuxShim

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A libwebsockets context pointer that may be stored behind a lock and used from other threads.
///
/// Audit: the only operation performed on it off the service thread is `lws_cancel_service`,
/// which libwebsockets documents as the one thread-safe call, and only while holding the lock that
/// guards the field, which the service thread clears (under the same lock) before
/// `lws_context_destroy`. This is the transport's only `@unchecked Sendable` type.
struct LwsContextHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// What an lws context's user pointer points at: a server shard or a client, which its protocols'
/// C callbacks hand every event to (``Lws/dispatch(to:_:_:_:_:_:)``).
protocol LwsContextOwner: AnyObject {
    /// Handles one libwebsockets callback on the service thread.
    func serviceCallback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ inp: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32
}

/// The one place that makes libwebsockets calls needing conversions, and turns their return codes
/// into Swift values or thrown errors.
enum Lws {
    /// The headroom lws needs before every buffer passed to `lws_write`.
    static let pre = Int(CLWS_PRE)

    /// Sends `lws_cancel_service` to wake the service thread (thread-safe).
    static func wake(_ context: LwsContextHandle) {
        lws_cancel_service(context.raw)
    }

    /// A protocol's C callback.
    typealias Callback =
        @convention(c) (
            OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int
        ) -> Int32

    /// The body of a protocol's C callback: finds the `Owner` from the context's user pointer and
    /// hands it the event; lws's dummy HTTP callback answers when there is no connection or owner.
    static func dispatch<Owner: LwsContextOwner>(
        to _: Owner.Type, _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ inp: UnsafeMutableRawPointer?, _ len: Int
    ) -> Int32 {
        guard let wsi, let owner = lws_context_user(lws_get_context(wsi)) else {
            return lws_callback_http_dummy(wsi, reason, user, inp, len)
        }
        return Unmanaged<Owner>.fromOpaque(owner).takeUnretainedValue().serviceCallback(wsi, reason, user, inp, len)
    }

    /// Context creation info with what every context of the transport shares: `protocols`, no
    /// change of user or group, `options`, and `owner` as the context's user pointer.
    static func contextInfo(
        port: Int32, protocols: UnsafeMutablePointer<lws_protocols>, options: UInt64, owner: some LwsContextOwner
    ) -> lws_context_creation_info {
        var info = lws_context_creation_info()
        info.port = port
        info.protocols = UnsafePointer(protocols)
        info.gid = -1
        info.uid = -1
        info.options = options
        info.user = Unmanaged.passUnretained(owner).toOpaque()
        return info
    }

    /// Routes lws's own logging: errors only, to stderr (lws logging is process-global).
    static func quietLogging() {
        // CORKBOARD_LWS_LOG=<bitmask> (lws LLL_* bits) turns on more lws logging for debugging.
        let level = getenv("CORKBOARD_LWS_LOG").flatMap { Int32(String(cString: $0)) } ?? Int32(LLL_ERR)
        lws_set_log_level(level, nil)
    }

    /// A header of the current request, or `nil` if absent (valid until ESTABLISHED returns).
    static func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let n = Int(lws_hdr_total_length(wsi, token))
        guard n > 0 else { return nil }
        var buf = [CChar](repeating: 0, count: n + 1)
        guard lws_hdr_copy(wsi, &buf, Int32(n + 1), token) >= 0 else { return nil }
        return String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The query items of the current request, from `WSI_TOKEN_HTTP_URI_ARGS` fragments (lws has
    /// already percent-decoded them).
    static func queryItems(_ wsi: OpaquePointer) -> [QueryItem] {
        var items: [QueryItem] = []
        var index: Int32 = 0
        while index < 64 {
            let n = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index))
            if n <= 0 { break }
            var buf = [CChar](repeating: 0, count: n + 1)
            if lws_hdr_copy_fragment(wsi, &buf, Int32(n + 1), WSI_TOKEN_HTTP_URI_ARGS, index) < 0 { break }
            let s = String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let eq = s.firstIndex(of: "=") {
                items.append(QueryItem(name: String(s[..<eq]), value: String(s[s.index(after: eq)...])))
            } else {
                items.append(QueryItem(name: s, value: ""))
            }
            index += 1
        }
        return items
    }

    /// The peer's address as text.
    static func peerAddress(_ wsi: OpaquePointer) -> String {
        var buf = [CChar](repeating: 0, count: 128)
        guard lws_get_peer_simple(wsi, &buf, buf.count) != nil else { return "unknown" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Sets the close code and reason lws sends when the callback then returns -1.
    static func setCloseReason(_ wsi: OpaquePointer, code: Int, reason: String) {
        var r = Array(reason.utf8.prefix(120))
        lws_close_reason(wsi, lws_close_status(UInt32(code)), &r, r.count)
    }

    /// Starts the closing handshake of a WebSocket from its writeable callback: writes the close
    /// frame (`code`, `reason`) itself, ends the sending direction (FIN after the frame), and gives
    /// the peer `seconds` to answer with its own close before the connection is dropped.
    ///
    /// Why not `lws_close_reason` and returning -1: on the libuv loop Debian's debug build of
    /// lws 4.1.6 then closes the socket a second time at once (its "uv repeat test"), cutting the
    /// closing handshake short, and the peer gets a reset instead of the close frame. Here the
    /// peer's close is read as usual (lws then closes quietly), so the socket is never closed with
    /// unread input, on either loop.
    ///
    /// - Parameter buffer: scratch space with `pre` bytes of headroom and room for the frame.
    /// - Returns: `false` if the write failed (the caller returns -1 to drop the connection).
    static func startClosingHandshake(
        _ wsi: OpaquePointer, code: Int, reason: String, buffer: UnsafeMutablePointer<UInt8>, seconds: Int
    ) -> Bool {
        let text = Array(reason.utf8.prefix(123))
        var length = FrameHeader.write(opcode: 0x8, fin: true, length: 2 + text.count, to: buffer)
        buffer[length] = UInt8((code >> 8) & 0xFF)
        buffer[length + 1] = UInt8(code & 0xFF)
        length += 2
        for byte in text {
            buffer[length] = byte
            length += 1
        }
        guard write(wsi, buffer, length, LWS_WRITE_HTTP) else { return false }
        if lws_partial_buffered(wsi) == 0 { _ = shutdown(lws_get_socket_fd(wsi), Int32(SHUT_WR)) }
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, Int32(seconds))
        return true
    }

    /// Writes a PING frame (framed here, like every server write; between two of our writes, which
    /// hold only whole frames). The peer's PONG arrives as `LWS_CALLBACK_RECEIVE_PONG`, which
    /// lws 4.1.6 calls only for a pong with a payload: the ping carries one byte for it to echo.
    ///
    /// - Parameter buffer: scratch space with `pre` bytes of headroom.
    /// - Returns: `false` if the write failed (the caller drops the connection).
    static func ping(_ wsi: OpaquePointer, buffer: UnsafeMutablePointer<UInt8>) -> Bool {
        let length = FrameHeader.write(opcode: 0x9, fin: true, length: 1, to: buffer)
        buffer[length] = UInt8(ascii: "k")
        return write(wsi, buffer, length + 1, LWS_WRITE_HTTP)
    }

    /// The owner of a `clws_timer_t` whose sul fired (shim.h: the sul comes first, the owner
    /// follows), as lws hands timer callbacks only the sul.
    static func timerOwner(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) -> UnsafeMutableRawPointer? {
        guard let sul else { return nil }
        return UnsafeMutableRawPointer(sul).assumingMemoryBound(to: clws_timer_t.self).pointee.owner
    }

    /// Arms lws's per-connection timer: the connection is dropped after `seconds` unless it
    /// closes first.
    static func dropAfter(_ wsi: OpaquePointer, seconds: Int) {
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, Int32(seconds))
    }

    /// Has lws close the connection at its next service: for a socket that failed outside a
    /// callback, where returning -1 is not possible.
    static func dropSoon(_ wsi: OpaquePointer) {
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
    }

    /// `lws_write`: returns `false` if lws reports the connection failed.
    static func write(_ wsi: OpaquePointer, _ p: UnsafeMutablePointer<UInt8>, _ n: Int, _ kind: lws_write_protocol)
        -> Bool
    {
        lws_write(wsi, p, n, kind) >= 0
    }

    /// A C string that lives until ``free(_:)``; lws keeps pointers into its configuration.
    static func cString(_ s: String) -> UnsafeMutablePointer<CChar> {
        strdup(s)!
    }

    /// Writes HTTP response headers for a body of `length` bytes, plus `extra` headers and, with
    /// `close`, `connection: close`; `false` if lws refused them.
    static func writeHTTPHeaders(
        _ wsi: OpaquePointer, status: Int, contentType: String, length: Int, extra: [HTTPHeader] = [],
        close: Bool = false
    ) -> Bool {
        let extraBytes = extra.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        var buf = [UInt8](repeating: 0, count: pre + 2048 + extraBytes)
        return buf.withUnsafeMutableBufferPointer { b -> Bool in
            let start = b.baseAddress! + pre
            var p: UnsafeMutablePointer<UInt8>? = start
            let end = b.baseAddress! + b.count - 1
            if lws_add_http_common_headers(wsi, UInt32(status), contentType, lws_filepos_t(length), &p, end) != 0 {
                return false
            }
            for header in extra where header.isWellFormed {
                var value = Array(header.value.utf8)
                if lws_add_http_header_by_name(wsi, header.name.lowercased() + ":", &value, Int32(value.count), &p, end)
                    != 0
                {
                    return false
                }
            }
            if close {
                var value = Array("close".utf8)
                if lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, &value, Int32(value.count), &p, end) != 0 {
                    return false
                }
            }
            return lws_finalize_write_http_header(wsi, start, &p, end) == 0
        }
    }

    /// Headers as the `other_headers` block of `lws_serve_http_file`: `name: value\r\n` lines.
    static func headerBlock(_ headers: [HTTPHeader]) -> String {
        headers.filter(\.isWellFormed).map { "\($0.name.lowercased()): \($0.value)\r\n" }.joined()
    }

    /// Streams a file as the response (status 200, `contentType`, `extra` headers); returns what
    /// `lws_serve_http_file` returns: < 0 failed (a missing file was answered 404 and the
    /// connection must close), 0 started, > 0 finished (a `HEAD`).
    static func serveFile(_ wsi: OpaquePointer, path: String, contentType: String, extra: [HTTPHeader]) -> Int32 {
        let block = headerBlock(extra)
        return lws_serve_http_file(wsi, path, contentType, block.isEmpty ? nil : block, Int32(block.utf8.count))
    }

    /// Writes a complete small HTTP/1.1 response (status line, headers, plain-text body) in one write.
    static func writeRawResponse(_ wsi: OpaquePointer, status: Int, body: String, headers: [HTTPHeader] = []) -> Bool {
        let reasons = [
            400: "Bad Request", 403: "Forbidden", 404: "Not Found", 414: "URI Too Long",
            429: "Too Many Requests", 431: "Request Header Fields Too Large", 503: "Service Unavailable",
        ]
        let text =
            "HTTP/1.1 \(status) \(reasons[status] ?? "Error")\r\ncontent-type: text/plain; charset=utf-8\r\n"
            + headerBlock(headers) + "content-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n\(body)"
        var buf = [UInt8](repeating: 0, count: pre) + Array(text.utf8)
        let n = buf.count - pre
        return buf.withUnsafeMutableBufferPointer { write(wsi, $0.baseAddress! + pre, n, LWS_WRITE_HTTP_HEADERS) }
    }

    /// Raises this process's open-file limit to its hard maximum so thousands of sockets fit.
    ///
    /// libwebsockets sizes its descriptor table from `RLIMIT_NOFILE` when a context is created,
    /// so call this first. Returns the new soft limit.
    @discardableResult
    static func raiseFileDescriptorLimit() -> Int {
        var rl = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl) == 0 else { return -1 }
        if rl.rlim_cur < rl.rlim_max {
            // A huge table costs lws memory per possible fd; cap at one million.
            rl.rlim_cur = min(rl.rlim_max, 1 << 20)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl)
        }
        return Int(rl.rlim_cur)
    }
}

/// Raises the process's open-file limit (`RLIMIT_NOFILE`) to its hard maximum, capped at 2^20.
///
/// Servers and clients call this before creating their contexts; call it yourself before
/// opening many sockets by other means.
///
/// - Returns: the resulting soft limit, or -1 if it could not be read.
@discardableResult
public func raiseFileDescriptorLimit() -> Int {
    Lws.raiseFileDescriptorLimit()
}

/// Runs a closure on a new detached POSIX thread (the lws service threads).
enum ServiceThread {
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on its own thread, named `name` (at most 15 bytes are kept) so `top -H`, `ps -L`
    /// and profiles tell it from the Swift runtime's pool threads.
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(TransportError) {
        let box = Unmanaged.passRetained(
            Body {
                clinux_set_thread_name(String(decoding: name.utf8.prefix(15), as: UTF8.self))
                body()
            }
        ).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(
            &tid, nil,
            { arg in
                Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue().run()
                return nil
            }, box)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            throw .invalidState("could not start the service thread (pthread_create error \(rc)); check process limits")
        }
        pthread_detach(tid)
    }
}
