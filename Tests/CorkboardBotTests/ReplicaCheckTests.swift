import CorkboardClient
import CorkboardModel
import Testing

@testable import CorkboardBots

/// The end-of-run comparison must catch every way a replica can differ from the server's snapshot:
/// without these, a bot run that "passes" would prove nothing.
@Suite("Replica check")
struct ReplicaCheckTests {
    /// A small board: two sections of two collections.
    static func board() throws -> Board {
        try Board(collections: [
            BoardCollection(
                id: "left", sections: [Section(id: "l", items: [Item(id: "a"), Item(id: "b"), Item(id: "c")])]),
            BoardCollection(id: "right", sections: [Section(id: "r", items: [Item(id: "d")])]),
        ])
    }

    static func move(_ item: ItemID, to section: SectionID, in collection: CollectionID, index: Int) -> BoardOperation {
        .move(
            BoardOperation.Move(
                items: [item], destination: Destination(collection: collection, section: section, index: index)))
    }

    @Test("a replica equal to the snapshot at the same seq is clean")
    func equalReplicaIsClean() throws {
        let snapshot = Snapshot(seq: 7, board: try Self.board())
        let replica = ClientReplica(clientId: "c1", board: try Self.board(), seq: 7)
        let verdict = ReplicaCheck.compare("bot 1", replica: replica, with: snapshot)
        #expect(verdict.isClean, "\(verdict)")
    }

    @Test("an item in another place is a divergence naming the section")
    func movedItemDiverges() throws {
        var server = try Self.board()
        _ = try server.apply(Self.move("a", to: "l", in: "left", index: 2), clientId: "c2", opId: "o1")
        let snapshot = Snapshot(seq: 8, board: server)
        let replica = ClientReplica(clientId: "c1", board: try Self.board(), seq: 8)
        let verdict = ReplicaCheck.compare("bot 1", replica: replica, with: snapshot)
        #expect(verdict.divergences.count == 1)
        let message = try #require(verdict.divergences.first)
        #expect(message.contains("section l holds [a, b, c] here, [b, c, a] on the server"), "\(message)")
        #expect(verdict.invariantViolations.isEmpty)
    }

    @Test("an item in another collection, or with other content, is a divergence")
    func otherCollectionOrContentDiverges() throws {
        var moved = try Self.board()
        _ = try moved.apply(Self.move("d", to: "l", in: "left", index: 0), clientId: "c2", opId: "o1")
        let across = ReplicaCheck.compare(
            "bot 2", replica: ClientReplica(clientId: "c1", board: try Self.board(), seq: 3),
            with: Snapshot(seq: 3, board: moved))
        #expect(across.divergences.count == 1)

        var updated = try Self.board()
        _ = try updated.apply(
            .updateItem(
                BoardOperation.UpdateItem(item: "b", representations: [Representation(type: "t", value: "v")])),
            clientId: "c2", opId: "o2")
        let content = ReplicaCheck.compare(
            "bot 3", replica: ClientReplica(clientId: "c1", board: try Self.board(), seq: 3),
            with: Snapshot(seq: 3, board: updated))
        #expect(content.divergences.first?.contains("item b in section l has other content") == true)
    }

    @Test("another seq, an unanswered operation or a stream problem is a divergence")
    func seqPendingAndStreamProblemsDiverge() throws {
        let snapshot = Snapshot(seq: 5, board: try Self.board())
        let behind = ReplicaCheck.compare(
            "bot 1", replica: ClientReplica(clientId: "c1", board: try Self.board(), seq: 4), with: snapshot)
        #expect(behind.divergences == ["bot 1 is at seq 4, the snapshot at seq 5"])

        var pending = ClientReplica(clientId: "c1", board: try Self.board(), seq: 5)
        _ = pending.submitLocal(Self.move("a", to: "r", in: "right", index: 0), opId: "p1")
        let unanswered = ReplicaCheck.compare("bot 1", replica: pending, with: snapshot)
        #expect(unanswered.divergences.count == 1)
        #expect(unanswered.divergences.first?.contains("1 unanswered operation(s): move p1") == true)

        let reset = ReplicaCheck.compare(
            "bot 1", replica: ClientReplica(clientId: "c1", board: try Self.board(), seq: 5),
            streamProblems: ["Committed seq 3 does not apply here"], with: snapshot)
        #expect(reset.divergences.count == 1)
    }

    @Test("a failed check fails the summary, and the JSON says so")
    func summaryFailsOnDivergence() throws {
        var check = FleetCheck.Report()
        check.seq = 9
        check.compared = 2
        let clean = BotSummary(
            seed: 1, url: "ws://x/ws", board: "demo", bots: 2, durationSeconds: 1, elapsedSeconds: 1,
            interruptedBy: nil, tally: BotTally(), errorsReceived: 0, messagesReceived: 0, resumes: 0, lostBots: [],
            check: check, badInputEnabled: false)
        #expect(clean.passed)
        var diverged = clean
        diverged.check.divergences = ["bot 1 is at seq 8, the snapshot at seq 9"]
        #expect(!diverged.passed)
        #expect(diverged.json().contains(#""divergences" : 1"#))
        #expect(diverged.text(brief: true).hasPrefix("FAIL: 1 divergence(s)"))
        var unchecked = clean
        unchecked.check.seq = nil
        #expect(!unchecked.passed, "a run whose replicas were never compared must not pass")
    }
}
