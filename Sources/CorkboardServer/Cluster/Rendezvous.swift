public import CorkboardStorage

/// Rendezvous (highest random weight) hashing of boards onto nodes: every node computes the same
/// owner for a board from the same list of live nodes, and when a node joins or leaves only the
/// boards it wins or held move.
public enum Rendezvous {
    /// The node a board belongs on, among `nodes`; `nil` when there is none.
    public static func owner(of board: String, among nodes: [ClusterNode]) -> ClusterNode? {
        nodes.max { a, b in
            let (x, y) = (weight(node: a.id, board: board), weight(node: b.id, board: board))
            return x == y ? a.id < b.id : x < y
        }
    }

    /// The weight of a (node, board) pair: FNV-1a over both ids, then SplitMix64's finalizer so
    /// similar ids spread evenly. The same on every node and every run.
    public static func weight(node: String, board: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in node.utf8 + [0] + board.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }
}
