/// Addresses whose new connections the application refuses for a while
/// (``WebSocketServer/refuseConnections(from:for:reason:message:)``), looked up at `accept`: such
/// a connection is answered before any HTTP parsing, TLS or upgrade, which is what makes a client
/// reconnecting in a tight loop cheap to turn away.
///
/// One dictionary lookup per accept; at most ``capacity`` addresses (expired ones are dropped when
/// it is reached, at most once a second; past it the entry that expires soonest makes room, and the application
/// then refuses that address after its upgrade as before). A value behind the server's limits mutex.
struct RefusedAddresses: Sendable {
    /// Why and until when one address is refused.
    struct Entry: Sendable {
        let until: ContinuousClock.Instant
        let reason: ConnectionRefusalReason
        /// The sentence of the answer's body, without the wait.
        let message: String
    }

    /// What an accepted socket from a refused address is answered.
    struct Refusal: Sendable, Equatable {
        let reason: ConnectionRefusalReason
        /// Whole seconds (at least 1) until the address may connect again.
        let retryAfter: Int
        let message: String
    }

    /// The most addresses remembered at once.
    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var lastPrune: ContinuousClock.Instant?

    init(capacity: Int = 10_000) { self.capacity = max(1, capacity) }

    /// Refuses `address` until `until` (replacing an earlier refusal of it).
    mutating func refuse(
        _ address: String, until: ContinuousClock.Instant, reason: ConnectionRefusalReason,
        message: String, now: ContinuousClock.Instant
    ) {
        if entries[address] == nil && entries.count >= capacity {
            if lastPrune.map({ now - $0 >= .seconds(1) }) ?? true {
                lastPrune = now
                entries = entries.filter { $0.value.until > now }
            }
            if entries.count >= capacity, let soonest = entries.min(by: { $0.value.until < $1.value.until }) {
                entries.removeValue(forKey: soonest.key)
            }
        }
        entries[address] = Entry(until: until, reason: reason, message: message)
    }

    /// The refusal for a new connection from `address` now, or `nil` when it may connect (an
    /// expired entry is dropped).
    mutating func refusal(for address: String, now: @autoclosure () -> ContinuousClock.Instant) -> Refusal? {
        guard let entry = entries[address] else { return nil }
        let time = now()
        guard entry.until > time else {
            entries.removeValue(forKey: address)
            return nil
        }
        return Refusal(
            reason: entry.reason, retryAfter: max(1, (entry.until - time).wholeSecondsRoundedUp),
            message: entry.message)
    }

    /// Addresses remembered now (expired ones included until looked up or pruned).
    var count: Int { entries.count }
}
