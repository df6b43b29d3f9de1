import CorkboardModel
import Testing

/// The obviously-correct model: sections as plain arrays of ids, one linear pass per rule.
private struct ReferenceBoard: Equatable {
    var sections: [[String]]

    /// R3/R4 for a move of `items` into section `to`: returns nil when rejected `gone`.
    mutating func move(_ items: [String], to: Int, index: Int, after: String?, before: String?) -> Bool {
        let live = items.filter { id in sections.contains { $0.contains(id) } }
        if live.isEmpty { return false }
        for s in sections.indices { sections[s].removeAll { live.contains($0) } }
        var target = sections[to]
        let position: Int
        if let after, let i = target.firstIndex(of: after), !items.contains(after) {
            position = i + 1
        } else if let before, let i = target.firstIndex(of: before), !items.contains(before) {
            position = i
        } else {
            position = max(0, min(index, target.count))
        }
        target.insert(contentsOf: live, at: position)
        sections[to] = target
        return true
    }

    mutating func delete(_ items: [String]) -> Bool {
        guard items.contains(where: { id in sections.contains { $0.contains(id) } }) else { return false }
        for s in sections.indices { sections[s].removeAll { items.contains($0) } }
        return true
    }

    mutating func insert(_ id: String, to: Int, index: Int, after: String?, before: String?) {
        var target = sections[to]
        let position: Int
        if let after, let i = target.firstIndex(of: after) {
            position = i + 1
        } else if let before, let i = target.firstIndex(of: before) {
            position = i
        } else {
            position = max(0, min(index, target.count))
        }
        target.insert(id, at: position)
        sections[to] = target
    }
}

@Suite("Reference model")
struct ReferenceModelTests {
    @Test("Single operations match a naive array model (moves, deletes, inserts; anchors R3, R4)")
    func matchesReference() {
        let seed = UInt64(0xC0FF_EE00)
        var rng = SplitMix64(seed: seed)
        for round in 0..<300 {
            let sectionCount = Int.random(in: 1...4, using: &rng)
            var reference = ReferenceBoard(sections: Array(repeating: [], count: sectionCount))
            var next = 0
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                reference.sections[Int.random(in: 0..<sectionCount, using: &rng)].append("i\(next)")
                next += 1
            }
            var pairs: [(String, [String])] = []
            for (s, items) in reference.sections.enumerated() { pairs.append(("s\(s)", items)) }
            let collection = BoardCollection(
                id: "c", sections: pairs.map { Section(id: SectionID($0.0), items: $0.1.map { Item(id: ItemID($0)) }) })
            var board = try! Board(collections: [collection])
            var universe = (0..<next).map { "i\($0)" } + ["ghost"]
            for step in 0..<25 {
                let to = Int.random(in: 0..<sectionCount, using: &rng)
                let index = Int.random(in: -1...8, using: &rng)
                let after = Bool.random(using: &rng) ? universe.randomElement(using: &rng) : nil
                let before = Bool.random(using: &rng) ? universe.randomElement(using: &rng) : nil
                let destination = Destination(
                    collection: "c", section: SectionID("s\(to)"), index: index, after: after.map { ItemID($0) },
                    before: before.map { ItemID($0) })
                let context = "seed \(seed) round \(round) step \(step)"
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<6:
                    let items = Array(universe.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)))
                    let expected = reference.move(items, to: to, index: index, after: after, before: before)
                    let result = try? board.apply(
                        .move(.init(items: items.map { ItemID($0) }, destination: destination)), clientId: "r",
                        opId: "\(step)")
                    #expect((result != nil) == expected, "\(context)")
                case 6..<8:
                    let items = [universe.randomElement(using: &rng)!]
                    let expected = reference.delete(items)
                    let result = try? board.apply(
                        .delete(.init(items: items.map { ItemID($0) })), clientId: "r", opId: "\(step)")
                    #expect((result != nil) == expected, "\(context)")
                default:
                    let id = "n\(round)-\(step)"
                    reference.insert(id, to: to, index: index, after: after, before: before)
                    universe.append(id)
                    _ = try? board.apply(
                        .insert(.init(items: [NewItem(id: ItemID(id), representations: [])], destination: destination)),
                        clientId: "r", opId: "\(step)")
                }
                for s in 0..<sectionCount {
                    #expect(ids(board, SectionID("s\(s)")) == reference.sections[s], "\(context) section s\(s)")
                }
                #expect(board.checkInvariants().isEmpty, "\(context)")
            }
        }
    }
}
