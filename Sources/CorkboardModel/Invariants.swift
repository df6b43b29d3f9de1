/// A broken board invariant, found by `Board.checkInvariants()`.
public struct InvariantViolation: Hashable, Sendable, CustomStringConvertible {
    /// The rule broken, e.g. `R1 exactly once`, `unique ids`, `no cycles`, `placeholder owned`,
    /// `index`.
    public var rule: String
    /// What is wrong.
    public var message: String

    /// `rule: message`.
    public var description: String { "\(rule): \(message)" }
}

extension Board {
    /// Checks the board's invariants and returns every violation (empty when the board is sound).
    ///
    /// Checked: every item stands in exactly one place reachable from a section (R1), ids are
    /// unique, no group contains itself (no cycles), every placeholder has an owner and stands in a
    /// section without children, and every internal index (id → slot, parent links, section →
    /// collection, collection order) agrees with the tree. Tests run it after every applied
    /// operation.
    ///
    /// - Complexity: O(n) in the number of items and sections.
    public func checkInvariants() -> [InvariantViolation] {
        var problems: [InvariantViolation] = []
        func fail(_ rule: String, _ message: String) {
            problems.append(InvariantViolation(rule: rule, message: message))
        }

        var visits = [Int](repeating: 0, count: nodes.count)
        func visit(_ slot: Slot, expectedParent: Parent, depth: Int) {
            guard slot >= 0, Int(slot) < nodes.count, case let node = nodes[Int(slot)], !node.isFree else {
                fail("R1 exactly once", "a list refers to a freed item slot \(slot)")
                return
            }
            visits[Int(slot)] += 1
            if visits[Int(slot)] > 1 {
                fail("R1 exactly once", "\(node.id) stands in more than one place (or a group contains itself)")
                return
            }
            if node.parent != expectedParent { fail("index", "\(node.id) has a stale parent link") }
            if itemSlots[node.id] != slot { fail("index", "the id index does not point at \(node.id)") }
            if let placeholder = node.placeholder {
                if placeholder.owner.isEmpty { fail("placeholder owned", "placeholder \(node.id) has no owner") }
                if case .group = expectedParent { fail("placeholder owned", "placeholder \(node.id) is in a group") }
                if node.children != nil { fail("placeholder owned", "placeholder \(node.id) has children") }
            }
            for child in node.children ?? [] { visit(child, expectedParent: .group(slot), depth: depth + 1) }
        }

        var seenCollections = Set<CollectionID>()
        var sectionVisits = [Int](repeating: 0, count: sectionNodes.count)
        for (index, collection) in collectionNodes.enumerated() {
            if !seenCollections.insert(collection.id).inserted {
                fail("unique ids", "collection \(collection.id) appears twice")
            }
            if collectionIndex[collection.id] != index { fail("index", "collection index wrong for \(collection.id)") }
            for sectionSlot in collection.sections {
                guard Int(sectionSlot) < sectionNodes.count, case let section = sectionNodes[Int(sectionSlot)],
                    !section.isFree
                else {
                    fail("index", "collection \(collection.id) refers to a freed section slot")
                    continue
                }
                sectionVisits[Int(sectionSlot)] += 1
                if sectionVisits[Int(sectionSlot)] > 1 { fail("unique ids", "section \(section.id) appears twice") }
                if section.collection != collection.id {
                    fail("index", "section \(section.id) names collection \(section.collection)")
                }
                if sectionSlots[section.id] != sectionSlot { fail("index", "section index wrong for \(section.id)") }
                if section.collectionOrdinal != index {
                    fail("index", "section \(section.id) has a stale collection ordinal")
                }
                for item in section.items { visit(item, expectedParent: .section(sectionSlot), depth: 0) }
            }
        }
        if collectionIndex.count != collectionNodes.count { fail("index", "collection index has stale entries") }
        for (slot, section) in sectionNodes.enumerated() where !section.isFree && sectionVisits[slot] == 0 {
            fail("index", "section \(section.id) is in no collection")
        }
        if sectionSlots.count != sectionNodes.lazy.filter({ !$0.isFree }).count {
            fail("index", "section index has stale entries")
        }
        for (slot, node) in nodes.enumerated() {
            if node.isFree { continue }
            if visits[slot] == 0 {
                fail("R1 exactly once", "\(node.id) is unreachable from any section (lost, or in a cycle of groups)")
            }
        }
        let live = nodes.lazy.filter { !$0.isFree }.count
        if itemSlots.count != live {
            fail("unique ids", "the id index holds \(itemSlots.count) ids for \(live) items")
        }
        // No cycles: following parent links from any item reaches a section within n steps.
        for (slot, node) in nodes.enumerated() where !node.isFree {
            var current = Slot(slot)
            var steps = 0
            while case .group(let parent) = nodes[Int(current)].parent {
                current = parent
                steps += 1
                if steps > nodes.count || parent < 0 || Int(parent) >= nodes.count || nodes[Int(parent)].isFree {
                    fail("no cycles", "the groups above \(node.id) form a cycle or a dangling link")
                    break
                }
            }
        }
        return problems
    }
}
