/// A `ws://host[:port][/path][?query]` URL, the only kind the lean client opens.
public struct LeanURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// Path and query, starting with `/`.
    public var path: String

    public init(host: String, port: Int, path: String) {
        self.host = host
        self.port = port
        self.path = path
    }

    /// Parses a `ws://` URL; `wss://` and anything else are refused.
    public init(parsing url: String) throws(LeanClientError) {
        guard url.hasPrefix("ws://") else {
            throw LeanClientError(
                url.hasPrefix("wss://")
                    ? "the lean client speaks plain ws:// only; \(url) needs TLS (use the libwebsockets client)"
                    : "\"\(url)\" is not a ws:// URL")
        }
        let rest = url.dropFirst(5)
        let slash = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<slash]
        var path = String(rest[slash...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        self.path = path
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            port = after.isEmpty ? 80 : after.hasPrefix(":") ? Int(after.dropFirst()) ?? -1 : -1
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = Int(authority[authority.index(after: colon)...]) ?? -1
        } else {
            host = String(authority)
            port = 80
        }
        guard !host.isEmpty, (1...65535).contains(port) else {
            throw LeanClientError("\"\(url)\" has no valid host or port")
        }
    }

    /// The `Host` header's value: `host:port`, an IPv6 address in brackets.
    public var hostHeader: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    public var description: String { "ws://\(hostHeader)\(path)" }
}

/// Why the lean client could not do what it was asked.
public struct LeanClientError: Error, Equatable, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
