/// The server's connection caps as a value: how many sockets each remote address holds, how many
/// WebSockets there are, and whether the next one fits (OWASP's "limit connections" rule).
///
/// Two kinds of socket are counted per address:
/// - **pending**: accepted, not (yet) a WebSocket: an HTTP request being read or answered, or an
///   upgrade in its handshake. Past ``maxPendingPerAddress`` a new socket from that address is
///   closed as soon as it is accepted, so one address trickling requests (slowloris) can hold only
///   that many of the server's request-header buffers and never starve the others.
/// - **WebSockets**: upgrades accepted. An upgrade past ``maxWebSocketsPerAddress`` or past
///   ``maxWebSockets`` in all is refused with HTTP 503 and `Retry-After`.
///
/// Behind a trusted proxy (``ServerConfiguration/trustedProxies``) WebSockets count against the
/// client's address the proxy forwarded; pending sockets always count against the peer (the proxy),
/// since they are counted at accept, before any header arrives.
///
/// A limit of 0 means no limit. Shared by every service thread behind the server's mutex.
struct ConnectionLimits: Sendable {
    /// Most WebSockets in all (0: no limit).
    let maxWebSockets: Int
    /// Most WebSockets from one address (0: no limit).
    let maxWebSocketsPerAddress: Int
    /// Most sockets from one address that are not WebSockets (0: no limit).
    let maxPendingPerAddress: Int

    private struct Counts {
        var pending = 0
        var webSockets = 0
    }

    private var byAddress: [String: Counts] = [:]
    /// WebSockets admitted and not yet closed.
    private(set) var webSockets = 0
    /// Sockets closed at accept and upgrades answered 503 since start, by reason.
    private(set) var refusals: [ConnectionRefusalReason: Int] = [:]

    /// Sockets closed at accept and upgrades answered 503 since start.
    var refused: Int { refusals.values.reduce(0, +) }

    init(maxWebSockets: Int, maxWebSocketsPerAddress: Int, maxPendingPerAddress: Int) {
        self.maxWebSockets = maxWebSockets
        self.maxWebSocketsPerAddress = maxWebSocketsPerAddress
        self.maxPendingPerAddress = maxPendingPerAddress
    }

    /// A newly accepted socket from `address`: `true` if it may be served (it is then counted as
    /// pending until ``closed(address:wasWebSocket:)``), `false` if it must be closed at once.
    mutating func admitSocket(from address: String) -> Bool {
        let counts = byAddress[address, default: Counts()]
        if maxPendingPerAddress > 0 && counts.pending >= maxPendingPerAddress {
            refusals[.pendingPerAddress, default: 0] += 1
            return false
        }
        byAddress[address, default: Counts()].pending += 1
        return true
    }

    /// Why an upgrade was refused.
    enum Refusal: Equatable, Sendable {
        /// The server holds ``ConnectionLimits/maxWebSockets`` already.
        case serverFull(limit: Int)
        /// The address holds ``ConnectionLimits/maxWebSocketsPerAddress`` already.
        case addressFull(limit: Int)
        /// The socket was evicted as the oldest pending one of its thread and is closing.
        case evicted

        /// The sentence sent with the 503.
        var message: String {
            switch self {
            case .serverFull(let limit):
                return "the server holds its limit of \(limit) WebSocket connections; try again shortly"
            case .addressFull(let limit):
                return "your address holds its limit of \(limit) WebSocket connections; close one and try again"
            case .evicted:
                return "the server holds too many unfinished requests; try again shortly"
            }
        }
    }

    /// A pending socket from `peer` asks to become a WebSocket of `client` (the peer itself, or
    /// behind a trusted proxy the address it forwarded): `nil` if it may (it then counts as a
    /// WebSocket of `client`, no longer as pending of `peer`), else why not (it stays pending and
    /// counts as refused).
    mutating func admitUpgrade(from peer: String, client: String) -> Refusal? {
        if maxWebSockets > 0 && webSockets >= maxWebSockets {
            refusals[.serverFull, default: 0] += 1
            return .serverFull(limit: maxWebSockets)
        }
        if maxWebSocketsPerAddress > 0 && byAddress[client, default: Counts()].webSockets >= maxWebSocketsPerAddress {
            refusals[.addressFull, default: 0] += 1
            return .addressFull(limit: maxWebSocketsPerAddress)
        }
        if var counts = byAddress[peer] {
            counts.pending = max(0, counts.pending - 1)
            byAddress[peer] = counts.pending == 0 && counts.webSockets == 0 ? nil : counts
        }
        byAddress[client, default: Counts()].webSockets += 1
        webSockets += 1
        return nil
    }

    /// Counts a request the application refused for now (``WebSocketServer/setAdmissionGate(_:)``).
    mutating func countRefusal(_ reason: ConnectionRefusalReason) { refusals[reason, default: 0] += 1 }

    /// Counts a pending socket evicted by a newer one over its thread's cap.
    mutating func countEviction() { refusals[.pendingPerThread, default: 0] += 1 }

    /// Counts a connection closed at accept at the open-file limit.
    mutating func countOpenFileRefusal() { refusals[.openFiles, default: 0] += 1 }

    /// A socket admitted by ``admitSocket(from:)`` closed; `wasWebSocket` if its upgrade was
    /// admitted, and then `address` is the client it counted for, else its peer.
    mutating func closed(address: String, wasWebSocket: Bool) {
        guard var counts = byAddress[address] else { return }
        if wasWebSocket {
            counts.webSockets = max(0, counts.webSockets - 1)
            webSockets = max(0, webSockets - 1)
        } else {
            counts.pending = max(0, counts.pending - 1)
        }
        byAddress[address] = counts.pending == 0 && counts.webSockets == 0 ? nil : counts
    }

    /// Sockets counted for `address` now (pending, WebSockets).
    func counts(for address: String) -> (pending: Int, webSockets: Int) {
        let c = byAddress[address, default: Counts()]
        return (c.pending, c.webSockets)
    }

    /// Addresses with at least one socket counted.
    var addressCount: Int { byAddress.count }
}

/// Why the transport refused a connection (the `reason` of `corkboard_connections_refused_total`).
public enum ConnectionRefusalReason: String, Sendable, CaseIterable {
    /// Closed at accept: its address already held `maxPendingConnectionsPerAddress` sockets that
    /// were not WebSockets yet.
    case pendingPerAddress = "pending-per-ip"
    /// Closed after accept: the oldest socket that was not a WebSocket yet on a service thread
    /// that held `maxPendingConnectionsPerThread` of them when a new one came.
    case pendingPerThread = "max-pending"
    /// Upgrade answered 503: the server held `maxConnections` WebSockets.
    case serverFull = "max-connections"
    /// Upgrade answered 503: its address held `maxConnectionsPerAddress` WebSockets.
    case addressFull = "max-connections-per-ip"
    /// Closed at accept with the reserve descriptor: the process was at its open-file limit.
    case openFiles = "open-files"
    /// Answered 429: the application refuses a request for a while for its address's failed joins
    /// (``WebSocketServer/setAdmissionGate(_:)``).
    case failedJoins = "failed-joins"
    /// Answered 429: the application refuses the address's new WebSockets for a while because its
    /// connections keep being closed for passing their rate limit.
    case rateLimitCloses = "rate-limit-closes"
}
