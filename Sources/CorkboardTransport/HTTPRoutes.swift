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
    /// The peer's address as text.
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

/// One response header.
public struct HTTPHeader: Sendable, Hashable {
    /// The name, for example `cache-control`.
    public var name: String
    /// The value.
    public var value: String

    /// Creates a header.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether the header can be written as it is: a token name and a value without line breaks.
    var isWellFormed: Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }
            && !value.utf8.contains { $0 == 0x0d || $0 == 0x0a || $0 == 0 }
    }
}

/// The response an HTTP route handler returns.
public struct HTTPResponse: Sendable {
    /// The status code, for example 200.
    public var status: Int
    /// The `Content-Type` header.
    public var contentType: String
    /// The body bytes.
    public var body: [UInt8]
    /// More headers (`Content-Type` and `Content-Length` are written by the server). Malformed ones
    /// (line breaks, a colon in the name) are dropped.
    public var headers: [HTTPHeader]
    /// A file to send as the body instead of ``body`` (status 200; the server streams it). A file
    /// that cannot be opened is answered 404.
    public var filePath: String?

    /// Creates a response.
    public init(
        status: Int = 200, contentType: String = "text/plain; charset=utf-8", body: [UInt8] = [],
        headers: [HTTPHeader] = []
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
        self.filePath = nil
    }

    /// A UTF-8 text response.
    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// A JSON response from already-encoded JSON text.
    public static func json(_ json: String, status: Int = 200, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array(json.utf8), headers: headers)
    }

    /// A JSON error `{"code": code, "message": message}`, the shape of every error the transport
    /// itself answers (411 `length-required`, 413 `too-large`, …).
    public static func error(
        status: Int, code: String, message: String, headers: [HTTPHeader] = []
    ) -> HTTPResponse {
        .json(JSON.object([("code", .string(code)), ("message", .string(message))]), status: status, headers: headers)
    }

    /// A file streamed from disk with status 200.
    public static func file(_ path: String, contentType: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        var response = HTTPResponse(status: 200, contentType: contentType, headers: headers)
        response.filePath = path
        return response
    }
}

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

/// A value in the `/healthz` JSON document.
public enum HealthValue: Sendable, Equatable {
    /// A JSON string.
    case string(String)
    /// A JSON integer.
    case int(Int)
    /// A JSON number.
    case double(Double)
    /// A JSON boolean.
    case bool(Bool)

    var json: String {
        switch self {
        case .string(let s): return JSON.quote(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .bool(let b): return b ? "true" : "false"
        }
    }
}

/// The little JSON the transport writes itself.
enum JSON {
    /// A JSON string literal for `s`.
    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// An object with the fields in order.
    static func object(_ fields: [(String, HealthValue)]) -> String {
        "{" + fields.map { quote($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
    }
}

/// The body of `GET /healthz`.
enum HealthReport {
    /// `{"status":"ok","version":…,"uptimeSeconds":…,"connections":…}` followed by `extra` fields
    /// (sorted by name; an extra field cannot replace a built-in one).
    static func json(version: String, uptimeSeconds: Double, connections: Int, extra: [String: HealthValue]) -> String {
        var fields: [(String, HealthValue)] = [
            ("status", .string("ok")), ("version", .string(version)),
            ("uptimeSeconds", .double((uptimeSeconds * 1000).rounded() / 1000)), ("connections", .int(connections)),
        ]
        let builtIn = Set(fields.map(\.0))
        for key in extra.keys.sorted() where !builtIn.contains(key) { fields.append((key, extra[key]!)) }
        return JSON.object(fields)
    }
}

/// Splits and percent-decodes a raw query string.
enum QueryString {
    /// `a=1&b=x%20y` → `[("a","1"), ("b","x y")]`.
    static func parse(_ query: Substring) -> [QueryItem] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let eq = pair.firstIndex(of: "=") {
                return QueryItem(name: decode(pair[..<eq]), value: decode(pair[pair.index(after: eq)...]))
            }
            return QueryItem(name: decode(pair), value: "")
        }
    }

    /// Percent-decoding with `+` as space; malformed escapes are kept as they are.
    static func decode(_ s: Substring) -> String {
        var bytes: [UInt8] = []
        var u = Array(s.utf8)[...]
        while let b = u.popFirst() {
            if b == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if b == UInt8(ascii: "%"), u.count >= 2, let h = hex(u[u.startIndex]),
                let l = hex(u[u.startIndex + 1])
            {
                bytes.append(h << 4 | l)
                u = u.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
