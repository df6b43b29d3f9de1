/// Identifies one WebSocket connection accepted by a ``WebSocketServer``.
///
/// Identifiers are never reused within one server's lifetime.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The raw number, unique within one server.
    public let rawValue: UInt64

    /// Wraps a raw number.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// `ws-<number>`, for logs.
    public var description: String { "ws-\(rawValue)" }
}

/// What the server learnt about a connection during its HTTP upgrade.
///
/// Headers are freed by libwebsockets once the connection is established, so everything the
/// application may need later is copied here.
public struct ConnectionInfo: Sendable {
    /// The request path, without the query (for example `/ws`).
    public var path: String
    /// The decoded query items in order (`?room=7&token=abc` gives `[("room","7"), ("token","abc")]`).
    public var queryItems: [QueryItem]
    /// The `Origin` header, if the client sent one.
    public var origin: String?
    /// The client's address as text (for example `127.0.0.1`): the peer's, or behind a trusted proxy
    /// (``ServerConfiguration/trustedProxies``) the one it forwarded in `X-Forwarded-For`.
    public var remoteAddress: String
    /// The `User-Agent` header, if any.
    public var userAgent: String?
    /// The `Host` header, if any.
    public var host: String?

    /// Creates a connection description.
    public init(
        path: String, queryItems: [QueryItem], origin: String?, remoteAddress: String, userAgent: String?,
        host: String?
    ) {
        self.path = path
        self.queryItems = queryItems
        self.origin = origin
        self.remoteAddress = remoteAddress
        self.userAgent = userAgent
        self.host = host
    }

    /// The value of the first query item called `name`, if any.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}

/// One `name=value` pair of a URL query.
public struct QueryItem: Sendable, Hashable {
    /// The decoded name.
    public var name: String
    /// The decoded value (empty when the item had no `=`).
    public var value: String

    /// Creates a query item.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
