import CorkboardModel
import CorkboardTesting
import Testing

@Suite("Resolution rules R1–R7")
struct RuleTests {
    @Test("R1 exactly once: every item stands in one place after a burst of moves")
    func r1ExactlyOnce() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c", "d"], "s2": ["e", "f"]]))
        h.commit(move(["a", "c"], to: at("s2", 1)))
        h.commit(move(["e"], to: at("s1", 0)))
        h.commit(move(["f", "b"], to: at("s2", 99)))
        let all = ids(h.board, "s1") + ids(h.board, "s2")
        #expect(all.sorted() == ["a", "b", "c", "d", "e", "f"])
        #expect(ids(h.board, "s1") == ["e", "d"])
        #expect(ids(h.board, "s2") == ["a", "c", "f", "b"])
    }

    @Test("R1 exactly once: an item disappears only through a delete")
    func r1OnlyDeleteRemoves() {
        var h = Harness(makeBoard(["s1": ["a", "b"]]))
        h.commit(move(["a"], to: at("s1", 5)))
        #expect(h.board.itemCount == 2)
        let effect = h.commit(.delete(.init(items: ["a"])))
        #expect(
            effect.changes == [ItemChange(item: "a", from: Position(collection: "c", section: "s1", index: 1), to: nil)]
        )
        #expect(h.board.itemCount == 1 && !h.board.contains("a"))
    }

    @Test("R2 later wins: two moves of the same item to different places")
    func r2LaterWins() {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": ["c"], "s3": ["d"]]))
        // Both made on base 0; both apply in seq order; the later decides.
        h.commit(move(["a"], to: at("s2", 0)), by: "alice", base: 0)
        h.commit(move(["a"], to: at("s3", 1, after: "d")), by: "bob", base: 0)
        #expect(ids(h.board, "s1") == ["b"])
        #expect(ids(h.board, "s2") == ["c"])
        #expect(ids(h.board, "s3") == ["d", "a"])
    }

    @Test("R3 anchors: a drop lands after its `after` anchor even when the index went stale")
    func r3AfterAnchor() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c"], "s2": ["x", "y"]]))
        h.commit(move(["x", "y"], to: at("s1", 0)), by: "bob", base: 0)  // s1 = x y a b c
        // Alice saw s1 = a b c and dropped z between a and b (index 1).
        h.commit(
            .insert(
                .init(
                    items: [NewItem(id: "z", representations: text("z"))],
                    destination: at("s1", 1, after: "a", before: "b"))), base: 0)
        #expect(ids(h.board, "s1") == ["x", "y", "a", "z", "b", "c"])
    }

    @Test("R3 anchors: `before` is used when `after` has left the section")
    func r3BeforeAnchor() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c"], "s2": []]))
        h.commit(move(["a"], to: at("s2", 0)), by: "bob", base: 0)  // s1 = b c
        h.commit(move(["c"], to: at("s1", 1, after: "a", before: "b")), base: 0)
        #expect(ids(h.board, "s1") == ["c", "b"])
    }

    @Test("R3 anchors: with both anchors gone the drop lands at min(index, count)")
    func r3IndexFallback() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c", "d"], "s2": ["e"]]))
        h.commit(.delete(.init(items: ["b", "c"])), by: "bob", base: 0)  // s1 = a d
        h.commit(move(["e"], to: at("s1", 2, after: "b", before: "c")), base: 0)
        #expect(ids(h.board, "s1") == ["a", "d", "e"])
        h.commit(move(["a"], to: at("s1", 42)))
        #expect(ids(h.board, "s1") == ["d", "e", "a"])
    }

    @Test("R3 anchors: the index counts positions after the moved items are taken out")
    func r3IndexAfterRemoval() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c", "d"]]))
        h.commit(move(["a"], to: at("s1", 2)))
        #expect(ids(h.board, "s1") == ["b", "c", "a", "d"])
        let effect = h.commit(move(["d", "b"], to: at("s1", 0)))
        #expect(ids(h.board, "s1") == ["d", "b", "c", "a"])
        #expect(effect.changes.map(\.to?.index) == [0, 1])
        #expect(effect.changes.map(\.from?.index) == [3, 0])
    }

    @Test("R3 anchors: an anchor that is itself being moved is not used")
    func r3AnchorBeingMoved() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c", "d", "e"]]))
        // Dragging b and c, the sender saw the gap after c (c is moving, so not usable) before d.
        h.commit(move(["b", "c"], to: at("s1", 2, after: "c", before: "d")))
        #expect(ids(h.board, "s1") == ["a", "b", "c", "d", "e"])
        // Both anchors moving: falls back to the index.
        h.commit(move(["a", "e"], to: at("s1", 1, after: "a", before: "e")))
        #expect(ids(h.board, "s1") == ["b", "a", "e", "c", "d"])
    }

    @Test("R3 anchors: multi-item drops land contiguously in drag order")
    func r3Contiguous() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c"], "s2": ["d", "e", "f"]]))
        let effect = h.commit(move(["f", "a", "d"], to: at("s1", 1, after: "b", before: "c")))
        #expect(ids(h.board, "s1") == ["b", "f", "a", "d", "c"])
        #expect(effect.changes.map(\.item) == ["f", "a", "d"])
        #expect(effect.changes.map { $0.to!.index } == [1, 2, 3])
    }

    @Test("R4 vanished items: deleted items are skipped and reported")
    func r4Skipped() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c"], "s2": []]))
        h.commit(.delete(.init(items: ["b"])), by: "bob", base: 0)
        let effect = h.commit(move(["a", "b", "c"], to: at("s2", 0)), base: 0)
        #expect(effect.skipped == ["b"])
        #expect(ids(h.board, "s2") == ["a", "c"])
    }

    @Test("R4 vanished items: a drop whose items all vanished is rejected gone")
    func r4AllGone() {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": []]))
        h.commit(.delete(.init(items: ["a", "b"])), by: "bob", base: 0)
        let r = h.reject(move(["a", "b"], to: at("s2", 0)), .gone, base: 0)
        #expect(r?.message.contains("deleted") == true)
    }

    @Test("R4 vanished things: a deleted destination section rejects the drop and nothing moves")
    func r4DestinationSectionGone() {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": ["c"]]))
        h.commit(.deleteSection(.init(section: "s2")), by: "bob", base: 0)
        h.reject(move(["a"], to: at("s2", 0)), .destinationGone, base: 0)
        #expect(ids(h.board, "s1") == ["a", "b"])
    }

    @Test("R4 vanished things: a deleted destination collection rejects the drop")
    func r4DestinationCollectionGone() {
        let other = BoardCollection(id: "k", sections: [Section(id: "k1")])
        var h = Harness(makeBoard(["s1": ["a"]], extra: [other]))
        h.commit(.deleteCollection(.init(collection: "k")), by: "bob")
        h.reject(move(["a"], to: at("k1", 0, collection: "k")), .destinationGone, base: 0)
        h.reject(
            .insert(.init(items: [NewItem(representations: text("n"))], destination: at("k1", 0, collection: "k"))),
            .destinationGone)
    }

    @Test("R5 canHandle: a drop into a collection that accepts none of the types is forbidden")
    func r5Forbidden() {
        let photos = BoardCollection(id: "p", accepts: ["public.image"], sections: [Section(id: "p1")])
        var h = Harness(makeBoard(["s1": ["a"]], extra: [photos]))
        h.commit(.insert(.init(items: [NewItem(id: "img", representations: image("x"))], destination: at("s1", 0))))
        let r = h.reject(move(["a"], to: at("p1", 0, collection: "p")), .forbidden)
        #expect(r?.item == "a")
        // public.image accepts public.image.png (dot-prefix match).
        h.commit(move(["img"], to: at("p1", 0, collection: "p")))
        #expect(ids(h.board, "p1") == ["img"])
        // The proposal already said forbidden while hovering.
        let hover = HoverTarget(collection: "p", section: "p1", index: 0)
        #expect(h.board.proposal(items: ["a"], at: hover).operation == .forbidden)
        #expect(h.board.proposal(items: ["img"], at: hover).operation == .move)
    }

    @Test("R5 canHandle: type matching is equality or dot-prefix, never a bare prefix")
    func r5TypeMatching() {
        #expect(TypeMatching.entry("public.image", matches: "public.image"))
        #expect(TypeMatching.entry("public.image", matches: "public.image.png"))
        #expect(!TypeMatching.entry("public.image", matches: "public.imagery"))
        #expect(!TypeMatching.entry("public.image.png", matches: "public.image"))
        #expect(TypeMatching.accepts([], types: ["anything"]))
        #expect(!TypeMatching.accepts(["public.url"], types: [String]()))
    }

    @Test("R6 copy: new items with derived ids and the same representations, groups copied deeply")
    func r6DeepCopy() {
        var h = Harness(makeBoard(["s1": ["g", "a", "b"], "s2": []]))
        h.commit(move(["a", "b"], to: .into("g", collection: "c", section: "s1")))
        let effect = h.commit(
            .copy(.init(items: ["g"], destination: at("s2", 0))), by: "bob", opId: "cp1")
        let copyID = Board.derivedID(clientId: "bob", opId: "cp1", n: 0)
        #expect(effect.changes.map(\.item) == [copyID])
        let copy = h.board.item(copyID)!
        #expect(copy.representations == text("g"))
        #expect(copy.children?.map(\.id) == ["bob:cp1:1", "bob:cp1:2"])
        #expect(copy.children?.map(\.representations) == [text("a"), text("b")])
        // The original is untouched.
        #expect(h.board.children(of: "g") == ["a", "b"])
        #expect(h.board.itemCount == 6)
    }

    @Test("R6 copy: a resent copy returns its first result and copies nothing twice")
    func r6CopyIdempotent() {
        var h = Harness(makeBoard(["s1": ["a"], "s2": []]))
        let first = h.submit(.copy(.init(items: ["a"], destination: at("s2", 0))), by: "bob", opId: "cp")
        let again = h.submit(.copy(.init(items: ["a"], destination: at("s2", 0))), by: "bob", opId: "cp")
        #expect(first == again)
        #expect(h.sequencer.head == 1)
        #expect(ids(h.board, "s2") == ["bob:cp:0"])
    }

    @Test("R6 move between boards: moveOut yields the trees, insert keeps their ids")
    func r6BetweenBoards() {
        var left = Harness(makeBoard(["s1": ["g", "a"]]))
        left.commit(move(["a"], to: .into("g", collection: "c", section: "s1")))
        var right = Harness(makeBoard(["s1": ["x"]]))
        let payload = BoardOperation.Insert(
            items: [NewItem(left.board.item("g")!)], destination: at("s1", 1, after: "x"))
        #expect(right.board.validate(payload, clientId: "alice", opId: "in") == nil)
        let elsewhere = BoardOperation.Insert(items: payload.items, destination: at("gone", 0))
        #expect(right.board.validate(elsewhere, clientId: "alice", opId: "in")?.code == .destinationGone)
        let out = left.commit(.moveOut(.init(items: ["g"])))
        #expect(out.removed.map(\.allIDs) == [["g", "a"]])
        #expect(!left.board.contains("g") && !left.board.contains("a"))
        right.commit(.insert(.init(items: out.removed.map(NewItem.init), destination: at("s1", 1, after: "x"))))
        #expect(ids(right.board, "s1") == ["x", "g"])
        #expect(right.board.children(of: "g") == ["a"])
        // Inserting the same ids again is refused.
        right.reject(.insert(.init(items: out.removed.map(NewItem.init), destination: at("s1", 0))), .duplicateID)
    }

    @Test("R7 drop into an item: the target becomes a group and gets the items in drag order")
    func r7DropInto() {
        var h = Harness(makeBoard(["s1": ["t", "a", "b", "c"]]))
        let effect = h.commit(move(["c", "a"], to: .into("t", collection: "c", section: "s1")))
        #expect(h.board.children(of: "t") == ["c", "a"])
        #expect(ids(h.board, "s1") == ["t", "b"])
        #expect(effect.changes.map { $0.to?.group } == ["t", "t"])
        h.commit(move(["b"], to: .into("t", collection: "c", section: "s1")))
        #expect(h.board.children(of: "t") == ["c", "a", "b"])
        #expect(h.board.position(of: "b") == Position(collection: "c", section: "s1", group: "t", index: 2))
    }

    @Test("R7 cycle: dropping an item into itself is rejected")
    func r7IntoItself() {
        var h = Harness(makeBoard(["s1": ["a", "b"]]))
        h.reject(move(["a"], to: .into("a", collection: "c", section: "s1")), .cycle)
    }

    @Test("R7 cycle: dropping a group into its own descendant is rejected")
    func r7IntoDescendant() {
        var h = Harness(makeBoard(["s1": ["g", "h", "x"]]))
        h.commit(move(["h"], to: .into("g", collection: "c", section: "s1")))
        h.commit(move(["x"], to: .into("h", collection: "c", section: "s1")))
        let r = h.reject(move(["g"], to: .into("x", collection: "c", section: "s1")), .cycle)
        #expect(r?.item == "g")
        #expect(h.board.checkInvariants().isEmpty)
    }

    @Test("R7 a placeholder is never a drop target")
    func r7PlaceholderTarget() {
        var h = Harness(makeBoard(["s1": ["a"]]))
        h.commit(.insertPlaceholder(.init(destination: at("s1", 0))), by: "bob", opId: "p")
        h.reject(move(["a"], to: .into("bob:p:0", collection: "c", section: "s1")), .forbidden)
        let hover = HoverTarget(collection: "c", section: "s1", index: 0, intent: .insertIntoDestinationIndexPath)
        #expect(h.board.proposal(items: ["a"], at: hover).operation == .forbidden)
    }
}
