import CorkboardServer
public import CorkboardStorage
import Crypto
import ServiceLifecycle

/// A node of a cluster: the cluster's shared state (PostgreSQL) and the URL clients reach this
/// node at.
public struct ClusterSettings: Sendable {
    /// Node membership, board leases and messages between nodes.
    public var coordinator: any ClusterCoordinator
    /// The WebSocket URL clients use to reach this node, `ws://HOST:PORT/ws` (`--public-url`).
    public var publicURL: String

    /// Settings for one node.
    public init(coordinator: any ClusterCoordinator, publicURL: String) {
        self.coordinator = coordinator
        self.publicURL = publicURL
    }
}

/// Resume tokens every node of a cluster derives alike (R10 across nodes): HMAC-SHA256 of the
/// board and client id under the cluster's shared secret, so the node that takes a board over
/// accepts the tokens the previous node gave, and only their holders may resume those client ids.
enum ResumeTokens {
    static func derivation(secret: [UInt8]) -> @Sendable (String, String) -> String {
        let key = SymmetricKey(data: secret)
        return { board, clientId in
            let mac = HMAC<SHA256>.authenticationCode(for: Array("\(board)\u{0}\(clientId)".utf8), using: key)
            return "r-" + SHA256.hexDigits(Array(mac).prefix(16))
        }
    }
}

extension SHA256 {
    /// Bytes as lower-case hex digits.
    static func hexDigits(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The node's part of the cluster as a service: messages from other nodes, heartbeats, claims and
/// handoffs while it runs; at graceful shutdown (the first service to stop, before the transport)
/// every board is handed over and the node leaves, so other nodes claim its boards at once.
struct ClusterNodeService: Service {
    let ownership: BoardOwnership
    let remote: RemoteBoards?

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await ownership.coordinator.run() }
            group.addTask { await ownership.run() }
            if let remote { group.addTask { await remote.run() } }
            try? await gracefulShutdown()
            await ownership.leave()
            group.cancelAll()
        }
    }
}
