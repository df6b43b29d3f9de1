import CorkboardModel
import CorkboardTesting
import Testing

/// R18: what a board keeps of the past (resume log, resend memory, undo histories) is bounded by
/// bytes as well as by count, and the resend memory keeps outcomes, never content.
@Suite("Byte bounds (R18)")
struct ByteBoundsTests {
    /// An item of 15 representations of `valueBytes` each (the churn attack's item at 64 KiB).
    static func fatItem(_ valueBytes: Int) -> NewItem {
        NewItem(
            representations: (0..<15).map {
                Representation(type: "public.part-\($0)", value: String(repeating: "x", count: valueBytes))
            })
    }

    /// Inserts a fat item into `s1` and deletes it, `pairs` times, as `client`; returns the
    /// committed operations.
    static func churn(
        _ sequencer: inout Sequencer, pairs: Int, valueBytes: Int, client: String = "c1", from start: Int = 0
    ) -> [CommittedOperation] {
        var committed: [CommittedOperation] = []
        for n in start..<(start + pairs) {
            let insert = ClientOperation(
                opId: "i\(n)", clientId: client, base: sequencer.head,
                op: .insert(BoardOperation.Insert(items: [fatItem(valueBytes)], destination: at("s1", 0))))
            guard case .committed(let inserted) = sequencer.submit(insert, now: 0) else {
                Issue.record("the insert did not commit")
                return committed
            }
            let item = inserted.effect.changes[0].item
            let delete = ClientOperation(
                opId: "d\(n)", clientId: client, base: sequencer.head,
                op: .delete(BoardOperation.Delete(items: [item])))
            guard case .committed(let deleted) = sequencer.submit(delete, now: 0) else {
                Issue.record("the delete did not commit")
                return committed
            }
            committed += [inserted, deleted]
        }
        return committed
    }

    @Test("the resume log holds at most logBytes of operations (its newest always); older resumes get a snapshot")
    func resumeLogBytes() {
        let budget = 1 << 20
        var sequencer = Sequencer(
            board: makeBoard(["s1": []]), configuration: .init(logBytes: budget))
        let committed = Self.churn(&sequencer, pairs: 20, valueBytes: 16 << 10)
        let opBytes = committed[0].estimatedBytes
        #expect(opBytes > 15 * 16 << 10, "the churn's insert holds its 15 values of 16 KiB: \(opBytes)")
        #expect(sequencer.logBytes <= budget, "\(sequencer.logBytes) bytes held")
        #expect(sequencer.logCount >= 2 && sequencer.logCount <= budget / opBytes)
        // Recent operations are served from the log, whole; older ones are not (a snapshot instead).
        let recent = sequencer.operations(after: sequencer.head - 2)
        #expect(recent == Array(committed.suffix(2)))
        #expect(sequencer.operations(after: 0) == nil)

        // Small operations are still bounded by count only.
        var small = Sequencer(board: makeBoard(["s1": []]), configuration: .init(logRetention: 50, logBytes: budget))
        _ = Self.churn(&small, pairs: 100, valueBytes: 8)
        #expect(small.logCount == 50)
        #expect(small.operations(after: small.head - 50)?.count == 50)
    }

    @Test("the newest operation stays in the resume log even when it alone passes logBytes")
    func newestStays() {
        var sequencer = Sequencer(board: makeBoard(["s1": []]), configuration: .init(logBytes: 1))
        _ = Self.churn(&sequencer, pairs: 2, valueBytes: 16 << 10)
        #expect(sequencer.logCount == 1)
        #expect(sequencer.operations(after: sequencer.head - 1)?.count == 1)
    }

    @Test("the resend memory keeps no content: its bytes are the same for tiny and fat operations")
    func resendMemoryKeepsNoContent() {
        var tiny = Sequencer(board: makeBoard(["s1": []]), configuration: .init(logRetention: 2))
        var fat = Sequencer(board: makeBoard(["s1": []]), configuration: .init(logRetention: 2))
        _ = Self.churn(&tiny, pairs: 50, valueBytes: 1)
        _ = Self.churn(&fat, pairs: 50, valueBytes: 16 << 10)
        #expect(tiny.outcomeCount == 100 && fat.outcomeCount == 100)
        #expect(
            fat.outcomeBytes == tiny.outcomeBytes, "content must not count: \(fat.outcomeBytes) vs \(tiny.outcomeBytes)"
        )
        #expect(fat.outcomeBytes < 100 * 4096, "about a few hundred bytes an outcome: \(fat.outcomeBytes)")
    }

    @Test("a resend is answered after its operation left the resume log: same seq, the op without content")
    func resendAfterTheLog() {
        var sequencer = Sequencer(board: makeBoard(["s1": []]), configuration: .init(logRetention: 2))
        let committed = Self.churn(&sequencer, pairs: 5, valueBytes: 1024)
        let head = sequencer.head
        let board = sequencer.board
        // The first insert, resent: long gone from the log.
        let resent = ClientOperation(
            opId: "i0", clientId: "c1", base: 0,
            op: .insert(BoardOperation.Insert(items: [Self.fatItem(1024)], destination: at("s1", 0))))
        guard case .resend(.committed(let answer)) = sequencer.recall(resent) else {
            Issue.record("expected the first outcome again")
            return
        }
        #expect(answer.seq == committed[0].seq && answer.effect.changes == committed[0].effect.changes)
        #expect(answer.op == committed[0].op.withoutContent)
        #expect(sequencer.submit(resent, now: 0) == .committed(answer))
        #expect(sequencer.head == head && sequencer.board == board, "nothing applies twice")
        // The last delete, resent: still in the log, answered whole (the removed item included).
        let last = committed[committed.count - 1]
        let again = ClientOperation(opId: last.opId, clientId: "c1", base: 0, op: last.op)
        #expect(sequencer.recall(again) == .resend(.committed(last)))
        // Another operation under a used opId is refused conflict (R14), content compared by fingerprint.
        let other = ClientOperation(
            opId: "i0", clientId: "c1", base: 0,
            op: .insert(BoardOperation.Insert(items: [Self.fatItem(1025)], destination: at("s1", 0))))
        guard case .conflict(let rejection) = sequencer.recall(other) else {
            Issue.record("expected a conflict")
            return
        }
        #expect(rejection.code == .conflict)
    }

    @Test("the resend memory holds at most outcomeBytes: the oldest outcomes are forgotten first")
    func resendMemoryBytes() {
        let budget = 256 << 10
        var sequencer = Sequencer(board: makeBoard(["s1": []]), configuration: .init(outcomeBytes: budget))
        _ = Self.churn(&sequencer, pairs: 500, valueBytes: 16)
        #expect(sequencer.outcomeBytes <= budget)
        #expect(sequencer.outcomeCount < 1000 && sequencer.outcomeCount > 50)
        #expect(sequencer.outcome(clientId: "c1", opId: "i0") == nil, "the oldest went first")
        #expect(sequencer.outcome(clientId: "c1", opId: "d499") != nil, "the newest stays")
    }

    @Test("a rewind keeps the byte counts true")
    func rewindCounts() {
        var sequencer = Sequencer(board: makeBoard(["s1": []]))
        _ = Self.churn(&sequencer, pairs: 2, valueBytes: 1024)
        let snapshot = sequencer.snapshot
        let logBytes = sequencer.logBytes
        let outcomeBytes = sequencer.outcomeBytes
        _ = Self.churn(&sequencer, pairs: 3, valueBytes: 4096, from: 10)
        sequencer.rewind(to: snapshot)
        #expect(sequencer.logBytes == logBytes && sequencer.outcomeBytes == outcomeBytes)
    }

    @Test("the whole board's undo histories hold at most boardBytes: the oldest steps go, and their clients are told")
    func undoBoardBytes() throws {
        var undoer = Undoer(
            makeBoard(["s1": []]), configuration: UndoHistory.Configuration(boardBytes: 768 << 10))
        var deletedIDs: [ItemID] = []
        for n in 0..<4 {
            for client in ["ada", "bob"] {
                let committed = undoer.commit(
                    .insert(BoardOperation.Insert(items: [Self.fatItem(16 << 10)], destination: at("s1", 0))),
                    by: client)
                let inserted = try #require(committed)
                let item = inserted.effect.changes[0].item
                // An edit's recipe holds the content it replaced (a delete's holds only its Trash
                // entry's id, R15).
                _ = undoer.commit(
                    .updateItem(BoardOperation.UpdateItem(item: item, representations: text("x"))), by: client)
                deletedIDs.append(item)
                #expect(undoer.history.heldBytes <= 768 << 10, "after \(n) rounds: \(undoer.history.heldBytes)")
            }
        }
        // Each delete's recipe holds about 240 KiB; 8 were made, at most 768 KiB are kept.
        let ada = undoer.history.state(of: "ada")
        let bob = undoer.history.state(of: "bob")
        #expect(ada.forgotten > 0 && bob.forgotten > 0)
        #expect(undoer.history.takeTrimmed() == ["ada", "bob"])
        #expect(undoer.history.takeTrimmed().isEmpty)
        // The newest step of each is still there: bob's last edit undoes.
        let undone = undoer.undo(by: "bob")
        #expect(undone != nil)
        #expect(undoer.board.item(deletedIDs.last!)?.representations != text("x"))
        // Counts of steps within the bound are not "forgotten".
        var roomy = Undoer(makeBoard(["s1": []]))
        let roomyInsert = roomy.commit(
            .insert(BoardOperation.Insert(items: [Self.fatItem(1024)], destination: at("s1", 0))))
        let inserted = try #require(roomyInsert)
        _ = roomy.commit(.delete(BoardOperation.Delete(items: [inserted.effect.changes[0].item])))
        #expect(roomy.history.state(of: "ada").forgotten == 0)
    }

    @Test("an undo answer remembered for a resend keeps no content")
    func undoAnswerKeepsNoContent() throws {
        var undoer = Undoer(makeBoard(["s1": []]))
        undoer.sequencer = Sequencer(board: makeBoard(["s1": []]), configuration: .init(logRetention: 1))
        let committed = undoer.commit(
            .insert(BoardOperation.Insert(items: [Self.fatItem(4096)], destination: at("s1", 0))))
        let inserted = try #require(committed)
        _ = undoer.commit(.delete(BoardOperation.Delete(items: [inserted.effect.changes[0].item])))
        let answer = undoer.reverse(.undo, opId: "u1")
        guard case .committed(let restored) = answer else {
            Issue.record("expected the undo to commit, got \(answer)")
            return
        }
        // While the log holds it, a resend gets the whole operation; once it left, the same seq without content.
        #expect(undoer.reverse(.undo, opId: "u1") == .resend(.committed(restored)))
        _ = undoer.commit(
            .insert(BoardOperation.Insert(items: [NewItem(representations: text("x"))], destination: at("s1", 0))),
            by: "bob")
        #expect(undoer.reverse(.undo, opId: "u1") == .resend(.committed(restored.withoutContent)))
    }
}
