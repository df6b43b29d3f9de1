import CorkboardModel
import CorkboardTesting
import Testing

@Suite("Rules R8–R11: placeholders, leases, resume, slow clients")
struct PlaceholderLeaseResumeTests {
    @Test("R8 placeholder: a real item in the order, committed in the place it holds now")
    func r8CommitWhereItIsNow() {
        var h = Harness(makeBoard(["s1": ["a", "b"]]))
        h.now = 50
        let created = h.commit(.insertPlaceholder(.init(destination: at("s1", 1, after: "a"))), by: "bob", opId: "p")
        let ph: ItemID = "bob:p:0"
        #expect(
            created.changes == [ItemChange(item: ph, from: nil, to: Position(collection: "c", section: "s1", index: 1))]
        )
        #expect(h.board.item(ph)?.placeholder == PlaceholderInfo(owner: "bob", createdAt: 50))
        // Others insert around it; it shifts like any item.
        h.commit(.insert(.init(items: [NewItem(id: "x", representations: text("x"))], destination: at("s1", 0))))
        h.commit(
            .insert(.init(items: [NewItem(id: "y", representations: text("y"))], destination: at("s1", 2, after: "a"))))
        #expect(ids(h.board, "s1") == ["x", "a", "y", "bob:p:0", "b"])
        let effect = h.commit(.commitPlaceholder(.init(item: ph, representations: text("done"))), by: "bob")
        #expect(effect.changes.first?.to?.index == 3)
        #expect(
            h.board.item(ph) == Item(id: ph, representations: text("done"), version: 1),
            "R12: committing is the first content change")
        #expect(ids(h.board, "s1") == ["x", "a", "y", "bob:p:0", "b"])
    }

    @Test("R8 placeholder: only the owner commits or deletes it")
    func r8OwnerOnly() {
        var h = Harness(makeBoard(["s1": ["a"]]))
        h.commit(.insertPlaceholder(.init(destination: at("s1", 0))), by: "bob", opId: "p")
        let r = h.reject(.commitPlaceholder(.init(item: "bob:p:0", representations: text("z"))), .notOwner, by: "eve")
        #expect(r?.message.contains("bob") == true)
        h.reject(.deletePlaceholder(.init(item: "bob:p:0")), .notOwner, by: "eve")
        h.reject(.delete(.init(items: ["bob:p:0"])), .notOwner, by: "eve")
        h.commit(.deletePlaceholder(.init(item: "bob:p:0")), by: "bob")
        #expect(ids(h.board, "s1") == ["a"])
        h.reject(.commitPlaceholder(.init(item: "bob:p:0", representations: text("z"))), .gone, by: "bob")
    }

    @Test("R8 placeholder: nobody can drag it or drop into it")
    func r8NoDrag() {
        var h = Harness(makeBoard(["s1": ["a"], "s2": []]))
        h.commit(.insertPlaceholder(.init(destination: at("s1", 0))), by: "bob", opId: "p")
        h.reject(move(["bob:p:0"], to: at("s2", 0)), .forbidden, by: "bob")
        h.reject(.copy(.init(items: ["bob:p:0"], destination: at("s2", 0))), .forbidden)
        var leases = LeaseTable()
        let grant = leases.begin(
            session: "d1", client: "bob", holder: "Bob", items: ["bob:p:0", "a"], on: h.board, now: 0)
        #expect(grant.granted == ["a"])
        #expect(grant.refused.map(\.code) == [.forbidden])
        h.reject(
            .insertPlaceholder(.init(destination: .into("a", collection: "c", section: "s1"))), .invalid, by: "bob")
    }

    @Test("R8 placeholder left behind by a vanished client: the room finds and deletes it")
    func r8VanishedOwner() {
        var h = Harness(makeBoard(["s1": ["a"]]))
        h.now = 10
        h.commit(.insertPlaceholder(.init(destination: at("s1", 0))), by: "bob", opId: "p1")
        h.now = 200
        h.commit(.insertPlaceholder(.init(destination: at("s1", 0))), by: "carol", opId: "p2")
        #expect(h.board.placeholders() == ["bob:p1:0", "carol:p2:0"])
        #expect(h.board.placeholders(ownedBy: "carol") == ["carol:p2:0"])
        // Uncommitted past 5 minutes at t = 320: only bob's (created at 10).
        #expect(h.board.placeholders(createdBefore: 320 - PlaceholderLimits.maximumAge) == ["bob:p1:0"])
        for item in h.board.placeholders(createdBefore: 20) {
            h.commit(.deletePlaceholder(.init(item: item)), by: ClientIdentity.system, opId: "sweep-\(item)")
        }
        // Carol left and did not resume within the grace period.
        for item in h.board.placeholders(ownedBy: "carol") {
            h.commit(.deletePlaceholder(.init(item: item)), by: ClientIdentity.system, opId: "sweep-\(item)")
        }
        #expect(h.board.placeholders().isEmpty)
        #expect(ids(h.board, "s1") == ["a"])
    }

    @Test("R9 leases: dragBegin refuses items held by another session, naming the holder")
    func r9LeaseRefused() {
        let board = makeBoard(["s1": ["a", "b", "c"]])
        var leases = LeaseTable()
        #expect(
            leases.begin(session: "d1", client: "alice", holder: "Alice", items: ["a", "b"], on: board, now: 0).granted
                == ["a", "b"])
        let grant = leases.begin(
            session: "d2", client: "bob", holder: "Bob", items: ["b", "c", "zz"], on: board, now: 1)
        #expect(grant.granted == ["c"])
        #expect(grant.refused.map(\.code) == [.locked, .gone])
        #expect(grant.refused[0].message.contains("Alice"))
        // dragAdd grows a live drag; adding to a dead session is refused.
        #expect(leases.add(session: "d2", items: ["a"], on: board, now: 2).refused.map(\.code) == [.locked])
        #expect(leases.add(session: "nope", items: ["a"], on: board, now: 2).refused.map(\.code) == [.notFound])
        #expect(leases.lease(of: "c")?.items == ["c"])
        #expect(leases.holder(of: "a") == "Alice" && leases.holder(of: "zz") == nil)
    }

    @Test("R9 leases: moving or deleting an item leased to another session is rejected locked")
    func r9Locked() {
        var h = Harness(makeBoard(["s1": ["g", "a", "b"], "s2": []]))
        h.commit(move(["a"], to: .into("g", collection: "c", section: "s1")))
        _ = h.leases.drags.begin(
            session: "d1", client: "alice", holder: "Alice", items: ["a", "b"], on: h.board, now: 0)
        let r = h.reject(move(["b"], to: at("s2", 0), session: "d9"), .locked, by: "bob")
        #expect(r?.message.contains("Alice") == true)
        h.reject(.delete(.init(items: ["b"])), .locked, by: "bob")
        // Deleting the group would delete the leased child.
        h.reject(.delete(.init(items: ["g"])), .locked, by: "bob")
        h.reject(.deleteSection(.init(section: "s1")), .locked, by: "bob")
        h.reject(.deleteCollection(.init(collection: "c")), .locked, by: "bob")
        // The holder's own drop is fine; copies never lock.
        h.commit(.copy(.init(items: ["b"], destination: at("s2", 0))), by: "bob")
        h.commit(move(["b"], to: at("s2", 0), session: "d1"), by: "alice")
        #expect(ids(h.board, "s2") == ["b", "bob:op7:0"])
    }

    @Test("R9 leases end at drop, on disconnect, and after the quiet period")
    func r9LeaseEnds() {
        let board = makeBoard(["s1": ["a", "b", "c"]])
        var leases = LeaseTable()
        _ = leases.begin(session: "d1", client: "alice", holder: "Alice", items: ["a"], on: board, now: 0)
        _ = leases.begin(session: "d2", client: "bob", holder: "Bob", items: ["b"], on: board, now: 0)
        _ = leases.begin(session: "d3", client: "carol", holder: "Carol", items: ["c"], on: board, now: 0)
        #expect(leases.end(session: "d1") == ["a"])
        #expect(leases.end(client: "bob") == ["d2"])
        leases.touch(session: "d3", now: 10)
        #expect(leases.expire(now: 24).isEmpty)
        #expect(leases.expire(now: 25.5) == ["d3"])
        #expect(leases.isEmpty)
        var h = Harness(board)
        h.leases.drags = leases
        h.commit(move(["c"], to: at("s1", 0)), by: "bob")
    }

    @Test("R10 resume: a client gets every operation after its seq, or a snapshot when they are gone")
    func r10Resume() {
        var h = Harness(
            makeBoard(["s1": ["a", "b", "c"]]), configuration: .init(outcomeRetention: 100, logRetention: 3))
        var replica = ClientReplica(clientId: "bob", board: h.board, seq: 0)
        for n in 0..<4 { h.commit(move(["a"], to: at("s1", n % 3))) }
        let missed = h.sequencer.operations(after: 2)!
        #expect(missed.map(\.seq) == [3, 4])
        #expect(h.sequencer.operations(after: 4) == [])
        #expect(h.sequencer.operations(after: 9) == nil)
        for n in 4..<8 { h.commit(move(["b"], to: at("s1", n % 3))) }
        // The log keeps at least the last 3; seq 0 is long gone: resume by snapshot.
        #expect(h.sequencer.operations(after: 0) == nil)
        let snapshot = h.sequencer.snapshot
        replica.reset(board: snapshot.board, seq: snapshot.seq)
        #expect(replica.view == h.board && replica.confirmedSeq == 8)
    }

    @Test("R10 resume: resending an operation after a reconnect applies nothing twice")
    func r10Resend() {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": []]))
        var replica = ClientReplica(clientId: "bob", board: h.board)
        let sent = replica.submitLocal(move(["a"], to: at("s2", 0)), opId: "m1")
        let first = h.sequencer.submit(sent, now: 0)
        // The answer is lost; bob reconnects and resends the same opId.
        h.commit(move(["b"], to: at("s2", 0)), by: "alice")
        let again = h.sequencer.submit(sent, now: 5)
        #expect(first == again)
        #expect(h.sequencer.head == 2)
        #expect(ids(h.board, "s2") == ["b", "a"])
        for op in h.sequencer.operations(after: replica.confirmedSeq)! { try! replica.applyCommitted(op) }
        replica.acknowledge(opId: "m1", outcome: again)
        #expect(replica.pending.isEmpty && replica.view == h.board)
        // A rejected operation resent is rejected again, with the same answer.
        let bad = ClientOperation(opId: "m2", clientId: "bob", base: 0, op: move(["zz"], to: at("s2", 0)))
        #expect(h.sequencer.submit(bad, now: 0) == h.sequencer.submit(bad, now: 1))
        #expect(h.sequencer.outcome(clientId: "bob", opId: "m2")?.rejection?.code == .gone)
    }

    @Test("R10 resume across a server restart: snapshot + log restores dedupe, so a resend applies nothing")
    func r10Restart() throws {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": []]))
        let snapshot = h.sequencer.snapshot
        let sent = ClientOperation(opId: "m1", clientId: "bob", base: 0, op: move(["a"], to: at("s2", 0)))
        let first = h.sequencer.submit(sent, now: 0)
        h.commit(move(["b"], to: at("s2", 0)), by: "alice")
        var restarted = try Sequencer(snapshot: snapshot, replaying: h.sequencer.operations(after: 0)!)
        #expect(restarted.board == h.board && restarted.head == 2)
        #expect(restarted.submit(sent, now: 1) == first)
        #expect(restarted.head == 2 && restarted.board == h.board)
        #expect(restarted.operations(after: 1)?.map(\.seq) == [2])
    }

    @Test("R11 slow client: disconnected far behind, it resumes by snapshot without losing a committed op")
    func r11SlowClient() {
        var h = Harness(makeBoard(["s1": ["a", "b", "c", "d"]]), configuration: .init(logRetention: 2))
        var slow = ClientReplica(clientId: "slow", board: h.board)
        // The slow client's operation reached the server, but it was cut off before hearing back.
        let sent = slow.submitLocal(move(["d"], to: at("s1", 0)), opId: "s1")
        let committed = h.sequencer.submit(sent, now: 0).committed!
        for n in 0..<10 { h.commit(move(["a"], to: at("s1", n % 4)), by: "fast") }
        #expect(h.sequencer.operations(after: 0) == nil)
        let snapshot = h.sequencer.snapshot
        slow.reset(board: snapshot.board, seq: snapshot.seq)
        // It resends what it has not seen acknowledged; the server answers from memory.
        for op in slow.pending { slow.acknowledge(opId: op.opId, outcome: h.sequencer.submit(op, now: 1)) }
        #expect(slow.pending.isEmpty)
        #expect(slow.view == h.board)
        #expect(h.sequencer.head == 11 && committed.seq == 1)
        #expect(ids(h.board, "s1").filter { $0 == "d" }.count == 1)
    }
}
