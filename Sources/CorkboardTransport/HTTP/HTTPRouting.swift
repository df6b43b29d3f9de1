/// The methods a route can answer.
public enum HTTPMethod: String, Sendable, Hashable {
    /// `GET` (a `GET` route also answers `HEAD`, without the body).
    case get = "GET"
    /// `POST`, with a request body of at most the route's `maxBodyBytes`.
    case post = "POST"
}

/// Which paths a route answers.
public enum HTTPPathPattern: Sendable, Hashable {
    /// Exactly this path.
    case exact(String)
    /// Every path starting with this prefix (for example `/files/`). A longer prefix wins, and an
    /// exact route wins over any prefix.
    case prefix(String)

    func matches(_ path: String) -> Bool {
        switch self {
        case .exact(let p): return path == p
        case .prefix(let p): return path.hasPrefix(p)
        }
    }

    /// Orders matches: exact first, then longer prefixes.
    var specificity: Int {
        switch self {
        case .exact: return Int.max
        case .prefix(let p): return p.utf8.count
        }
    }
}

/// A route registered with ``WebSocketServer/addRoute(_:_:maxBodyBytes:handler:)``.
struct HTTPRoute: Sendable {
    let method: HTTPMethod
    let pattern: HTTPPathPattern
    let maxBodyBytes: Int
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
}

/// Picks the route for a request.
enum HTTPRouter {
    enum Match {
        /// The route to run.
        case route(HTTPRoute)
        /// Routes exist for the path, but not for this method (answer 405 with `Allow`).
        case wrongMethod(allowed: [String])
        /// No route: static files or 404.
        case none
    }

    static func match(_ routes: [HTTPRoute], method: String, path: String) -> Match {
        let candidates = routes.filter { $0.pattern.matches(path) }
        guard !candidates.isEmpty else { return .none }
        let best = candidates.map(\.pattern.specificity).max()!
        let top = candidates.filter { $0.pattern.specificity == best }
        let wanted: HTTPMethod? = method == "HEAD" ? .get : HTTPMethod(rawValue: method)
        if let route = top.first(where: { $0.method == wanted }) { return .route(route) }
        var allowed = Set(top.map(\.method.rawValue))
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return .wrongMethod(allowed: allowed.sorted())
    }
}
