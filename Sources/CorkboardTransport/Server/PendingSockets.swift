import DequeModule

/// The sockets of one service thread that are not WebSockets yet (HTTP requests being read or
/// answered, upgrades in their handshake), oldest first, and the thread's cap on them
/// (``ServerConfiguration/maxPendingConnectionsPerThread``).
///
/// Each such socket may hold one of the thread's request-head buffers (libwebsockets' header pool,
/// ``ServerConfiguration/headerPoolPerThread``); a request that finds none free waits for one. The
/// per-address cap keeps one address from taking them all, but many addresses together still
/// could: past this cap a new socket evicts the oldest, so a fresh request always finds a buffer
/// and a flood of half-open requests only ever shortens its own sockets' lives.
///
/// A value on the service thread, keyed by whatever names a socket there (the `wsi`); order is
/// kept only while there is a cap, and entries of sockets no longer pending are dropped lazily.
struct PendingSockets<Key: Hashable> {
    /// Most pending sockets (0: no cap).
    let cap: Int
    /// Every pending socket and the serial it was added with (a key may name a later socket).
    private var serials: [Key: UInt64] = [:]
    /// Sockets in the order they were added; some may no longer be pending.
    private var order = Deque<(key: Key, serial: UInt64)>()
    private var nextSerial: UInt64 = 0

    init(cap: Int) { self.cap = max(0, cap) }

    /// Pending sockets now.
    var count: Int { serials.count }

    /// Whether `key` is pending.
    func contains(_ key: Key) -> Bool { serials[key] != nil }

    /// A new pending socket. Returns the sockets it evicts, oldest first (no longer counted here):
    /// the caller closes them. With a cap, the count never passes it.
    mutating func add(_ key: Key) -> [Key] {
        var evicted: [Key] = []
        if cap > 0 {
            while serials.count >= cap, let oldest = removeOldest() { evicted.append(oldest) }
        }
        nextSerial &+= 1
        serials[key] = nextSerial
        if cap > 0 {
            order.append((key, nextSerial))
            // Upgraded and closed sockets leave stale entries; sweep them once they outnumber the rest.
            if order.count > 2 * serials.count + 64 {
                order = Deque(order.filter { serials[$0.key] == $0.serial })
            }
        }
        return evicted
    }

    /// The socket is no longer pending: it became a WebSocket, or it closed.
    mutating func remove(_ key: Key) { serials[key] = nil }

    /// Takes the oldest pending socket out.
    private mutating func removeOldest() -> Key? {
        while let head = order.popFirst() {
            if serials[head.key] == head.serial {
                serials[head.key] = nil
                return head.key
            }
        }
        return nil
    }
}
