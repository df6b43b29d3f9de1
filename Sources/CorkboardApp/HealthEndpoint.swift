import CorkboardJSON
import CorkboardTransport

/// A value in the `/healthz` JSON document.
enum HealthValue: Sendable, Equatable {
    /// A JSON string.
    case string(String)
    /// A JSON integer.
    case int(Int)
    /// A JSON number.
    case double(Double)
    /// A JSON boolean.
    case bool(Bool)
    /// A JSON array.
    case list([HealthValue])
    /// A JSON object, its fields in this order.
    case object([(String, HealthValue)])

    static func == (a: HealthValue, b: HealthValue) -> Bool { a.json == b.json }

    /// The value as JSON text.
    var json: String {
        switch self {
        case .string(let s): return JSONString.quoted(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .bool(let b): return b ? "true" : "false"
        case .list(let values): return "[" + values.map(\.json).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { JSONString.quoted($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
        }
    }
}

/// `GET /healthz`: the server's state as one JSON object, for load balancers, monitors and the
/// browser client's capabilities (docs/PROTOCOL.md, "Capabilities in `GET /healthz`").
///
/// Answered on the transport's service thread (a synchronous route), so it stays fast and answers
/// even while every room is busy.
struct HealthEndpoint: Sendable {
    /// The version reported.
    let version: String
    /// When the service was built; `uptimeSeconds` counts from here.
    let startedAt: ContinuousClock.Instant
    /// The open WebSocket connections now.
    let connections: @Sendable () -> Int
    /// Whether the node cannot do its job now (the store cannot save): `/healthz` then answers
    /// 503 with `"status":"degraded"`, so a load balancer stops sending it writes.
    var isDegraded: @Sendable () -> Bool = { false }
    /// The application's fields after the built-in ones.
    let details: @Sendable () -> [String: HealthValue]

    /// The response to one request: 200 `"ok"`, or 503 `"degraded"` while ``isDegraded``.
    func respond(_ request: HTTPRequest) -> HTTPResponse {
        let degraded = isDegraded()
        let json = HealthEndpoint.json(
            status: degraded ? "degraded" : "ok", version: version,
            uptimeSeconds: (ContinuousClock.now - startedAt).seconds, connections: connections(), extra: details())
        return .json(json, status: degraded ? 503 : 200, headers: [HTTPHeader("cache-control", "no-store")])
    }

    /// `{"status":…,"version":…,"uptimeSeconds":…,"connections":…}` followed by `extra` fields
    /// (sorted by name; an extra field cannot replace a built-in one).
    static func json(
        status: String = "ok", version: String, uptimeSeconds: Double, connections: Int, extra: [String: HealthValue]
    ) -> String {
        var fields: [(String, HealthValue)] = [
            ("status", .string(status)), ("version", .string(version)),
            ("uptimeSeconds", .double((uptimeSeconds * 1000).rounded() / 1000)), ("connections", .int(connections)),
        ]
        let builtIn = Set(fields.map(\.0))
        for key in extra.keys.sorted() where !builtIn.contains(key) { fields.append((key, extra[key]!)) }
        return "{" + fields.map { JSONString.quoted($0.0) + ":" + $0.1.json }.joined(separator: ",") + "}"
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    fileprivate var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
