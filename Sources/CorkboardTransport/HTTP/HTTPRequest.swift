/// A plain HTTP request routed to an application handler (see ``WebSocketServer/addRoute(_:handler:)``
/// and ``WebSocketServer/addRoute(_:_:maxBodyBytes:handler:)``).
public struct HTTPRequest: Sendable {
    /// The path, without the query (libwebsockets has already percent-decoded it and removed `..`
    /// segments).
    public var path: String
    /// The decoded query items.
    public var queryItems: [QueryItem]
    /// The request method (`GET`, `POST`, `HEAD`, or `OTHER` for methods the server does not parse).
    public var method: String
    /// Request headers the transport reads, by lower-cased name: `host`, `origin`, `content-type`,
    /// `content-length`, `user-agent`, `referer`, `accept`, `x-forwarded-for`.
    public var headers: [String: String]
    /// The request body (empty for methods without one).
    public var body: [UInt8]
    /// The client's address as text: the peer's, or behind a trusted proxy
    /// (``ServerConfiguration/trustedProxies``) the one it forwarded in `X-Forwarded-For`.
    public var remoteAddress: String
    /// `https` when the server speaks TLS, else `http`.
    public var scheme: String
    /// Whether the `Origin` header passes the server's origin policy, the one WebSocket upgrades
    /// are held to: the server's own origins or ``ServerConfiguration/allowedOrigins``; a request
    /// without `Origin` (not from a browser) passes when ``ServerConfiguration/allowMissingOrigin``.
    public var isOriginAllowed: Bool

    /// Creates a request description.
    public init(
        path: String, queryItems: [QueryItem], method: String, headers: [String: String] = [:], body: [UInt8] = [],
        remoteAddress: String = "unknown", scheme: String = "http", isOriginAllowed: Bool = true
    ) {
        self.path = path
        self.queryItems = queryItems
        self.method = method
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.scheme = scheme
        self.isOriginAllowed = isOriginAllowed
    }

    /// A request header by name (any case), or `nil`.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The first query item called `name`, or `nil`.
    public func query(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }
}
