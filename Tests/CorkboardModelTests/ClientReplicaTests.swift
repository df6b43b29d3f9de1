import CorkboardModel
import CorkboardTesting
import Testing

@Suite("Client replica")
struct ClientReplicaTests {
    @Test("Pending operations show at once and are rebased over others' commits")
    func optimisticAndRebase() throws {
        let initial = makeBoard(["s1": ["a", "b", "c"], "s2": []])
        var server = Harness(initial)
        var me = ClientReplica(clientId: "me", board: initial)
        let mine = me.submitLocal(move(["c"], to: at("s1", 0, before: "a")), opId: "m1")
        #expect(ids(me.view, "s1") == ["c", "a", "b"])
        #expect(ids(me.confirmed, "s1") == ["a", "b", "c"])
        // Someone else's move commits first; my pending move is re-applied on top of it.
        let other = server.submit(move(["a"], to: at("s2", 0)), by: "you").committed!
        try me.applyCommitted(other)
        #expect(ids(me.view, "s1") == ["c", "b"] && ids(me.view, "s2") == ["a"])
        #expect(me.pending.map(\.opId) == ["m1"])
        let committed = server.sequencer.submit(mine, now: 0).committed!
        try me.applyCommitted(committed)
        #expect(me.pending.isEmpty && me.view == server.board && me.confirmedSeq == 2)
    }

    @Test("A rejected pending operation is dropped and the view returns to the confirmed board")
    func rejectedDropped() {
        var me = ClientReplica(clientId: "me", board: makeBoard(["s1": ["a", "b"]]))
        _ = me.submitLocal(move(["b"], to: at("s1", 0)), opId: "m1")
        _ = me.submitLocal(move(["a"], to: at("s1", 0)), opId: "m2")
        #expect(ids(me.view, "s1") == ["a", "b"])
        me.acknowledge(opId: "m1", outcome: .rejected(Rejection(.locked, "held")))
        #expect(ids(me.view, "s1") == ["a", "b"] && me.pending.map(\.opId) == ["m2"])
        me.reject(opId: "m2")
        #expect(me.pending.isEmpty && me.view == me.confirmed)
    }

    @Test("A pending operation that no longer applies locally stays pending but does not corrupt the view")
    func failingLocallyKept() throws {
        let initial = makeBoard(["s1": ["a", "b"], "s2": []])
        var server = Harness(initial)
        var me = ClientReplica(clientId: "me", board: initial)
        _ = me.submitLocal(move(["a"], to: at("s2", 0)), opId: "m1")
        try me.applyCommitted(server.submit(.delete(.init(items: ["a"])), by: "you").committed!)
        #expect(me.pending.count == 1)
        #expect(me.view == me.confirmed && me.view.checkInvariants().isEmpty)
        #expect(throws: ClientReplica.StreamError.self) {
            var gap = server.submit(move(["b"], to: at("s2", 0)), by: "you").committed!
            gap.seq += 5
            try me.applyCommitted(gap)
        }
    }

    @Test("Placeholders made locally get the id the server will give them")
    func derivedIDsAgree() throws {
        let initial = makeBoard(["s1": ["a"]])
        var server = Harness(initial)
        var me = ClientReplica(clientId: "me", board: initial)
        let sent = me.submitLocal(.insertPlaceholder(.init(destination: at("s1", 1, after: "a"))), opId: "p")
        #expect(me.view.placeholders(ownedBy: "me") == ["me:p:0"])
        _ = me.submitLocal(.commitPlaceholder(.init(item: "me:p:0", representations: text("x"))), opId: "c")
        #expect(me.view.placeholders().isEmpty && me.view.item("me:p:0")?.representations == text("x"))
        try me.applyCommitted(server.sequencer.submit(sent, now: 7).committed!)
        // The server's createdAt differs from the local guess; the view is rebuilt from the server's.
        #expect(me.confirmed.item("me:p:0")?.placeholder?.createdAt == 7)
        try me.applyCommitted(server.sequencer.submit(me.pending[0], now: 8).committed!)
        #expect(me.pending.isEmpty && me.view == server.board)
    }
}
