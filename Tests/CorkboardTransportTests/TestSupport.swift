import CorkboardTransport
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A logger that drops everything below warning (tests never build their own handlers).
func testLogger(_ label: String = "test") -> Logger {
    var l = Logger(label: label)
    l.logLevel = .warning
    return l
}

/// Collects events from a stream so tests can poll with deadlines.
final class Recorder<Event: Sendable>: Sendable {
    private let items = Mutex<[Event]>([])
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ stream: AsyncStream<Event>) {
        let t = Task { [weak self] in
            for await e in stream { self?.append(e) }
        }
        task.withLock { $0 = t }
    }

    init() {}

    func append(_ e: Event) { items.withLock { $0.append(e) } }

    var all: [Event] { items.withLock { $0 } }

    deinit { task.withLock { $0?.cancel() } }
}

/// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
@discardableResult
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// A started server on 127.0.0.1 and an ephemeral port, plus a recorder of its events.
struct ServerHarness {
    let server: WebSocketServer
    let events: Recorder<ServerEvent>

    /// Starts a server; with `echo`, every message is sent straight back (from the service thread).
    init(echo: Bool = false, _ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var c = ServerConfiguration(host: "127.0.0.1", port: 0)
        configure(&c)
        let recorder = Recorder<ServerEvent>()
        let box = Mutex<WebSocketServer?>(nil)
        let server = WebSocketServer(configuration: c, logger: testLogger("server")) { event in
            recorder.append(event)
            if echo, case .message(let id, let m) = event, let s = box.withLock({ $0 }) {
                s.send(m.isText ? OutboundFrame(utf8: m.bytes) : OutboundFrame(binary: m.bytes), to: id)
            }
        }
        box.withLock { $0 = server }
        // A cheap synchronous route, answered on the service thread.
        server.addRoute("/ping") { _ in .text("pong") }
        self.server = server
        events = recorder
        try server.start()
    }

    var url: String { "ws://127.0.0.1:\(server.boundPort)/ws" }

    var connectedIDs: [ConnectionID] {
        events.all.compactMap { if case .connected(let id, _) = $0 { id } else { nil } }
    }

    var messages: [(ConnectionID, InboundMessage)] {
        events.all.compactMap { if case .message(let id, let m) = $0 { (id, m) } else { nil } }
    }
}

/// A started client plus a recorder of its events.
struct ClientHarness {
    let client: WebSocketClient
    let events: Recorder<ClientEvent>

    init(configuration: ClientConfiguration = ClientConfiguration()) throws {
        let recorder = Recorder<ClientEvent>()
        client = WebSocketClient(configuration: configuration, logger: testLogger("client")) { recorder.append($0) }
        events = recorder
        try client.start()
    }

    func connected(_ id: ClientConnectionID) -> Bool {
        events.all.contains { if case .connected(id) = $0 { true } else { false } }
    }

    func messages(_ id: ClientConnectionID) -> [InboundMessage] {
        events.all.compactMap { if case .message(id, let m) = $0 { m } else { nil } }
    }

    /// The close code of the first disconnection of `id`, if any yet.
    func closeCode(_ id: ClientConnectionID) -> Int?? {
        for e in events.all {
            if case .disconnected(id, let code, _, _) = e { return .some(code) }
        }
        return nil
    }

    func failure(_ id: ClientConnectionID) -> TransportError? {
        for e in events.all {
            if case .failed(id, let error, _) = e { return error }
        }
        return nil
    }
}

/// Runs blocking socket code on its own thread, so a test waiting for a response never holds one
/// of the few cooperative threads that the server's asynchronous route handlers need.
func io<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.start()
    }
}

/// A minimal blocking HTTP/1.1 client over a POSIX socket, bounded by a receive timeout.
enum RawHTTP {
    struct Response {
        var status: Int
        var headers: String
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Connects to 127.0.0.1:`port`; returns the socket or -1.
    static func connect(port: Int, timeoutSeconds: Int = 5) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
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

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// Reads until the peer closes, the timeout hits, or (with `stopWhenComplete`) a whole
    /// response with a Content-Length has arrived.
    static func readAll(_ fd: Int32, limit: Int = 1 << 22, stopWhenComplete: Bool = false) -> [UInt8] {
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
    static func exchange(port: Int, _ request: String) -> Response? {
        let fd = connect(port: port)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        sendAll(fd, Array(request.utf8))
        return parse(readAll(fd, stopWhenComplete: true))
    }

    static func get(port: Int, _ path: String) -> Response? {
        exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
    }

    /// The bytes of a request with `body`; `contentLength` overrides (or, with `nil` and
    /// `sendsLength: false`, omits) the `Content-Length` header.
    static func requestBytes(
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
    static func post(
        port: Int, _ path: String, body: [UInt8], headers: [String] = ["Content-Type: application/octet-stream"]
    ) -> Response? {
        let fd = connect(port: port)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        sendAll(fd, requestBytes("POST", path, port: port, headers: headers, body: body))
        return parse(readAll(fd, stopWhenComplete: true))
    }

    static func parse(_ raw: [UInt8]) -> Response? {
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

    static func header(_ name: String, in head: String) -> String? {
        for line in head.split(separator: "\r\n") {
            if let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name {
                return line[line.index(after: colon)...].trimmingCharacters(in: " ")
            }
        }
        return nil
    }

    /// A WebSocket upgrade request.
    static func upgrade(port: Int, path: String = "/ws", origin: String? = nil, subprotocol: String? = "corkboard.v1")
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
    /// ``get(port:_:)`` on its own thread.
    static func getAsync(port: Int, _ path: String) async -> Response? { await io { get(port: port, path) } }

    /// ``post(port:_:body:headers:)`` on its own thread.
    static func postAsync(
        port: Int, _ path: String, body: [UInt8], headers: [String] = ["Content-Type: application/octet-stream"]
    ) async -> Response? {
        await io { post(port: port, path, body: body, headers: headers) }
    }

    /// ``exchange(port:_:)`` on its own thread.
    static func exchangeAsync(port: Int, _ request: String) async -> Response? {
        await io { exchange(port: port, request) }
    }

    /// Reads and parses one response from `fd` on its own thread.
    static func response(_ fd: Int32) async -> Response? {
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
