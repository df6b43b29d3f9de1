public import CorkboardStorage
import Foundation
public import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// A cluster's shared state on PostgreSQL: node heartbeats, board leases with fencing epochs, the
/// outcome of moves between nodes, and a message channel between nodes (a table plus
/// `LISTEN`/`NOTIFY`).
///
/// Every time is the database's (`clock_timestamp()`), so the nodes' clocks need not agree. A
/// lease is valid for `leaseDuration` after its last renewal; a claim takes a free or expired
/// lease and raises its epoch by one, so every write sequenced under the previous holder's epoch
/// fails from then on (`PostgresBoardStore` checks the epoch in the transaction that writes).
public final class PostgresCluster: ClusterCoordinator {
    /// This node's id: `n-` and 12 random hex digits, new at every start.
    public let nodeID: String
    /// How long a heartbeat or a lease stays valid without renewal.
    public let leaseDuration: Duration
    /// The secret in `corkboard_meta` that every node reads (resume tokens derive from it).
    public let sharedSecret: [UInt8]
    /// Messages sent to this node.
    public let incoming: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let session: PostgresSession
    private let listener: PostgresSession
    private let logger: Logger
    private let heartbeats = Atomic<Int>(0)

    /// Joins the cluster of the database at `url` (whose schema must be current).
    ///
    /// - Throws: `StoreError` when the database cannot be reached or has no current schema.
    public init(
        url: PostgresURL, nodeID: String = "n-" + RandomToken.make(bytes: 6), leaseDuration: Duration = .seconds(3),
        logger: Logger
    ) throws(StoreError) {
        self.nodeID = nodeID
        self.leaseDuration = leaseDuration
        self.logger = logger
        // A claim or a renewal never waits long on a lease row another session locked.
        session = try PostgresSession(
            url: url, logger: logger, settings: [("lock_timeout", "1000"), ("statement_timeout", "5000")])
        listener = try PostgresSession(url: url, logger: logger)
        try PostgresSchema.check(session)
        let rows = try session.run(
            "SELECT value FROM corkboard_meta WHERE key = 'secret'", doing: "Reading the cluster's secret")
        let secret: String? = try rows.first.map { row throws(StoreError) -> String in
            try decodeRow(row, as: String.self)
        }
        guard let hex = secret, hex.count >= 32 else {
            throw StoreError(.invalidData, "corkboard_meta has no secret; run `corkboard migrate`.")
        }
        sharedSecret = Array(hex.utf8)
        (incoming, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    private var seconds: Double {
        let (whole, fraction) = leaseDuration.components
        return Double(whole) + Double(fraction) / 1e18
    }

    /// Records this node as alive, renews its leases, and reads the live nodes and every lease.
    public func heartbeat(url: String, renewing leases: [String: Int]) async throws(StoreError) -> ClusterView {
        let boards = Array(leases.keys)
        let epochs = boards.map { Int64(leases[$0]!) }
        let rows = try await session.perform(
            """
            WITH me AS (
                INSERT INTO corkboard_nodes (id, url, heartbeat_at) VALUES (\(nodeID), \(url), clock_timestamp())
                ON CONFLICT (id) DO UPDATE SET url = excluded.url, heartbeat_at = excluded.heartbeat_at),
            renewed AS (
                UPDATE corkboard_leases l SET expires_at = clock_timestamp() + make_interval(secs => \(seconds))
                FROM unnest(\(boards)::text[], \(epochs)::bigint[]) AS r(board, epoch)
                WHERE l.board = r.board AND l.epoch = r.epoch AND l.owner = \(nodeID)
                RETURNING l.board, l.epoch)
            SELECT 0, id, url, 0::bigint, false FROM corkboard_nodes
                WHERE heartbeat_at > clock_timestamp() - make_interval(secs => \(seconds)) AND id <> \(nodeID)
            UNION ALL
            SELECT 1, board, owner, epoch, expires_at < clock_timestamp() FROM corkboard_leases
            UNION ALL
            SELECT 2, board, '', epoch, false FROM renewed
            """, doing: "Sending a heartbeat")
        var nodes = [ClusterNode(id: nodeID, url: url)]
        var all: [String: BoardLease] = [:]
        var renewed: [String: Int] = [:]
        for row in rows {
            let (kind, first, second, epoch, expired) = try decodeRow(
                row, as: (Int32, String, String, Int64, Bool).self)
            switch kind {
            case 0: nodes.append(ClusterNode(id: first, url: second))
            case 1: all[first] = BoardLease(board: first, owner: second, epoch: Int(epoch), isExpired: expired)
            default: renewed[first] = Int(epoch)
            }
        }
        for (board, epoch) in renewed {
            all[board] = BoardLease(board: board, owner: nodeID, epoch: epoch, isExpired: false)
        }
        if heartbeats.add(1, ordering: .relaxed).newValue % 120 == 0 { await collectGarbage() }
        return ClusterView(nodes: nodes.sorted { $0.id < $1.id }, leases: all, renewed: renewed)
    }

    /// Takes a board's lease when it is free or expired, with the next epoch.
    public func claim(_ board: String) async throws(StoreError) -> Int? {
        let rows = try await session.perform(
            """
            INSERT INTO corkboard_leases (board, owner, epoch, expires_at)
            SELECT \(board), \(nodeID), 1, clock_timestamp() + make_interval(secs => \(seconds))
            WHERE EXISTS (SELECT 1 FROM corkboard_boards WHERE id = \(board))
            ON CONFLICT (board) DO UPDATE
                SET owner = excluded.owner, epoch = corkboard_leases.epoch + 1, expires_at = excluded.expires_at
                WHERE corkboard_leases.expires_at < clock_timestamp()
            RETURNING epoch
            """, doing: "Claiming board \(board)")
        let epoch: Int64? = try rows.first.map { row throws(StoreError) -> Int64 in
            try decodeRow(row, as: Int64.self)
        }
        return epoch.map { Int($0) }
    }

    /// Expires a lease at once if it is still held by this node under `epoch`.
    public func release(_ board: String, epoch: Int) async throws(StoreError) {
        _ = try await session.perform(
            """
            UPDATE corkboard_leases SET expires_at = clock_timestamp() - interval '1 second'
            WHERE board = \(board) AND epoch = \(Int64(epoch)) AND owner = \(nodeID)
            """, doing: "Releasing board \(board)")
    }

    /// A board's lease now, with its holder when that node is live: it sent a heartbeat within half
    /// a lease (three heartbeats), so clients are not sent to a node that just died while its lease
    /// runs out.
    public func lease(of board: String) async throws(StoreError) -> (lease: BoardLease, holder: ClusterNode?)? {
        let rows = try await session.perform(
            """
            SELECT l.owner, l.epoch, l.expires_at < clock_timestamp(), n.url,
                   coalesce(n.heartbeat_at > clock_timestamp() - make_interval(secs => \(seconds / 2)), false)
            FROM corkboard_leases l LEFT JOIN corkboard_nodes n ON n.id = l.owner WHERE l.board = \(board)
            """, doing: "Reading the lease of \(board)")
        guard let row = rows.first else { return nil }
        let (owner, epoch, expired, url, live) = try decodeRow(row, as: (String, Int64, Bool, String?, Bool).self)
        let lease = BoardLease(board: board, owner: owner, epoch: Int(epoch), isExpired: expired)
        return (lease, live ? url.map { ClusterNode(id: owner, url: $0) } : nil)
    }

    /// Releases every lease of this node and removes its heartbeat.
    public func leave() async {
        do {
            _ = try await session.perform(
                """
                WITH released AS (
                    UPDATE corkboard_leases SET expires_at = clock_timestamp() - interval '1 second'
                    WHERE owner = \(nodeID))
                DELETE FROM corkboard_nodes WHERE id = \(nodeID)
                """, doing: "Leaving the cluster")
        } catch {
            logger.warning("could not leave the cluster cleanly", metadata: ["error": "\(error)"])
        }
        session.close()
    }

    /// Queues a message for `node` and wakes it with `NOTIFY`.
    public func send(_ body: [UInt8], to node: String) async throws(StoreError) {
        _ = try await session.perform(
            """
            WITH m AS (INSERT INTO corkboard_messages (recipient, body) VALUES (\(node), \(ByteBuffer(bytes: body))) RETURNING id)
            SELECT pg_notify(\(Self.channel(of: node)), (SELECT id FROM m)::text)
            """, doing: "Sending a message to node \(node)")
    }

    /// Listens for this node's messages until cancelled, reconnecting after failures; takes the
    /// messages queued for it at every notification (and once after each reconnect).
    public func run() async {
        defer { continuation.finish() }
        let channel = Self.channel(of: nodeID)
        while !Task.isCancelled {
            do {
                try await listener.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        await self.takeMessages()
                        for try await _ in notifications {
                            await self.takeMessages()
                        }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                logger.debug("listening for messages failed; retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        listener.close()
    }

    /// The outcome of a move between nodes, deciding it as aborted when it is still open.
    public func decideMove(_ id: String) async throws(StoreError) -> Bool {
        let rows = try await session.perform(
            """
            INSERT INTO corkboard_moves (id, outcome) VALUES (\(id), 'aborted') ON CONFLICT (id) DO NOTHING
            RETURNING outcome
            """, doing: "Deciding move \(id)")
        if !rows.isEmpty { return false }
        let decided = try await session.perform(
            "SELECT outcome FROM corkboard_moves WHERE id = \(id)", doing: "Reading move \(id)")
        let outcome: String? = try decided.first.map { row throws(StoreError) -> String in
            try decodeRow(row, as: String.self)
        }
        return outcome == "committed"
    }

    private func takeMessages() async {
        do {
            let rows = try await session.perform(
                "DELETE FROM corkboard_messages WHERE recipient = \(nodeID) RETURNING id, body",
                doing: "Reading messages")
            var messages: [(Int64, [UInt8])] = []
            for row in rows {
                let (id, body) = try decodeRow(row, as: (Int64, ByteBuffer).self)
                messages.append((id, Array(body.readableBytesView)))
            }
            for (_, body) in messages.sorted(by: { $0.0 < $1.0 }) { continuation.yield(body) }
        } catch {
            logger.debug("reading messages failed", metadata: ["error": "\(error)"])
        }
    }

    private func collectGarbage() async {
        _ = try? await session.perform(
            """
            WITH nodes AS (DELETE FROM corkboard_nodes WHERE heartbeat_at < clock_timestamp() - interval '1 hour'),
            messages AS (DELETE FROM corkboard_messages WHERE sent_at < clock_timestamp() - interval '5 minutes')
            DELETE FROM corkboard_moves WHERE decided_at < clock_timestamp() - interval '1 day'
            """, doing: "Removing old rows")
    }

    /// The `LISTEN` channel of a node: its id with anything but letters and digits as `_`.
    static func channel(of node: String) -> String {
        "corkboard_" + String(node.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }).lowercased()
    }
}
