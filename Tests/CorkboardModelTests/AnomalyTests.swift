import CorkboardModel
import CorkboardTesting
import Testing

/// Replays a server's log into a fresh replica from the initial board and returns it.
private func replay(_ initial: Board, _ sequencer: Sequencer) -> Board {
    var board = initial
    for op in sequencer.operations(after: 0)! { #expect(throws: Never.self) { try board.apply(op) } }
    return board
}

@Suite("Anomalies that must never happen")
struct AnomalyTests {
    @Test("Anomaly: no duplicated item after concurrent moves of the same item")
    func noDuplicate() {
        let initial = makeBoard(["s1": ["a", "b"], "s2": ["c"]])
        var h = Harness(initial)
        h.commit(move(["a"], to: at("s2", 0, before: "c")), by: "alice", base: 0)
        h.commit(move(["a"], to: at("s1", 1, after: "b")), by: "bob", base: 0)
        h.commit(move(["a", "b"], to: .into("c", collection: "c", section: "s2")), by: "carol", base: 0)
        #expect(h.board.checkInvariants().isEmpty)
        #expect(ids(h.board, "s1").isEmpty && ids(h.board, "s2") == ["c"])
        #expect(h.board.children(of: "c") == ["a", "b"])
        #expect(replay(initial, h.sequencer) == h.board)
    }

    @Test("Anomaly: no item lost when a move races a delete of the same item")
    func moveVersusDelete() {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": []]))
        h.commit(.delete(.init(items: ["a"])), by: "bob", base: 0)
        h.reject(move(["a"], to: at("s2", 0)), .gone, by: "alice", base: 0)
        // The other order: the move applies, then the delete removes the item where it now is.
        var k = Harness(makeBoard(["s1": ["a", "b"], "s2": []]))
        k.commit(move(["a"], to: at("s2", 0)), by: "alice", base: 0)
        let effect = k.commit(.delete(.init(items: ["a"])), by: "bob", base: 0)
        #expect(effect.changes.first?.from == Position(collection: "c", section: "s2", index: 0))
        #expect(k.board.itemCount == 1 && h.board.itemCount == 1)
    }

    @Test("Anomaly: A dropped after B while B is dropped after A ends in one order on every replica")
    func crossedAnchors() {
        let initial = makeBoard(["s1": ["a", "x", "b", "y"]])
        var h = Harness(initial)
        h.commit(move(["a"], to: at("s1", 2, after: "b", before: "y")), by: "alice", base: 0)
        h.commit(move(["b"], to: at("s1", 1, after: "a", before: "x")), by: "bob", base: 0)
        // Later wins: b lands right after a, wherever a is now.
        #expect(ids(h.board, "s1") == ["x", "a", "b", "y"])
        // Replicas replaying the log agree, and replaying twice from a snapshot does not flip them.
        let first = replay(initial, h.sequencer)
        let second = replay(initial, h.sequencer)
        #expect(first == h.board && second == h.board)
        #expect(ids(first, "s1") == ["x", "a", "b", "y"])
    }

    @Test("Anomaly: a drop anchored to an item that is itself moving elsewhere")
    func anchorMovingElsewhere() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c"], "s2": ["d"]]))
        h.commit(move(["b"], to: at("s2", 0)), by: "bob", base: 0)  // the anchor leaves s1
        h.commit(move(["d"], to: at("s1", 2, after: "b", before: "c")), by: "alice", base: 0)
        #expect(ids(h.board, "s1") == ["a", "d", "c"])
        #expect(ids(h.board, "s2") == ["b"])
    }

    @Test("Anomaly: a stale drop cannot undo someone else's move")
    func staleWriteDoesNotUndo() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c", "d"]]))
        h.commit(move(["a"], to: at("s1", 3, after: "d")), by: "alice", base: 0)  // b c d a
        // Bob, on the old base, reorders c before b; a must stay where Alice put it.
        h.commit(move(["c"], to: at("s1", 1, after: "a", before: "b")), by: "bob", base: 0)
        // c lands right after a (its anchor); a is still after d, where Alice put it.
        #expect(ids(h.board, "s1") == ["b", "d", "a", "c"])
    }

    @Test("Anomaly: an operation is not applied twice after a reconnect")
    func notAppliedTwice() {
        var h = Harness(makeBoard(["s1": ["a"], "s2": []]))
        let insert = BoardOperation.insert(
            .init(items: [NewItem(representations: text("n"))], destination: at("s2", 0)))
        let first = h.submit(insert, by: "bob", opId: "i1", base: 0)
        h.commit(move(["a"], to: at("s2", 0)), by: "alice")
        let resent = h.submit(insert, by: "bob", opId: "i1", base: 0)
        #expect(first == resent && h.sequencer.head == 2)
        #expect(ids(h.board, "s2") == ["a", "bob:i1:0"])
    }

    @Test("Anomaly: no cycle of groups when two users drop two groups into each other")
    func noCycleOfGroups() {
        var h = Harness(makeBoard(["s1": ["g", "h"]]))
        h.commit(move(["g"], to: .into("h", collection: "c", section: "s1")), by: "alice", base: 0)
        h.reject(move(["h"], to: .into("g", collection: "c", section: "s1")), .cycle, by: "bob", base: 0)
        #expect(h.board.children(of: "h") == ["g"])
        #expect(h.board.checkInvariants().isEmpty)
    }

    @Test("Anomaly: a multi-item drop and another drop at the same spot each land contiguously")
    func interleavedDrops() {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": ["p", "q", "r"], "s3": ["x", "y", "z"]]))
        h.commit(move(["p", "q", "r"], to: at("s1", 1, after: "a", before: "b")), by: "alice", base: 0)
        h.commit(move(["x", "y", "z"], to: at("s1", 1, after: "a", before: "b")), by: "bob", base: 0)
        let s1 = ids(h.board, "s1")
        #expect(s1 == ["a", "x", "y", "z", "p", "q", "r", "b"])
        // Each drop's items are adjacent and in drag order.
        for group in [["p", "q", "r"], ["x", "y", "z"]] {
            let start = s1.firstIndex(of: group[0])!
            #expect(Array(s1[start..<start + 3]) == group)
        }
    }

    @Test("Anomaly: replicas never end in different orders (replay equals the server, twice)")
    func replicasAgree() {
        let initial = makeBoard(["s1": ["a", "b", "c", "d"], "s2": ["e"]])
        var h = Harness(initial)
        h.commit(move(["d", "a"], to: at("s2", 1, after: "e")), by: "alice", base: 0)
        h.commit(move(["e"], to: at("s1", 0, before: "b")), by: "bob", base: 0)
        h.commit(.copy(.init(items: ["c"], destination: at("s2", 0))), by: "carol", base: 1)
        var a = ClientReplica(clientId: "x", board: initial)
        var b = ClientReplica(clientId: "y", board: initial)
        for op in h.sequencer.operations(after: 0)! {
            try! a.applyCommitted(op)
            try! b.applyCommitted(op)
            try! b.applyCommitted(op)  // a duplicate delivery is ignored
        }
        #expect(a.view == h.board && b.view == h.board)
    }
}
