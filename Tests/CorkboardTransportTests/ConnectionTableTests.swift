import Testing

@testable import CorkboardTransport

@Suite struct ConnectionTableTests {
    /// Random inserts, replacements, in-place changes and removals against a `Dictionary`: every
    /// id present is found with its value and every other id is not, through growth and removals
    /// that shift probe chains back.
    @Test(arguments: [UInt64(1), 2, 3])
    func behavesLikeADictionary(seed: UInt64) {
        var table = ConnectionTable<Int>()
        var reference: [ConnectionID: Int] = [:]
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        // Ids like a shard's (sequential from a base) and scattered ones, which collide more.
        let sequential = (1...600).map { ConnectionID(rawValue: (1 << 40) + UInt64($0)) }
        let ids = sequential + (0..<200).map { _ in ConnectionID(rawValue: next() | 1) }
        for step in 0..<20_000 {
            let id = ids[Int(next() % UInt64(ids.count))]
            switch next() % 4 {
            case 0, 1:
                table[id] = step
                reference[id] = step
            case 2:
                #expect(table.removeValue(forKey: id) == reference.removeValue(forKey: id))
            default:
                let changed = table.withValue(id) { value -> Int in
                    value += 1
                    return value
                }
                if let old = reference[id] { reference[id] = old + 1 }
                #expect(changed == reference[id])
            }
        }
        #expect(table.count == reference.count)
        for id in ids { #expect(table[id] == reference[id]) }
        #expect(Set(table.keys) == Set(reference.keys))
        #expect(table.allValues.sorted() == reference.values.sorted())
    }

    @Test func emptyingTheTableLeavesNothingBehind() {
        var table = ConnectionTable<String>()
        let ids = (1...100).map { ConnectionID(rawValue: UInt64($0) * 7919) }
        for id in ids { table[id] = "\(id)" }
        #expect(table.count == 100)
        for id in ids.reversed() { #expect(table.removeValue(forKey: id) == "\(id)") }
        #expect(table.isEmpty && table.keys.isEmpty)
        for id in ids { #expect(table[id] == nil) }
        #expect(table.withValue(ids[0]) { $0 } == nil)
        #expect(table.removeValue(forKey: ids[0]) == nil)
    }
}
