/// Which connections of a service thread went quiet: pinged after ``ServerConfiguration/pingInterval``
/// without a frame from the peer, dropped after ``ServerConfiguration/hangupAfter``.
///
/// Why not libwebsockets' own validity timers (`retry_and_idle_policy`): lws 4.1.6 keeps every
/// connection's timer in one sorted linked list per thread and re-inserts it, walking the list from
/// the front, at every ping and every pong: O(connections) per ping, which at 10,000 connections
/// took much of the server's CPU while the pings went round and delayed drops by seconds
/// (BENCHMARKS.md, "The ping storm"). Here the receive path reports a connection at most once per sweep (a mark in
/// the connection's per-session data), and the service thread sweeps its connections once a
/// second: O(connections) per second, nothing per frame.
///
/// Pure value logic, in whole sweeps (seconds): the service thread calls ``sweep()`` once a second
/// and acts on what it returns. A frame heard just after a sweep counts from that sweep, so a
/// connection is pinged after `pingAfter` to `pingAfter + 1` seconds of silence and hung up after
/// `hangupAfter` to `hangupAfter + 1`: never early.
struct Keepalive {
    /// Sweeps of silence before a ping (at least 1).
    let pingAfter: UInt32
    /// Sweeps of silence before the connection is dropped (more than `pingAfter`).
    let hangupAfter: UInt32
    /// Sweeps so far.
    private(set) var now: UInt32 = 0
    private var connections: [ConnectionID: Entry] = [:]

    private struct Entry {
        /// The sweep count when the peer was last heard from.
        var heard: UInt32
        /// A ping went out since then.
        var pinged = false
    }

    /// What one sweep found.
    struct Sweep: Equatable {
        /// Connections silent for more than `pingAfter` sweeps and not pinged yet: ping each.
        var ping: [ConnectionID] = []
        /// Connections silent for more than `hangupAfter` sweeps: drop them.
        var hangUp: [ConnectionID] = []
    }

    /// Pings after `pingInterval` of silence and hangs up after `hangupAfter`, both rounded up to
    /// whole seconds (the hangup at least a second after the ping).
    init(pingInterval: Duration, hangupAfter: Duration) {
        pingAfter = UInt32(clamping: max(1, pingInterval.wholeSecondsRoundedUp))
        self.hangupAfter = max(pingAfter + 1, UInt32(clamping: hangupAfter.wholeSecondsRoundedUp))
    }

    /// Connections followed.
    var count: Int { connections.count }

    /// Whether nothing is followed (the sweep timer may stop).
    var isEmpty: Bool { connections.isEmpty }

    /// Starts following a connection that just opened.
    mutating func add(_ id: ConnectionID) { connections[id] = Entry(heard: now) }

    /// Stops following a closed connection.
    mutating func remove(_ id: ConnectionID) { connections[id] = nil }

    /// A frame (a message's piece or a pong) arrived from the peer.
    mutating func heard(_ id: ConnectionID) {
        guard let index = connections.index(forKey: id) else { return }
        connections.values[index].heard = now
        connections.values[index].pinged = false
    }

    /// Counts one sweep (a second) and returns the connections to ping and to drop; a connection to
    /// drop is no longer followed.
    mutating func sweep() -> Sweep {
        now &+= 1
        var found = Sweep()
        for (id, entry) in connections {
            let silent = now &- entry.heard
            if silent > hangupAfter {
                found.hangUp.append(id)
            } else if silent > pingAfter && !entry.pinged {
                found.ping.append(id)
            }
        }
        for id in found.ping { connections[id]?.pinged = true }
        for id in found.hangUp { connections[id] = nil }
        return found
    }
}
