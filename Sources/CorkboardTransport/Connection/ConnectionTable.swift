/// A map from ``ConnectionID`` to `Value` for the lookups the transport makes per frame: each
/// connection's queue (every frame queued, every write) and each connection's socket.
///
/// `Dictionary` hashes every key with SipHash, seeded per process. The ids are distinct nonzero
/// numbers a shard hands out in order, so a multiplicative (Fibonacci) hash spreads them evenly
/// at the cost of one multiplication (what is left of a lookup is the cache misses of that many
/// entries). Open addressing with linear probing, at most half full;
/// removal shifts the entries behind the hole back, so there are no tombstones. Values are
/// changed where they lie (``withValue(_:_:)``), never copied out and back.
struct ConnectionTable<Value> {
    /// Each slot's id (`0`: empty) and value, side by side; the capacity is a power of two.
    private var ids: [UInt64]
    private var values: [Value?]
    /// The number of ids stored.
    private(set) var count = 0
    /// 64 minus the capacity's power of two: the hash keeps the product's top bits.
    private var shift: UInt64

    /// An empty table.
    init() {
        ids = Array(repeating: 0, count: 16)
        values = Array(repeating: nil, count: 16)
        shift = 60
    }

    /// Whether the table holds no id.
    var isEmpty: Bool { count == 0 }

    /// The ids stored, in no particular order.
    var keys: [ConnectionID] { ids.filter { $0 != 0 }.map(ConnectionID.init(rawValue:)) }

    /// The values stored, in no particular order.
    var allValues: [Value] { values.compactMap { $0 } }

    /// The value of `id`; setting `nil` removes it.
    subscript(id: ConnectionID) -> Value? {
        get { slot(of: id.rawValue).flatMap { values[$0] } }
        set {
            if let newValue { insert(newValue, for: id) } else { removeValue(forKey: id) }
        }
    }

    /// Reads or changes `id`'s value where it lies; `nil` when `id` is not stored.
    mutating func withValue<T>(_ id: ConnectionID, _ body: (inout Value) -> T) -> T? {
        guard let index = slot(of: id.rawValue) else { return nil }
        return body(&values[index]!)
    }

    /// Stores `value` for `id`, replacing any value it had.
    mutating func insert(_ value: Value, for id: ConnectionID) {
        precondition(id.rawValue != 0, "ConnectionTable cannot hold the id 0")
        if let index = slot(of: id.rawValue) {
            values[index] = value
            return
        }
        if (count + 1) * 2 > ids.count { grow() }
        var index = home(id.rawValue)
        while ids[index] != 0 { index = (index + 1) & (ids.count - 1) }
        ids[index] = id.rawValue
        values[index] = value
        count += 1
    }

    /// Removes `id` and returns its value, if it was stored.
    @discardableResult
    mutating func removeValue(forKey id: ConnectionID) -> Value? {
        guard var hole = slot(of: id.rawValue) else { return nil }
        let mask = ids.count - 1
        let removed = values[hole].take()
        ids[hole] = 0
        count -= 1
        // Every entry after the hole, up to the next empty slot, moves into the hole unless its
        // home lies after the hole (cyclically): probes from its home must still find it.
        var index = hole
        while true {
            index = (index + 1) & mask
            let id = ids[index]
            if id == 0 { break }
            let fromHome = (index &- home(id)) & mask
            let fromHole = (index &- hole) & mask
            guard fromHome >= fromHole else { continue }
            ids[hole] = id
            values[hole] = values[index].take()
            ids[index] = 0
            hole = index
        }
        return removed
    }

    /// The slot `raw` would start probing from.
    private func home(_ raw: UInt64) -> Int {
        Int(truncatingIfNeeded: (raw &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `raw`, if any.
    private func slot(of raw: UInt64) -> Int? {
        guard raw != 0 else { return nil }
        let mask = ids.count - 1
        var index = home(raw)
        while true {
            let id = ids[index]
            if id == raw { return index }
            if id == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    /// Doubles the capacity and places every entry again.
    private mutating func grow() {
        let oldIDs = ids
        var oldValues = values
        ids = Array(repeating: 0, count: oldIDs.count * 2)
        values = Array(repeating: nil, count: oldIDs.count * 2)
        shift -= 1
        let mask = ids.count - 1
        for (old, id) in oldIDs.enumerated() where id != 0 {
            var index = home(id)
            while ids[index] != 0 { index = (index + 1) & mask }
            ids[index] = id
            values[index] = oldValues[old].take()
        }
    }
}

extension ConnectionTable: Sendable where Value: Sendable {}
