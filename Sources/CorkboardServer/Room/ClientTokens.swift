import OrderedCollections

/// The resume token of every client that joined a room (R10): kept while the client is
/// connected and, once it left, for the `capacity` most recently departed clients.
///
/// A room that sees clients come and go for months would otherwise keep one entry per client id
/// it ever saw. A departed client forgotten here may join again under its id like a new client,
/// so the room forgets the rest of what it keeps by client id with it (its undo history and
/// what it was last told of it).
///
/// A value, like the room's other parts.
struct ClientTokens {
    /// How many departed clients keep their tokens.
    let capacity: Int
    private var tokens: [String: String] = [:]
    /// Departed clients, the least recently departed first.
    private var departed: OrderedSet<String> = []

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The token of a client that joined and is connected or not yet forgotten.
    subscript(clientId: String) -> String? { tokens[clientId] }

    /// Clients whose tokens are kept, connected or departed.
    var count: Int { tokens.count }

    /// A client joined with `token`: kept for as long as it stays connected.
    ///
    /// - Complexity: O(1), O(departed) when it comes back after leaving.
    mutating func joined(_ clientId: String, token: String) {
        tokens[clientId] = token
        departed.remove(clientId)
    }

    /// A client's last connection left; returns the departed clients forgotten to make room,
    /// oldest first.
    ///
    /// - Complexity: O(1) amortized.
    mutating func left(_ clientId: String) -> [String] {
        guard tokens[clientId] != nil else { return [] }
        departed.append(clientId)
        var forgotten: [String] = []
        while departed.count > capacity {
            let oldest = departed.removeFirst()
            tokens[oldest] = nil
            forgotten.append(oldest)
        }
        return forgotten
    }
}
