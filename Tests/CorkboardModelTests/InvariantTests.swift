import Testing

@testable import CorkboardModel

@Suite("Invariant checker")
struct InvariantTests {
    @Test("The checker passes a sound board and catches a duplicated item, a lost item and a cycle")
    func catchesCorruption() {
        let sound = makeBoard(["s1": ["a", "b"], "s2": ["c"]])
        #expect(sound.checkInvariants().isEmpty)

        var duplicated = sound
        duplicated.sectionNodes[Int(duplicated.sectionSlots["s2"]!)].items.append(duplicated.itemSlots["a"]!)
        #expect(duplicated.checkInvariants().contains { $0.rule == "R1 exactly once" })

        var lost = sound
        lost.sectionNodes[Int(lost.sectionSlots["s1"]!)].items.removeAll { $0 == lost.itemSlots["b"]! }
        #expect(lost.checkInvariants().contains { $0.rule == "R1 exactly once" && $0.message.contains("b") })

        var cyclic = sound
        let a = cyclic.itemSlots["a"]!
        let b = cyclic.itemSlots["b"]!
        cyclic.sectionNodes[Int(cyclic.sectionSlots["s1"]!)].items = []
        cyclic.nodes[Int(a)].children = [b]
        cyclic.nodes[Int(b)].children = [a]
        cyclic.nodes[Int(a)].parent = .group(b)
        cyclic.nodes[Int(b)].parent = .group(a)
        #expect(cyclic.checkInvariants().contains { $0.rule == "no cycles" })

        var unowned = sound
        unowned.nodes[Int(unowned.itemSlots["c"]!)].placeholder = PlaceholderInfo(owner: "", createdAt: 0)
        #expect(unowned.checkInvariants().contains { $0.rule == "placeholder owned" })
    }
}
