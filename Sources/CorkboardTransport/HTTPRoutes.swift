/// A plain HTTP request routed to an application handler (see ``WebSocketServer/addRoute(_:handler:)``).
public struct HTTPRequest: Sendable {
    /// The path, without the query.
    public var path: String
    /// The decoded query items.
    public var queryItems: [QueryItem]
    /// The request method (`GET`, `POST`, …).
    public var method: String

    /// Creates a request description.
    public init(path: String, queryItems: [QueryItem], method: String) {
        self.path = path
        self.queryItems = queryItems
        self.method = method
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

    /// Creates a response.
    public init(status: Int = 200, contentType: String = "text/plain; charset=utf-8", body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// A UTF-8 text response.
    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// A JSON response from already-encoded JSON text.
    public static func json(_ json: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array(json.utf8))
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
