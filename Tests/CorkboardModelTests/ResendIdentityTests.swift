import CorkboardModel
import Testing

@Suite("R14 a remembered opId answers only a resend of the same operation")
struct ResendIdentityTests {
    @Test("R14: another operation under a used opId is refused conflict and changes nothing")
    func differentOperationIsAConflict() throws {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": []]))
        let first = h.submit(move(["a"], to: at("s2", 0)), opId: "o1")
        #expect(first.committed?.seq == 1)
        let refused = h.reject(move(["b"], to: at("s2", 0)), .conflict, opId: "o1")
        let rejection = try #require(refused)
        #expect(rejection.message.contains("o1"))
        #expect(rejection.message.contains("move"))
        #expect(rejection.field == "opId")
        #expect(ids(h.board, "s1") == ["b"])
        // The conflict is not remembered in place of the first outcome: the resend still gets it.
        #expect(h.submit(move(["a"], to: at("s2", 0)), opId: "o1") == first)
        // Other clients' opIds are their own.
        #expect(h.submit(move(["b"], to: at("s2", 0)), by: "bob", opId: "o1").committed?.seq == 2)
    }

    @Test("R14: a rejected operation's opId is taken too; the same operation resent gets the same rejection")
    func rejectedOperationsAreRemembered() {
        var h = Harness(makeBoard(["s1": ["a"], "s2": []]))
        let gone = h.reject(move(["nope"], to: at("s2", 0)), .gone, opId: "o1")
        #expect(h.submit(move(["nope"], to: at("s2", 0)), opId: "o1") == .rejected(gone!))
        h.reject(move(["a"], to: at("s2", 0)), .conflict, opId: "o1")
        #expect(ids(h.board, "s1") == ["a"])
    }

    @Test("R14: a resend may come from another drag session and the server fills createdAt: still the same operation")
    func serverChosenValuesDoNotCount() {
        var h = Harness(makeBoard(["s1": ["a"], "s2": []]))
        let moved = h.submit(move(["a"], to: at("s2", 0), session: "m1/d1"), opId: "o1")
        #expect(h.submit(move(["a"], to: at("s2", 0), session: "m7/d1"), opId: "o1") == moved)
        #expect(h.submit(move(["a"], to: at("s2", 0)), opId: "o1") == moved)
        let placeholder = h.submit(.insertPlaceholder(.init(destination: at("s1", 0), createdAt: 0)), opId: "p1")
        h.now += 5
        #expect(h.submit(.insertPlaceholder(.init(destination: at("s1", 0), createdAt: 99)), opId: "p1") == placeholder)
        #expect(
            BoardOperation.delete(.init(items: ["a"], session: "x")).isSameOperation(as: .delete(.init(items: ["a"]))))
        #expect(!BoardOperation.delete(.init(items: ["a"])).isSameOperation(as: .moveOut(.init(items: ["a"]))))
    }

    @Test("R14: after a restart from the durable log, a different operation under a replayed opId is a conflict")
    func conflictAfterReplay() throws {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": []]))
        let start = h.sequencer.snapshot
        let committed = try #require(h.submit(move(["a"], to: at("s2", 0)), opId: "o1").committed)
        var restored = try Sequencer(snapshot: start, replaying: [committed])
        let other = ClientOperation(opId: "o1", clientId: "alice", base: 1, op: move(["b"], to: at("s2", 0)))
        #expect(restored.recall(other) != .fresh)
        #expect(restored.submit(other, now: 0).rejection?.code == .conflict)
        let resend = ClientOperation(opId: "o1", clientId: "alice", base: 0, op: move(["a"], to: at("s2", 0)))
        #expect(restored.recall(resend) == .resend(.committed(committed)))
        #expect(restored.head == 1)
    }

    @Test(
        "R14: a rewind to the durable seq forgets later operations and every rejection; earlier outcomes still answer"
    )
    func rewindForgetsWhatWasUndone() throws {
        var h = Harness(makeBoard(["s1": ["a", "b"], "s2": []]))
        let first = try #require(h.submit(move(["a"], to: at("s2", 0)), opId: "o1").committed)
        let durable = h.sequencer.snapshot
        h.reject(move(["nope"], to: at("s2", 0)), .gone, opId: "o2")
        let later = try #require(h.submit(move(["b"], to: at("s2", 0)), opId: "o3").committed)

        h.sequencer.rewind(to: durable)
        #expect(h.sequencer.head == 1)
        #expect(h.board == durable.board)
        #expect(h.sequencer.operations(after: 0) == [first], "the resume log ends at the durable seq")
        let resend = ClientOperation(opId: "o1", clientId: "alice", base: 0, op: move(["a"], to: at("s2", 0)))
        #expect(h.sequencer.recall(resend) == .resend(.committed(first)))
        let rejected = ClientOperation(opId: "o2", clientId: "alice", base: 1, op: move(["nope"], to: at("s2", 0)))
        #expect(h.sequencer.recall(rejected) == .fresh, "a rejection is decided again")
        // The rewound operation, resent, applies again: it never happened.
        let again = h.submit(move(["b"], to: at("s2", 0)), opId: "o3")
        #expect(again == .committed(later))
        #expect(ids(h.board, "s2") == ["b", "a"])
    }

    @Test("R14: recall with a matcher, for a resend that no longer carries the whole operation")
    func recallWithMatcher() {
        var h = Harness(makeBoard(["s1": ["a"], "s2": []]))
        let moved = h.submit(move(["a"], to: at("s2", 0)), opId: "o1")
        #expect(h.sequencer.recall(clientId: "alice", opId: "o1") { _ in true } == .resend(moved))
        if case .conflict(let rejection) = h.sequencer.recall(clientId: "alice", opId: "o1", where: { _ in false }) {
            #expect(rejection.code == .conflict)
        } else {
            Issue.record("a remembered opId that does not match is a conflict")
        }
        #expect(h.sequencer.recall(clientId: "alice", opId: "o2") { _ in true } == .fresh)
    }
}
