/// A node of a cluster as the others see it: its id (new at every start) and the WebSocket URL
/// clients use to reach it.
public struct ClusterNode: Hashable, Codable, Sendable {
    /// The node's id, unique per process.
    public var id: String
    /// The URL clients connect to, `ws://HOST:PORT/ws` (`--public-url`).
    public var url: String

    /// Creates a node.
    public init(id: String, url: String) {
        self.id = id
        self.url = url
    }
}

/// A board's lease: which node sequences it, under which fencing epoch, and whether it is still
/// valid (the database's clock decides).
public struct BoardLease: Hashable, Sendable {
    /// The board.
    public var board: String
    /// The node holding (or last holding) the lease.
    public var owner: String
    /// The fencing epoch: it grows by one at every claim, and every write names it.
    public var epoch: Int
    /// Whether the lease ran out (its holder stopped renewing it) or was released.
    public var isExpired: Bool

    /// Creates a lease.
    public init(board: String, owner: String, epoch: Int, isExpired: Bool) {
        self.board = board
        self.owner = owner
        self.epoch = epoch
        self.isExpired = isExpired
    }
}

/// What one heartbeat of a node learned about the cluster.
public struct ClusterView: Sendable {
    /// The live nodes (heartbeat within the lease duration), this one included, by id.
    public var nodes: [ClusterNode]
    /// Every board's lease, by board.
    public var leases: [String: BoardLease]
    /// The leases of this node that the heartbeat renewed (board → epoch); a lease asked for and
    /// missing here was taken by another node.
    public var renewed: [String: Int]

    /// Creates a view.
    public init(nodes: [ClusterNode], leases: [String: BoardLease], renewed: [String: Int]) {
        self.nodes = nodes
        self.leases = leases
        self.renewed = renewed
    }
}

/// The cluster's shared state in the database: node membership (heartbeats), board leases with
/// fencing epochs, the outcome of moves between nodes, and messages between nodes.
///
/// `CorkboardPostgres.PostgresCluster` implements it on PostgreSQL; the rooms' side
/// (`CorkboardServer.BoardOwnership`) decides what to claim and what to give up.
public protocol ClusterCoordinator: Sendable {
    /// This node's id.
    var nodeID: String { get }
    /// How long a heartbeat or a lease stays valid without renewal.
    var leaseDuration: Duration { get }
    /// A secret every node of the cluster shares (resume tokens are derived from it).
    var sharedSecret: [UInt8] { get }

    /// Records this node as alive at `url`, renews the leases it holds (`board → epoch`), and
    /// reads the live nodes and every lease, in one round trip.
    func heartbeat(url: String, renewing leases: [String: Int]) async throws(StoreError) -> ClusterView

    /// Takes a board's lease for this node when it is free, expired or released, with the next
    /// epoch; `nil` when another node holds a valid lease.
    func claim(_ board: String) async throws(StoreError) -> Int?

    /// Gives a board's lease up at once (it expires now), if it is still held under `epoch`.
    func release(_ board: String, epoch: Int) async throws(StoreError)

    /// A board's lease as the database has it now, with its holder when that node is live.
    func lease(of board: String) async throws(StoreError) -> (lease: BoardLease, holder: ClusterNode?)?

    /// Leaves the cluster: releases this node's leases and removes its heartbeat row.
    func leave() async

    /// Sends a message to another node; it arrives in that node's `incoming` stream.
    func send(_ body: [UInt8], to node: String) async throws(StoreError)

    /// Messages sent to this node, in the order they were sent; finishes when `run()` returns.
    var incoming: AsyncStream<[UInt8]> { get }

    /// Receives messages for this node until the task is cancelled (reconnecting as needed).
    func run() async

    /// The outcome of a move between boards of two nodes (`BoardAppend.moveID`): `true` when its
    /// transaction committed. When it is not decided yet it is decided as aborted, so a
    /// transaction still in flight can no longer commit it.
    func decideMove(_ id: String) async throws(StoreError) -> Bool
}
