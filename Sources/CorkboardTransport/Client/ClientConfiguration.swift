/// Identifies one connection opened by a ``WebSocketClient``; it survives reconnects.
public struct ClientConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The raw number, unique within one client.
    public let rawValue: UInt64

    /// Wraps a raw number.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// `client-<number>`, for logs.
    public var description: String { "client-\(rawValue)" }
}

/// Whether and how a client connection is re-established after it fails or closes.
public enum ReconnectPolicy: Sendable, Equatable {
    /// Never reconnect.
    case none
    /// Retry with exponential backoff: `initialDelay` doubling up to `maxDelay`, each delay
    /// randomised by ±`jitter` (a fraction), giving up after `maxAttempts` consecutive failures.
    case exponentialBackoff(initialDelay: Duration, maxDelay: Duration, maxAttempts: Int, jitter: Double)

    /// A sensible default: 250 ms doubling to 10 s, 20% jitter, 10 attempts.
    public static let standard = ReconnectPolicy.exponentialBackoff(
        initialDelay: .milliseconds(250), maxDelay: .seconds(10), maxAttempts: 10, jitter: 0.2)

    /// The delay before retry number `attempt` (1-based), or `nil` to give up.
    public func delay(beforeAttempt attempt: Int, random: Double = Double.random(in: -1...1)) -> Duration? {
        guard case .exponentialBackoff(let initial, let maxDelay, let maxAttempts, let jitter) = self,
            attempt <= maxAttempts
        else { return nil }
        let base = min(initial.seconds * Double(1 << min(attempt - 1, 30)), maxDelay.seconds)
        let jittered = max(0, base * (1 + jitter * random))
        return .nanoseconds(Int64(jittered * 1e9))
    }
}

/// Settings shared by every connection of a ``WebSocketClient``.
public struct ClientConfiguration: Sendable {
    /// The largest message accepted from a server; a bigger one closes the connection with 1009.
    public var maxMessageBytes: Int
    /// Receive buffer per connection (incoming data arrives in chunks of at most this size).
    public var receiveBufferBytes: Int
    /// Time allowed for TCP connect plus TLS and WebSocket handshakes.
    public var connectTimeout: Duration
    /// Whether this client may open `wss://` connections.
    ///
    /// Off by default because libwebsockets 4.1.6 takes fresh process-wide OpenSSL ex-data indexes
    /// each time a TLS-enabled context is created, which can stall a TLS handshake already in
    /// flight in another context of the same process. Enable it only on clients that need TLS.
    public var tls: Bool

    /// Creates a configuration; every parameter has the default documented on its property.
    public init(
        maxMessageBytes: Int = 16 << 20,
        receiveBufferBytes: Int = 16 * 1024,
        connectTimeout: Duration = .seconds(10),
        tls: Bool = false
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.receiveBufferBytes = receiveBufferBytes
        self.connectTimeout = connectTimeout
        self.tls = tls
    }
}

/// Something that happened on a ``WebSocketClient`` connection.
public enum ClientEvent: Sendable {
    /// The WebSocket handshake completed (also after each reconnect).
    case connected(ClientConnectionID)
    /// A complete message arrived.
    case message(ClientConnectionID, InboundMessage)
    /// An established connection closed; `code` is the close code received or sent, if any.
    case disconnected(ClientConnectionID, code: Int?, reason: String, willReconnect: Bool)
    /// A connection attempt failed before the handshake completed (refused, HTTP error, TLS error…).
    case failed(ClientConnectionID, TransportError, willReconnect: Bool)
}

/// A parsed `ws://` or `wss://` URL.
struct WebSocketURL: Equatable {
    var tls: Bool
    var host: String
    var port: Int
    /// Path and query, starting with `/`.
    var path: String

    init(tls: Bool, host: String, port: Int, path: String) {
        self.tls = tls
        self.host = host
        self.port = port
        self.path = path
    }

    /// Parses `ws[s]://host[:port][/path][?query]`.
    init(parsing url: String) throws(TransportError) {
        let rest: Substring
        if url.hasPrefix("ws://") {
            tls = false
            rest = url.dropFirst(5)
        } else if url.hasPrefix("wss://") {
            tls = true
            rest = url.dropFirst(6)
        } else {
            throw .invalidURL("\"\(url)\" is not a WebSocket URL; use ws://host:port/path or wss://…")
        }
        let slash = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<slash]
        var p = String(rest[slash...])
        if p.isEmpty || p.hasPrefix("?") { p = "/" + p }
        path = p
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            port = after.hasPrefix(":") ? Int(after.dropFirst()) ?? -1 : (tls ? 443 : 80)
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = Int(authority[authority.index(after: colon)...]) ?? -1
        } else {
            host = String(authority)
            port = tls ? 443 : 80
        }
        if host.isEmpty || !(1...65535).contains(port) {
            throw .invalidURL("\"\(url)\" has no valid host or port")
        }
    }
}
