import CLibWebSockets
import Logging
import Synchronization

/// A request the application may refuse for a while (``WebSocketServer/setAdmissionGate(_:)``):
/// a WebSocket upgrade, or a static page asked for with a query (a board's page, say).
public struct AdmissionRequest: Sendable {
    /// What is asked for.
    public enum Kind: Sendable, Equatable {
        /// A WebSocket upgrade, asked once its handshake is in (before the connection caps).
        case webSocket
        /// A static file with a query (`GET /?board=…`); files without one are never gated.
        case page
    }

    /// What is asked for.
    public var kind: Kind
    /// The client's address: the peer's, or behind a trusted proxy the one it forwarded
    /// (``ServerConfiguration/trustedProxies``).
    public var address: String
    /// The path, without the query.
    public var path: String
    /// The decoded query items.
    public var queryItems: [QueryItem]

    /// Creates a request description.
    public init(kind: Kind, address: String, path: String, queryItems: [QueryItem]) {
        self.kind = kind
        self.address = address
        self.path = path
        self.queryItems = queryItems
    }

    /// The first query item called `name`, or `nil`.
    public func query(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }
}

/// Why the application refuses a request for now, and for how long.
public struct AdmissionRefusal: Sendable, Equatable {
    /// Counted under it in ``WebSocketServer/refusedConnectionCounts``.
    public var reason: ConnectionRefusalReason
    /// Whole seconds (at least 1) until the request may be made again (`Retry-After`).
    public var retryAfter: Int
    /// One sentence saying why, without the wait ("too many failed joins from your address").
    public var message: String
    /// More for a person reading the HTML page (what is still open to them, what to check), or `nil`.
    public var detail: String?

    /// Creates a refusal.
    public init(reason: ConnectionRefusalReason, retryAfter: Int, message: String, detail: String? = nil) {
        self.reason = reason
        self.retryAfter = max(1, retryAfter)
        self.message = message
        self.detail = detail
    }

    /// The sentence with the wait: "`message`; try again in N s".
    public var sentence: String { "\(message); try again in \(retryAfter) s" }
}

/// The application's decision, held by the server once set.
final class AdmissionGateBox: Sendable {
    let decide: @Sendable (AdmissionRequest) -> AdmissionRefusal?
    init(_ decide: @escaping @Sendable (AdmissionRequest) -> AdmissionRefusal?) { self.decide = decide }
}

extension ShardContext {
    /// The client's address for the request on `wsi`: its peer, unless the peer is a trusted
    /// proxy (``ServerConfiguration/trustedProxies``), then the client its `X-Forwarded-For` names.
    /// Headers must still be there (HTTP callbacks, the upgrade's confirmation).
    func clientAddress(_ wsi: OpaquePointer) -> String {
        let peer = loop.sockets[wsi]?.address ?? Lws.peerAddress(wsi)
        let proxies = configuration.trustedProxies
        guard proxies.trusts(peer) else { return peer }
        return proxies.clientAddress(peer: peer, forwardedFor: Lws.header(wsi, WSI_TOKEN_X_FORWARDED_FOR))
    }

    /// Asks the application's gate about a request (`nil`: no gate, or admitted); a refusal is counted.
    func gateRefusal(_ wsi: OpaquePointer, kind: AdmissionRequest.Kind, path: String) -> AdmissionRefusal? {
        guard let gate = server.admissionGate.load() else { return nil }
        let items = Lws.queryItems(wsi)
        if kind == .page && items.isEmpty { return nil }
        let request = AdmissionRequest(kind: kind, address: clientAddress(wsi), path: path, queryItems: items)
        guard let refusal = gate.decide(request) else { return nil }
        server.limits.withLock { $0.countRefusal(refusal.reason) }
        logger.debug(
            "refused for now",
            metadata: ["remote": "\(request.address)", "path": "\(path)", "reason": "\(refusal.message)"])
        return refusal
    }
}
