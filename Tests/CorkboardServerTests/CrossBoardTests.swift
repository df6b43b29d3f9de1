import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// Two rooms of one server sharing a registry and a sink: Ada (conn 1) on board `a`, Zed (conn 2)
/// on board `z`. The tests send their messages directly (`process`); the rooms' run loops handle
/// what the rooms post each other (a drop between boards is events of both inboxes).
struct TwoBoards {
    let a: RoomHarness
    let z: RoomHarness
    let sink = RecordingSink()
    let runs: [Task<Void, Never>]

    /// Board `z`'s room runs with `zConfiguration` (the defaults unless given).
    init(zConfiguration: RoomConfiguration = RoomConfiguration()) {
        let registry = RoomRegistry()
        let clock = ManualClock()
        a = RoomHarness(board: "a", sink: sink, clock: clock, registry: registry)
        z = RoomHarness(board: "z", configuration: zConfiguration, sink: sink, clock: clock, registry: registry)
        runs = [a.room, z.room].map { room in Task { await room.run() } }
    }

    /// Two boards with Ada joined to `a` (conn 1) and Zed to `z` (conn 2).
    static func joined() async throws -> TwoBoards {
        let boards = TwoBoards()
        try #require(await boards.a.join(conn(1), name: "Ada") != nil)
        try #require(await boards.z.join(conn(2), name: "Zed") != nil)
        return boards
    }

    /// Waits for the ack of `opId` on Ada's connection (the cross-board path runs in the room's tasks).
    func ack(_ opId: String) async -> ServerMessage.Ack? {
        let arrived = await sink.wait { sink.messages(to: conn(1)).contains { $0.ack?.opId == opId } }
        guard arrived else { return nil }
        return sink.messages(to: conn(1)).compactMap(\.ack).first { $0.opId == opId }
    }

    /// Waits for the ack with `ref` on Ada's connection (a resend is answered under the new ref).
    func ack(ref: String) async -> ServerMessage.Ack? {
        let arrived = await sink.wait { sink.messages(to: conn(1)).compactMap(\.ack).contains { $0.ref == ref } }
        guard arrived else { return nil }
        return sink.messages(to: conn(1)).compactMap(\.ack).first { $0.ref == ref }
    }

    /// Waits for a proposal on Ada's connection (another board answers a hover from its own room),
    /// then takes everything she got and returns the first proposal.
    func proposal() async -> ServerMessage.ProposalMessage? {
        guard await sink.wait(until: { sink.messages(to: conn(1)).contains { $0.proposal != nil } }) else { return nil }
        return sink.take(conn(1)).compactMap(\.proposal).first
    }

    /// Ada drops her drag `session` on another board (`z` unless named) at `destination`, with `key`.
    func drop(
        _ session: String, opId: String, at destination: Destination, ref: String? = nil, base: Int = 0,
        copy: Bool? = nil, board: String = "z", key: String? = "edit-key"
    ) async {
        await a.send(
            conn(1),
            .drop(
                .init(
                    ref: ref, session: session, opId: opId, base: base, destination: destination, copy: copy,
                    board: board, key: key)))
    }

    /// Ada's drag `session` hovers over `target` on another board, with `key`.
    func hover(_ session: String, over target: DragTarget, ref: String? = nil, key: String? = nil) async {
        await a.send(conn(1), .dropUpdate(.init(ref: ref, session: session, target: target, key: key)))
    }

    /// A target at `index` of z's found section, on board `board` (z unless named).
    func foundTarget(board: String = "z", index: Int = 0) -> DragTarget {
        DragTarget(board: board, collection: z.found, section: z.foundSection, index: index)
    }
}

@Suite("R6 drops between two boards of one server")
struct CrossBoardTests {
    @Test("R16 + R14: a card's details move with it to another board; a copy there copies them")
    func detailsTravel() async throws {
        let b = try await TwoBoards.joined()
        let (a, z) = (b.a, b.z)
        let urgent = Label(id: "l-urgent", name: "Urgent", color: .red)
        #expect(await a.submit(conn(1), .setLabel(.init(label: urgent)), opId: "l0")?.outcome.committed != nil)
        let details = BoardOperation.UpdateCard(
            item: a.gc(1), description: .init("Bring **tweezers**"), dates: .init(due: 1_765_036_800_000), done: true,
            assign: ["Ada"], addLabels: ["l-urgent"])
        #expect(await a.submit(conn(1), .updateCard(details), opId: "d0")?.outcome.committed != nil)
        let expected = details.applied(to: CardDetails())
        await a.dragBegin(conn(1), "d1", [a.gc(1)])
        await b.drop("d1", opId: "x1", at: z.at(z.found, z.foundSection, 0), ref: "r1")
        #expect(try #require(await b.ack("x1")).outcome.committed != nil)
        #expect(await z.snapshot.board.details(of: a.gc(1)) == expected)
        // The label's definition came along: board z has it now.
        #expect(await z.snapshot.board.labels == [urgent])
        #expect(await a.snapshot.board.details(of: a.gc(1)) == nil)
        await a.dragBegin(conn(1), "d2", [a.gc(2)])
        #expect(
            await a.submit(conn(1), .updateCard(.init(item: a.gc(2), assign: ["Bo"])), opId: "d2u")?.outcome.committed
                != nil)
        await b.drop("d2", opId: "x2", at: z.at(z.found, z.foundSection, 0), ref: "r2", copy: true)
        #expect(try #require(await b.ack("x2")).outcome.committed != nil)
        let copy = try #require(await z.items(z.foundSection).first)
        #expect(copy != a.gc(2))
        #expect(await z.snapshot.board.details(of: copy)?.assignees == ["Bo"])
        #expect(await a.snapshot.board.details(of: a.gc(2))?.assignees == ["Bo"])
    }

    @Test("R6: a move to another board takes the items out here and inserts them there with their ids")
    func moveToOtherBoard() async throws {
        let b = try await TwoBoards.joined()
        let (a, z) = (b.a, b.z)
        await a.dragBegin(conn(1), "d1", [a.gc(1), a.gc(2)])
        let target = b.foundTarget()
        await b.hover("d1", over: target, ref: "u1", key: "edit-key")
        let proposal = try #require(await b.proposal(), "the proposal from the other board arrives")
        #expect(proposal.ref == "u1")
        #expect(proposal.target == target)
        #expect(proposal.proposal.operation == .move)

        await b.drop("d1", opId: "x1", at: z.at(z.found, z.foundSection, 0), ref: "r1")
        let ack = try #require(await b.ack("x1"))
        #expect(ack.board == "z")
        #expect(ack.ref == "r1")
        let committed = try #require(ack.outcome.committed)
        #expect(committed.seq == 1)
        #expect(await z.items(z.foundSection) == [a.gc(1), a.gc(2), z.gc(9), z.gc(10)])
        #expect(await a.items(a.toFind) == (3...8).map(a.gc))
        #expect(await a.snapshot.board.checkInvariants().isEmpty)
        #expect(await z.snapshot.board.checkInvariants().isEmpty)
        // Ada follows board a: she gets its moveOut as an op; Zed gets the insert.
        let adaOps = b.sink.messages(to: conn(1)).compactMap(\.op)
        #expect(adaOps.map(\.op.kind) == ["moveOut"])
        #expect(b.sink.messages(to: conn(2)).compactMap(\.op) == [committed])
        #expect(await a.room.liveDrags.isEmpty)

        // The resend after a reconnect gets the destination's first outcome.
        await b.drop("d1", opId: "x1", at: z.at(z.found, z.foundSection, 0), ref: "r2")
        let resent = await b.ack(ref: "r2")
        #expect(resent != nil)
        #expect(resent?.outcome == ack.outcome)
        #expect(await z.room.head == 1)
        #expect(await a.room.head == 1)
    }

    @Test("R6: a copy to another board inserts fresh items there and leaves the originals")
    func copyToOtherBoard() async throws {
        let b = try await TwoBoards.joined()
        let (a, z) = (b.a, b.z)
        await a.dragBegin(conn(1), "d1", [a.gc(1)])
        await b.drop("d1", opId: "c1", at: z.at(z.found, z.foundSection, 2), copy: true)
        let ack = try #require(await b.ack("c1"))
        // R14: the insert half has its own identity, and the copies' ids derive from it.
        let copy = Board.derivedID(clientId: "client-1", opId: "c1@from:a", n: 0)
        #expect(ack.outcome.committed?.effect.changes.map(\.item) == [copy])
        #expect(await z.items(z.foundSection) == [z.gc(9), z.gc(10), copy])
        #expect(await a.items(a.toFind) == (1...8).map(a.gc))
        #expect(await a.room.head == 0)
        #expect(
            await z.snapshot.board.item(copy)?.representations
                == (await a.snapshot.board.item(a.gc(1)))?.representations)
    }

    @Test("R6: a viewer of board a dropping on board z can only copy")
    func viewerCopies() async throws {
        let b = TwoBoards()
        let (a, z) = (b.a, b.z)
        await a.join(conn(1), key: "view-key")
        await a.dragBegin(conn(1), "v1", [a.gc(1)])
        await b.drop("v1", opId: "v1", at: z.at(z.found, z.foundSection, 0))
        let ack = try #require(await b.ack("v1"))
        #expect(ack.outcome.committed?.op.kind == "insert")
        #expect(await a.items(a.toFind) == (1...8).map(a.gc))
        #expect(await z.items(z.foundSection).count == 3)
    }

    @Test("R5/R6: a drop the other board refuses moves nothing on either board")
    func refusedDropsMoveNothing() async throws {
        let b = try await TwoBoards.joined()
        let (a, z) = (b.a, b.z)
        // Wrong key for z: read-only, items stay.
        await a.dragBegin(conn(1), "d1", [a.gc(1)])
        await b.hover("d1", over: b.foundTarget(), key: "view-key")
        #expect(await b.proposal()?.proposal.operation == .forbidden)
        await b.drop("d1", opId: "k1", at: z.at(z.found, z.foundSection, 0), key: "view-key")
        #expect(await b.ack("k1")?.outcome.rejectCode == .readOnly)
        // A text note into z's card-only caches: forbidden before anything moves out of a.
        await a.dragBegin(conn(1), "d2", [a.note])
        await b.drop("d2", opId: "k2", at: z.at(z.caches, z.toFind, 0))
        #expect(await b.ack("k2")?.outcome.rejectCode == .forbidden)
        #expect(await a.room.head == 0)
        #expect(await z.room.head == 0)
        #expect(await a.items(a.toFind) == (1...8).map(a.gc))
        #expect(await a.items(a.inboxSection) == [a.note])
        #expect(await a.room.liveDrags.isEmpty)

        // An unknown board is an error naming the field.
        await a.dragBegin(conn(1), "d3", [a.gc(1)])
        await b.drop("d3", opId: "k3", at: z.at(z.found, z.foundSection, 0), ref: "r3", board: "nope", key: nil)
        let error = try #require(b.sink.take(conn(1)).compactMap(\.error).first)
        #expect(error.code == .unknownBoard)
        #expect(error.field == "board")
        #expect(error.ref == "r3")
        await b.hover("d3", over: b.foundTarget(board: "nope"))
        #expect(b.sink.take(conn(1)).compactMap(\.proposal).first?.proposal.operation == .cancel)
    }
}

@Suite("R14 each half of a drop across boards has its own identity")
struct CrossBoardIdentityTests {
    @Test("R14: a drop whose opId was already used on the destination still moves the item, once")
    func opIdUsedOnDestination() async throws {
        let b = TwoBoards()
        let (a, z) = (b.a, b.z)
        // Ada follows both boards with one client id, and used opId o1 on z for a note.
        try #require(await a.join(conn(1), name: "Ada", clientId: "ada") != nil)
        try #require(await z.join(conn(3), name: "Ada", clientId: "ada") != nil)
        let note = BoardOperation.insert(
            .init(
                items: [NewItem(representations: [Representation(type: "public.plain-text", value: "hi")])],
                destination: z.at(z.inbox, z.inboxSection, 0)))
        #expect(await z.submit(conn(3), note, opId: "o1")?.outcome.committed?.seq == 1)

        await a.dragBegin(conn(1), "d1", [a.gc(1)])
        await b.drop("d1", opId: "o1", at: z.at(z.found, z.foundSection, 0), ref: "r1")
        let ack = try #require(await b.ack("o1"))
        let committed = try #require(ack.outcome.committed, "the move is its own operation on z: \(ack.outcome)")
        #expect(committed.opId == "o1@from:a")
        #expect(committed.seq == 2)
        #expect(await z.items(z.foundSection).first == a.gc(1))
        #expect(await a.snapshot.board.contains(a.gc(1)) == false)
        #expect(await a.room.head == 1)
    }

    @Test("R14: a resent drop across boards is answered only for the same destination")
    func resentDropMatchesDestination() async throws {
        let b = TwoBoards()
        let (a, z) = (b.a, b.z)
        try #require(await a.join(conn(1), name: "Ada") != nil)
        await a.dragBegin(conn(1), "d1", [a.gc(1)])
        await b.drop("d1", opId: "m1", at: z.at(z.found, z.foundSection, 0))
        let first = try #require(await b.ack("m1"))
        #expect(first.outcome.committed != nil)

        // The same opId for a drop elsewhere is not this drop: conflict, and nothing moves.
        _ = b.sink.take(conn(1))
        await b.drop("d1", opId: "m1", at: z.at(z.caches, z.toFind, 0), ref: "again", base: 1)
        let again = try #require(await b.ack(ref: "again"))
        #expect(again.outcome.rejectCode == .conflict)
        #expect(await z.room.head == 1)
        #expect(await a.room.head == 1)
    }

    @Test("R14: a board that gave itself up cannot tell whether a drop reached it: asked again, never 'fresh'")
    func recallOfABoardGivenUp() async throws {
        let b = try await TwoBoards.joined()
        let (a, z) = (b.a, b.z)
        await a.dragBegin(conn(1), "d1", [a.gc(1)])
        await b.drop("d1", opId: "m1", at: z.at(z.found, z.foundSection, 0))
        #expect(try #require(await b.ack("m1")).outcome.committed != nil)
        let insert = CrossBoardIdentity.movedIn("m1", from: "a")
        let destination = z.at(z.found, z.foundSection, 0)
        guard
            case .resend(let first)? = await z.room.recallMovedIn(
                insert, clientId: "client-1", destination: destination)
        else {
            Issue.record("board z remembers the insert half of the drop")
            return
        }
        #expect(first.committed?.seq == 1)
        // The board goes to another node (a handoff after a failover): this room no longer answers
        // for it. Answering "fresh" would tell the dragger the acknowledged drop never happened.
        await z.process(.relinquish(RoomHandoff(url: "ws://node-b/ws", reason: "moved to node b")))
        #expect(await z.room.recallMovedIn(insert, clientId: "client-1", destination: destination) == nil)
    }

    @Test("R14: a resent drop on the same board is answered only for the same kind and destination")
    func resentDropOnSameBoard() async throws {
        let h = RoomHarness()
        try #require(await h.join(conn(1)) != nil)
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        let first = try #require(await h.drop(conn(1), "d1", opId: "m1", at: h.at(h.found, h.foundSection, 0)))
        #expect(first.outcome.committed != nil)
        let same = try #require(await h.drop(conn(1), "d1", opId: "m1", at: h.at(h.found, h.foundSection, 0), base: 0))
        #expect(same.outcome == first.outcome)
        let elsewhere = try #require(await h.drop(conn(1), "d1", opId: "m1", at: h.at(h.caches, h.toFind, 3), base: 1))
        #expect(elsewhere.outcome.rejectCode == .conflict)
        let copied = try #require(
            await h.drop(conn(1), "d1", opId: "m1", at: h.at(h.found, h.foundSection, 0), copy: true, base: 1))
        #expect(copied.outcome.rejectCode == .conflict)
        #expect(await h.room.head == 1)
    }
}

@Suite("R14 a move into a full board")
struct CrossBoardSizeTests {
    @Test("R14: a move into a board at its size limit is refused too-large and nothing moves on either board")
    func moveIntoFullBoard() async throws {
        // z is exactly as large as its limit allows: any growth is refused.
        let demo = try Board(collections: BoardTemplate.demo.collections(board: "z"))
        let b = TwoBoards(
            zConfiguration: RoomConfiguration(
                sequencer: Sequencer.Configuration(maxSnapshotBytes: demo.estimatedSnapshotBytes)))
        let (a, z) = (b.a, b.z)
        try #require(await a.join(conn(1), name: "Ada") != nil)
        await a.dragBegin(conn(1), "d1", [a.gc(1)])
        await b.drop("d1", opId: "big", at: z.at(z.found, z.foundSection, 0))
        let ack = try #require(await b.ack("big"))
        #expect(ack.outcome.rejectCode == .tooLarge)
        #expect(await a.room.head == 0)
        #expect(await z.room.head == 0)
        #expect(await a.items(a.toFind) == (1...8).map(a.gc))
        #expect(b.sink.messages(to: conn(1)).compactMap(\.op).isEmpty, "no moveOut was sent")
    }
}
