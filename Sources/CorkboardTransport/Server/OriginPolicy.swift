/// Decides whether a WebSocket upgrade's `Origin` header is acceptable.
struct OriginPolicy: Sendable {
    /// Explicitly allowed origins (lower-cased, no trailing slash); empty means "the server's own".
    let allowed: Set<String>
    /// Whether an upgrade without `Origin` is accepted.
    let allowMissing: Bool
    /// `https` with TLS, else `http`.
    let scheme: String

    init(allowedOrigins: [String], allowMissing: Bool, usesTLS: Bool) {
        allowed = Set(allowedOrigins.map(Self.normalize))
        self.allowMissing = allowMissing
        scheme = usesTLS ? "https" : "http"
    }

    /// Lower-cases and strips a trailing slash.
    static func normalize(_ origin: String) -> String {
        var o = origin.lowercased()
        while o.hasSuffix("/") { o.removeLast() }
        return o
    }

    /// The origins the server calls its own when no allow-list is configured.
    func ownOrigins(port: Int, hostHeader: String?) -> Set<String> {
        var own: Set<String> = ["\(scheme)://127.0.0.1:\(port)", "\(scheme)://localhost:\(port)"]
        if let host = hostHeader, !host.isEmpty { own.insert(Self.normalize("\(scheme)://\(host)")) }
        return own
    }

    /// Whether `origin` may open a WebSocket on a server bound to `port`, given the request's `Host`.
    func allows(origin: String?, port: Int, hostHeader: String?) -> Bool {
        guard let origin, !origin.isEmpty else { return allowMissing }
        let o = Self.normalize(origin)
        if allowed.isEmpty { return ownOrigins(port: port, hostHeader: hostHeader).contains(o) }
        return allowed.contains(o)
    }
}
