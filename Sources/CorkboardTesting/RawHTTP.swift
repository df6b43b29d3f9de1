import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking socket code on its own thread, so a test waiting for a response never holds one
/// of the few cooperative threads that the server's asynchronous route handlers need.
public func io<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.start()
    }
}

/// ``io(_:)`` for blocking work that throws: the error is thrown to the caller.
public func io<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await io { Result { try body() } }.get()
}

/// A minimal blocking HTTP/1.1 client over a POSIX socket, bounded by a receive timeout.
public enum RawHTTP {
    /// A parsed response.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The status line and header fields, as received.
        public var headers: String
        /// The body (up to `Content-Length` when there is one).
        public var body: [UInt8]
        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON object (empty when it is not one).
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
        /// A header field's value (case-insensitive name).
        public func header(_ name: String) -> String? { RawHTTP.header(name.lowercased(), in: headers) }
        /// Every header field by lowercased name.
        public var fields: [String: String] {
            var fields: [String: String] = [:]
            for line in headers.split(separator: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: " ")
            }
            return fields
        }
    }

    /// Connects to 127.0.0.1:`port` with send and receive timeouts (and, when given, a receive
    /// buffer of `receiveBufferBytes`, set before connecting); returns the socket or -1.
    ///
    /// The default timeout is long (60 s): only a test that fails waits for it, and an answer that
    /// comes from an asynchronous route handler waits for the cooperative pool, which the parallel
    /// suites can starve for tens of seconds on two cores.
    public static func connect(port: Int, timeoutSeconds: Int = 60, receiveBufferBytes: Int32? = nil) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        if var size = receiveBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 {
            close(fd)
            return -1
        }
        return fd
    }

    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// Reads until the peer closes, the timeout hits, or (with `stopWhenComplete`) a whole
    /// response with a Content-Length has arrived.
    public static func readAll(_ fd: Int32, limit: Int = 1 << 22, stopWhenComplete: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while out.count < limit {
            if stopWhenComplete, let r = parse(out), let cl = header("content-length", in: r.headers), let n = Int(cl),
                r.body.count >= n
            {
                break
            }
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return out
    }

    /// Sends `request` (a full HTTP request text) and parses the response; the connection is
    /// asked to close so the body ends at EOF.
    public static func exchange(port: Int, _ request: String) -> Response? {
        let fd = connect(port: port)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        sendAll(fd, Array(request.utf8))
        return parse(readAll(fd, stopWhenComplete: true))
    }

    public static func get(port: Int, _ path: String) -> Response? {
        exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
    }

    /// The bytes of a request with `body`; `contentLength` overrides (or, with `nil` and
    /// `sendsLength: false`, omits) the `Content-Length` header.
    public static func requestBytes(
        _ method: String, _ path: String, port: Int, headers: [String] = [], body: [UInt8] = [],
        contentLength: Int? = nil, sendsLength: Bool = true, close: Bool = true
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if close { head += "Connection: close\r\n" }
        if sendsLength { head += "Content-Length: \(contentLength ?? body.count)\r\n" }
        for h in headers { head += h + "\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    /// Sends a POST with `body` and parses the response.
    public static func post(
        port: Int, _ path: String, body: [UInt8], headers: [String] = ["Content-Type: application/octet-stream"]
    ) -> Response? {
        let fd = connect(port: port)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        sendAll(fd, requestBytes("POST", path, port: port, headers: headers, body: body))
        return parse(readAll(fd, stopWhenComplete: true))
    }

    public static func parse(_ raw: [UInt8]) -> Response? {
        guard
            let split = raw.indices.first(where: { i in
                i + 3 < raw.count && raw[i] == 13 && raw[i + 1] == 10 && raw[i + 2] == 13 && raw[i + 3] == 10
            })
        else { return nil }
        let head = String(decoding: raw[..<split], as: UTF8.self)
        let parts = head.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var body = Array(raw[(split + 4)...])
        if let cl = header("content-length", in: head), let n = Int(cl), n < body.count { body = Array(body[..<n]) }
        return Response(status: status, headers: head, body: body)
    }

    public static func header(_ name: String, in head: String) -> String? {
        for line in head.split(separator: "\r\n") {
            if let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name {
                return line[line.index(after: colon)...].trimmingCharacters(in: " ")
            }
        }
        return nil
    }

    /// A WebSocket upgrade request.
    public static func upgrade(
        port: Int, path: String = "/ws", origin: String? = nil, subprotocol: String? = "corkboard.v1"
    )
        -> String
    {
        var r = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        r += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { r += "Origin: \(origin)\r\n" }
        if let subprotocol { r += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        return r + "\r\n"
    }
}

extension RawHTTP {
    /// Sends a request with `headers` (`Content-Length` for a `POST`) on its own thread and reads the
    /// response until the server closes (at most 10 s).
    public static func request(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) async -> Response? {
        let bytes = requestBytes(
            method, path, port: port, headers: headers.map { "\($0): \($1)" }, body: body, sendsLength: method == "POST"
        )
        return await io {
            let fd = connect(port: port, timeoutSeconds: 10)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            sendAll(fd, bytes)
            return parse(readAll(fd, stopWhenComplete: true))
        }
    }

    /// ``get(port:_:)`` on its own thread.
    public static func getAsync(port: Int, _ path: String) async -> Response? { await io { get(port: port, path) } }

    /// ``post(port:_:body:headers:)`` on its own thread.
    public static func postAsync(
        port: Int, _ path: String, body: [UInt8], headers: [String] = ["Content-Type: application/octet-stream"]
    ) async -> Response? {
        await io { post(port: port, path, body: body, headers: headers) }
    }

    /// ``exchange(port:_:)`` on its own thread.
    public static func exchangeAsync(port: Int, _ request: String) async -> Response? {
        await io { exchange(port: port, request) }
    }

    /// Reads and parses one response from `fd` on its own thread.
    public static func response(_ fd: Int32) async -> Response? {
        await io { parse(readAll(fd, stopWhenComplete: true)) }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
