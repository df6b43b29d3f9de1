#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything a ``WebSocketServer`` needs to know, with every default spelled out.
public struct ServerConfiguration: Sendable {
    /// The event loop a service thread runs.
    public enum EventLoop: String, Sendable, CaseIterable {
        /// libuv (epoll on Linux), through libwebsockets' event-library plugin: a wake costs the
        /// sockets that are ready, not every socket. Falls back to `poll` (with a warning) when the
        /// plugin (Debian's `libwebsockets-evlib-uv`) cannot be loaded.
        case libuv
        /// libwebsockets' own `poll(2)` loop, which scans every socket at every wake.
        case poll
    }

    /// Most service threads one server runs.
    public static let maxThreads = 64

    /// The address to listen on: an IPv4 or IPv6 address or a host name (`127.0.0.1` and
    /// `localhost` bind loopback only); `0.0.0.0` (or an empty string) binds every IPv4 interface,
    /// `::` every interface.
    public var host: String
    /// The TCP port; 0 asks the kernel for a free port (read it back from ``WebSocketServer/boundPort``).
    public var port: Int
    /// The directory served as static files over HTTP, or `nil` to serve none.
    public var webRoot: String?
    /// Origins allowed to open WebSockets, for example `https://board.example`. Empty means the
    /// server's own origins: `http(s)://127.0.0.1:PORT`, `http(s)://localhost:PORT`, and the
    /// origin named by the request's `Host` header.
    public var allowedOrigins: [String]
    /// Whether an upgrade without an `Origin` header (a non-browser client) is accepted.
    public var allowMissingOrigin: Bool
    /// The largest message accepted, in bytes; a bigger one closes the connection with 1009.
    public var maxMessageBytes: Int
    /// Bytes queued for one connection past which it is closed 1008 "slow consumer".
    public var maxQueuedBytes: Int
    /// Frames queued for one connection past which it is closed 1008 "slow consumer".
    public var maxQueuedFrames: Int
    /// How long a slow consumer gets to take its close frame before its socket is dropped.
    public var slowConsumerKillAfter: Duration
    /// Idle time after which the server pings a connection.
    public var pingInterval: Duration
    /// Idle time (without a pong) after which a connection is dropped; must exceed ``pingInterval``.
    public var hangupAfter: Duration
    /// Time allowed for a new connection to finish its HTTP request or WebSocket handshake.
    public var handshakeTimeout: Duration
    /// Service threads, each with its own libwebsockets context and its share of the connections
    /// (at least 1). One thread accepts and hands new connections to the thread with the fewest.
    public var threads: Int
    /// The event loop each service thread runs.
    public var eventLoop: EventLoop
    /// PEM certificate (chain) for HTTPS/WSS, or `nil` for plain HTTP/WS.
    public var tlsCertificatePath: String?
    /// PEM private key matching ``tlsCertificatePath``.
    public var tlsPrivateKeyPath: String?
    /// Whether WebSocket upgrades are accepted at all; `false` serves HTTP routes and files only
    /// (every upgrade is answered 404), as the metrics listener does.
    public var acceptsWebSockets: Bool
    /// The path on which the application's WebSocket upgrades are accepted.
    public var wsPath: String
    /// A second WebSocket path on which the transport itself echoes every message unchanged, with
    /// no subprotocol needed and the same limits (for conformance suites such as Autobahn's
    /// fuzzingclient); `nil` (the default) serves none. Echo connections are not reported as events.
    public var echoPath: String?
    /// The WebSocket subprotocol clients must offer.
    public var subprotocol: String
    /// Largest single socket write the server assembles from queued frames (also the fragment size
    /// for big messages).
    public var writeBatchBytes: Int
    /// Receive buffer per connection: incoming data is delivered in chunks of at most this size.
    ///
    /// libwebsockets allocates it zeroed for every WebSocket, so all of it is resident memory:
    /// the 4 KiB default holds several ordinary messages (bigger ones arrive in several chunks and
    /// are reassembled); socket writes are sized by ``writeBatchBytes``, not by this.
    public var receiveBufferBytes: Int
    /// Bytes of HTTP request bodies buffered at once across all requests (counted from their
    /// `Content-Length` when they start); a request past it is answered 503 `busy` at once.
    public var maxBufferedRequestBytes: Int
    /// How long an asynchronous route handler may take before its connection is dropped.
    public var httpHandlerTimeout: Duration
    /// Most WebSocket connections in all; an upgrade past it is answered 503 with `Retry-After`
    /// (0: no limit).
    public var maxConnections: Int
    /// Most WebSocket connections from one remote address; an upgrade past it is answered 503 with
    /// `Retry-After` (0: no limit).
    public var maxConnectionsPerAddress: Int
    /// Most sockets from one remote address that are not WebSockets (HTTP requests and handshakes
    /// in progress); a new one past it is closed as soon as it is accepted, so one address cannot
    /// hold the request buffers every client needs (0: no limit).
    public var maxPendingConnectionsPerAddress: Int
    /// Most sockets that are not WebSockets on one service thread, from every address together
    /// (0: no limit). A new socket over it evicts (closes) the oldest of them, so requests from
    /// many addresses, each under ``maxPendingConnectionsPerAddress``, cannot take every one of the
    /// thread's ``headerPoolPerThread`` request-head buffers and make a new request wait for one.
    /// At most ``headerPoolPerThread`` - 24.
    public var maxPendingConnectionsPerThread: Int
    /// Reverse proxies whose `X-Forwarded-For` is believed: for a request from one of them, the
    /// client's address (per-address WebSocket caps, the application's throttles, logs) is the
    /// right-most forwarded hop that is not itself trusted; from anyone else the header is ignored.
    /// Pending sockets are counted at accept, before any header: always against the peer.
    public var trustedProxies: TrustedProxies
    /// The `Retry-After` of an upgrade refused by a connection cap.
    public var refusalRetryAfter: Duration
    /// Largest HTTP request head (request line and headers) accepted; one header longer than
    /// half of it is answered 431 (the URL: 414). Longer heads lose their connection without an
    /// answer (libwebsockets cannot answer those).
    public var maxRequestHeaderBytes: Int
    /// Called on a service thread with how long a WebSocket message's bytes waited in their
    /// socket's receive queue before the thread read them: from the kernel's arrival timestamp to
    /// the read, of the newest bytes of that read. `nil` (the default) times nothing; set, every
    /// socket the server adopts carries `SO_TIMESTAMPNS` and is read with `recvmsg`, and each
    /// timed read that delivered WebSocket message data is reported once, at its first chunk. A
    /// busy service thread shows here first (a message waits for the event loop to come round to
    /// its socket), before any application metric sees the message. While it is set the server
    /// also holds a socket of its own asking for timestamps, and ``WebSocketServer/start()`` waits
    /// (a second at most) until the kernel stamps arrivals: Linux switches stamping on late and off
    /// with the last socket asking for it. Not timed: reads over TLS, and bytes that reached the
    /// socket before the shard adopted it (usually the upgrade request).
    public var readWaitObserver: (@Sendable (Duration) -> Void)? = nil
    /// Whether a server whose frame guard is not in libwebsockets' read path serves anyway (with a
    /// warning in its log), its clients' unmasked and malformed frames reaching libwebsockets
    /// unchecked. `false` (the default): ``WebSocketServer/start()`` checks the guard by a read
    /// through libwebsockets and throws ``TransportError/Kind/unguardedReads`` when it is not in the
    /// path. A server that takes no WebSockets (``acceptsWebSockets`` false) is not checked.
    public var allowUnguardedReads: Bool

    /// Creates a configuration; every parameter has the default documented on its property.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        webRoot: String? = nil,
        allowedOrigins: [String] = [],
        allowMissingOrigin: Bool = true,
        maxMessageBytes: Int = 1 << 20,
        maxQueuedBytes: Int = 16 << 20,
        maxQueuedFrames: Int = 50_000,
        slowConsumerKillAfter: Duration = .seconds(5),
        pingInterval: Duration = .seconds(30),
        hangupAfter: Duration = .seconds(40),
        handshakeTimeout: Duration = .seconds(10),
        threads: Int = 1,
        eventLoop: EventLoop = .libuv,
        tlsCertificatePath: String? = nil,
        tlsPrivateKeyPath: String? = nil,
        wsPath: String = "/ws",
        echoPath: String? = nil,
        subprotocol: String = "corkboard.v1",
        writeBatchBytes: Int = 32 * 1024,
        receiveBufferBytes: Int = 4 * 1024,
        maxBufferedRequestBytes: Int = 64 << 20,
        httpHandlerTimeout: Duration = .seconds(60),
        maxConnections: Int = 0,
        maxConnectionsPerAddress: Int = 0,
        maxPendingConnectionsPerAddress: Int = 0,
        maxPendingConnectionsPerThread: Int = 0,
        trustedProxies: TrustedProxies = TrustedProxies(),
        refusalRetryAfter: Duration = .seconds(10),
        maxRequestHeaderBytes: Int = 16 * 1024,
        acceptsWebSockets: Bool = true,
        allowUnguardedReads: Bool = false
    ) {
        self.host = host
        self.port = port
        self.webRoot = webRoot
        self.allowedOrigins = allowedOrigins
        self.allowMissingOrigin = allowMissingOrigin
        self.maxMessageBytes = maxMessageBytes
        self.maxQueuedBytes = maxQueuedBytes
        self.maxQueuedFrames = maxQueuedFrames
        self.slowConsumerKillAfter = slowConsumerKillAfter
        self.pingInterval = pingInterval
        self.hangupAfter = hangupAfter
        self.handshakeTimeout = handshakeTimeout
        self.threads = threads
        self.eventLoop = eventLoop
        self.tlsCertificatePath = tlsCertificatePath
        self.tlsPrivateKeyPath = tlsPrivateKeyPath
        self.wsPath = wsPath
        self.echoPath = echoPath
        self.subprotocol = subprotocol
        self.writeBatchBytes = writeBatchBytes
        self.receiveBufferBytes = receiveBufferBytes
        self.maxBufferedRequestBytes = maxBufferedRequestBytes
        self.httpHandlerTimeout = httpHandlerTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.maxPendingConnectionsPerAddress = maxPendingConnectionsPerAddress
        self.maxPendingConnectionsPerThread = maxPendingConnectionsPerThread
        self.trustedProxies = trustedProxies
        self.refusalRetryAfter = refusalRetryAfter
        self.maxRequestHeaderBytes = maxRequestHeaderBytes
        self.acceptsWebSockets = acceptsWebSockets
        self.allowUnguardedReads = allowUnguardedReads
    }

    /// Request heads each service thread can read at once (libwebsockets' header pool): a request
    /// that finds every one taken waits for one to free.
    public static let headerPoolPerThread = 1024

    /// The highest ``maxPendingConnectionsPerThread``: below the header pool, with room for the
    /// sockets evicted and not yet closed by the next pass of the event loop.
    public static let maxPendingPerThreadLimit = headerPoolPerThread - 24

    /// Whether TLS is configured (both certificate and key given).
    public var usesTLS: Bool { tlsCertificatePath != nil && tlsPrivateKeyPath != nil }

    /// Checks the values that libwebsockets would otherwise reject obscurely.
    func validate() throws(TransportError) {
        if !(0...65535).contains(port) {
            throw .invalidConfiguration("port \(port) is outside 0...65535; use 0 for any free port")
        }
        if hangupAfter <= pingInterval {
            throw .invalidConfiguration(
                "hangupAfter (\(hangupAfter)) must be longer than pingInterval (\(pingInterval))")
        }
        if (tlsCertificatePath == nil) != (tlsPrivateKeyPath == nil) {
            throw .invalidConfiguration("TLS needs both a certificate and a private key path, or neither")
        }
        for (path, what) in [(tlsCertificatePath, "certificate"), (tlsPrivateKeyPath, "private key")] {
            if let path, access(path, R_OK) != 0 {
                throw .invalidConfiguration(
                    "the TLS \(what) file \(path) cannot be read (\(String(cString: strerror(errno)))); check the path")
            }
        }
        if maxMessageBytes < 1 || maxQueuedFrames < 1 || maxQueuedBytes < 1 {
            throw .invalidConfiguration("maxMessageBytes, maxQueuedFrames and maxQueuedBytes must be positive")
        }
        if writeBatchBytes < 1024 || receiveBufferBytes < 1024 {
            throw .invalidConfiguration("writeBatchBytes and receiveBufferBytes must be at least 1024")
        }
        if maxBufferedRequestBytes < 0 {
            throw .invalidConfiguration("maxBufferedRequestBytes must not be negative")
        }
        if !(1...ServerConfiguration.maxThreads).contains(threads) {
            throw .invalidConfiguration(
                "threads must be between 1 and \(ServerConfiguration.maxThreads), got \(threads)")
        }
        if maxConnections < 0 || maxConnectionsPerAddress < 0 || maxPendingConnectionsPerAddress < 0 {
            throw .invalidConfiguration(
                "maxConnections, maxConnectionsPerAddress and maxPendingConnectionsPerAddress must be 0 (no limit) or more"
            )
        }
        if !(0...Self.maxPendingPerThreadLimit).contains(maxPendingConnectionsPerThread) {
            throw .invalidConfiguration(
                "maxPendingConnectionsPerThread must be 0 (no limit) or at most \(Self.maxPendingPerThreadLimit) "
                    + "(below the \(Self.headerPoolPerThread) request-head buffers of a service thread), "
                    + "got \(maxPendingConnectionsPerThread)")
        }
        if !(1024...65535).contains(maxRequestHeaderBytes) {
            throw .invalidConfiguration(
                "maxRequestHeaderBytes must be between 1024 and 65535, got \(maxRequestHeaderBytes)")
        }
        if let echoPath, !echoPath.hasPrefix("/") || echoPath == wsPath {
            throw .invalidConfiguration("echoPath \"\(echoPath)\" must start with / and differ from wsPath")
        }
        if !wsPath.hasPrefix("/") {
            throw .invalidConfiguration("wsPath \"\(wsPath)\" must start with /")
        }
    }
}

extension Duration {
    /// Whole seconds, rounded up, at least 1 (libwebsockets timers take seconds).
    var wholeSecondsRoundedUp: Int {
        let (s, atto) = components
        return max(1, Int(s) + (atto > 0 ? 1 : 0))
    }

    /// The duration in seconds as a Double.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
