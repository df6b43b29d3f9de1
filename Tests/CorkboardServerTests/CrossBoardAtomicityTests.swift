import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// Two demo boards `a` and `z` of one server sharing a fake store, with their rooms running
/// (`run()`), so store completions are handled as they would be in production. Ada is on `a`
/// (conn 1), Zed on `z` (conn 2).
struct StoredBoards {
    let store = ManualStore()
    let sink = RecordingSink()
    let a: Room
    let z: Room
    let registry = RoomRegistry()
    let runs: [Task<Void, Never>]

    init() throws {
        func room(_ id: String, store: ManualStore, sink: RecordingSink, registry: RoomRegistry) throws -> Room {
            let board = try Board(collections: BoardTemplate.demo.collections(board: id))
            let room = Room(
                info: BoardInfo(id: id, title: "Board \(id)"), keys: testKeys, sequencer: Sequencer(board: board),
                sink: sink, registry: registry, store: store, clock: ManualClock(), logger: quietLogger)
            registry.insert(room)
            return room
        }
        a = try room("a", store: store, sink: sink, registry: registry)
        z = try room("z", store: store, sink: sink, registry: registry)
        runs = [a, z].map { room in Task { await room.run() } }
    }

    func stop() async {
        a.stop()
        z.stop()
        for run in runs { await run.value }
    }

    func post(_ room: Room, _ handle: ConnectionHandle, _ message: ClientMessage) {
        room.post(.message(handle, message))
    }

    /// Joins `handle` to `room` as `clientId` and waits for the welcome.
    func join(_ room: Room, _ handle: ConnectionHandle, clientId: String, name: String) async throws {
        room.post(
            .join(handle, ClientMessage.Hello(board: room.info.id, key: "edit-key", name: name, clientId: clientId)))
        try #require(await sink.wait { sink.messages(to: handle).contains { $0.welcome != nil } })
    }

    /// Ada (client `ada`) and Zed (client `zed`) joined.
    func joinBoth() async throws {
        try await join(a, conn(1), clientId: "ada", name: "Ada")
        try await join(z, conn(2), clientId: "zed", name: "Zed")
    }

    /// Ada drags `item` on `a` and drops it at the top of z's caches (R6), the drop made on `base`.
    func moveToZ(_ item: ItemID, session: String, opId: String, base: Int) {
        post(a, conn(1), .dragBegin(.init(session: session, items: [item])))
        post(
            a, conn(1),
            .drop(
                .init(
                    session: session, opId: opId, base: base,
                    destination: Destination(
                        collection: CrossBoardAtomicityTests.zCaches, section: CrossBoardAtomicityTests.zToFind,
                        index: 0),
                    board: "z", key: "edit-key")))
    }

    /// Completes every append handed to the store so far, in order, until `done` holds.
    func completeAppends(until done: () async -> Bool, error: StoreError? = nil) async -> Bool {
        await eventually {
            store.completePending(error: error)
            return await done()
        }
    }

    /// The ack of `opId` on a connection, once it arrived.
    func ack(_ opId: String, on handle: ConnectionHandle) -> ServerMessage.Ack? {
        sink.messages(to: handle).compactMap(\.ack).first { $0.opId == opId }
    }

    /// How many times `item` stands on the two boards together.
    func copies(of item: ItemID) async -> Int {
        (await a.snapshot.board.contains(item) ? 1 : 0) + (await z.snapshot.board.contains(item) ? 1 : 0)
    }
}

@Suite("R14 moves between boards are all or nothing")
struct CrossBoardAtomicityTests {
    static let aCaches = CollectionID("a-caches")
    static let zCaches = CollectionID("z-caches")
    static let zToFind = SectionID("z-to-find")
    static let card = ItemID("a-gc1")

    /// Sends the operation that makes `collection` take only URLs, made on `base`.
    func postNarrowing(
        _ collection: CollectionID, opId: String, base: Int, on room: Room, from handle: ConnectionHandle,
        boards: StoredBoards
    ) {
        boards.post(
            room, handle,
            .submit(
                .init(opId: opId, base: base, op: .setAccepts(.init(collection: collection, accepts: ["public.url"])))))
    }

    /// Makes `collection` take only URLs, and waits until that is committed.
    func narrow(
        _ collection: CollectionID, opId: String, on room: Room, from handle: ConnectionHandle, boards: StoredBoards
    )
        async throws
    {
        postNarrowing(collection, opId: opId, base: await room.head, on: room, from: handle, boards: boards)
        try #require(await boards.completeAppends { boards.ack(opId, on: handle) != nil })
        #expect(boards.ack(opId, on: handle)?.outcome.committed != nil)
    }

    @Test(
        "R14: a destination narrowed while a move's moveOut waits for the store never leaves the item on neither board"
    )
    func raceWithSetAccepts() async throws {
        let boards = try StoredBoards()
        try await boards.joinBoth()
        // The card's own collection stops taking cards after it arrived: no ordinary insert could
        // put it back there.
        try await narrow(Self.aCaches, opId: "narrow-a", on: boards.a, from: conn(1), boards: boards)

        boards.moveToZ(Self.card, session: "d1", opId: "x1", base: 1)
        // The moveOut is with the store; before it is durable, Zed's collection stops taking cards.
        try #require(await boards.store.wait { boards.store.appendedSeqs.count >= 2 })
        postNarrowing(Self.zCaches, opId: "narrow-z", base: 0, on: boards.z, from: conn(2), boards: boards)
        try #require(
            await boards.completeAppends {
                boards.ack("x1", on: conn(1)) != nil && boards.ack("narrow-z", on: conn(2)) != nil
            })

        let ack = try #require(boards.ack("x1", on: conn(1)))
        #expect(await boards.copies(of: Self.card) == 1, "the card stands on exactly one board")
        if ack.outcome.committed != nil {
            #expect(await boards.z.snapshot.board.contains(Self.card), "a committed ack means the card is on z")
        } else {
            #expect(await boards.a.snapshot.board.contains(Self.card), "a rejected ack means the card stayed on a")
        }
        #expect(await boards.a.snapshot.board.checkInvariants().isEmpty)
        #expect(await boards.z.snapshot.board.checkInvariants().isEmpty)
        await boards.stop()
    }

    @Test("R14: both halves of a move go to the store as one append; if it fails, nothing moved on either board")
    func oneTransaction() async throws {
        let boards = try StoredBoards()
        try await boards.joinBoth()
        boards.moveToZ(Self.card, session: "d1", opId: "x1", base: 0)
        try #require(await eventually { !boards.store.appendedSeqs.isEmpty })
        #expect(boards.store.appendedBoards == [["a", "z"]], "one atomic append holds both boards' halves")
        #expect(boards.store.appendedSeqs == [[1, 1]])
        #expect(boards.ack("x1", on: conn(1)) == nil, "no ack before the transaction committed")
        #expect(boards.sink.messages(to: conn(2)).compactMap(\.op).isEmpty, "nothing broadcast before it is durable")

        try #require(await boards.completeAppends(until: { boards.ack("x1", on: conn(1)) != nil }, error: diskFull))
        #expect(boards.ack("x1", on: conn(1))?.outcome.rejectCode == .storeFailed)
        #expect(await boards.a.snapshot.board.contains(Self.card))
        #expect(await boards.copies(of: Self.card) == 1)
        #expect(await boards.a.head == 0)
        #expect(await boards.z.head == 0)
        #expect(boards.sink.messages(to: conn(2)).compactMap(\.op).isEmpty)

        // The rooms work on: the same card moves once the store is healthy again.
        boards.moveToZ(Self.card, session: "d2", opId: "x2", base: 0)
        try #require(await boards.completeAppends { boards.ack("x2", on: conn(1)) != nil })
        let ack = try #require(boards.ack("x2", on: conn(1)))
        #expect(ack.outcome.committed?.opId == "x2@from:a")
        #expect(await boards.z.snapshot.board.itemIDs(in: Self.zToFind)?.first == Self.card)
        #expect(await boards.copies(of: Self.card) == 1)
        #expect(boards.sink.messages(to: conn(2)).compactMap(\.op).map(\.opId) == ["x2@from:a"])
        await boards.stop()
    }

    @Test(
        "R14: moves in opposite directions at once both land: the rooms are held in board-id order, never both waiting")
    func oppositeMoves() async throws {
        let boards = try StoredBoards()
        try await boards.joinBoth()
        let zCard = ItemID("z-gc1")
        boards.moveToZ(Self.card, session: "d1", opId: "x1", base: 0)
        boards.post(boards.z, conn(2), .dragBegin(.init(session: "d2", items: [zCard])))
        boards.post(
            boards.z, conn(2),
            .drop(
                .init(
                    session: "d2", opId: "y1", base: 0,
                    destination: Destination(collection: Self.aCaches, section: SectionID("a-to-find"), index: 0),
                    board: "a", key: "edit-key")))
        try #require(
            await boards.completeAppends {
                boards.ack("x1", on: conn(1)) != nil && boards.ack("y1", on: conn(2)) != nil
            })
        #expect(boards.ack("x1", on: conn(1))?.outcome.committed != nil)
        #expect(boards.ack("y1", on: conn(2))?.outcome.committed != nil)
        #expect(await boards.z.snapshot.board.contains(Self.card))
        #expect(await boards.a.snapshot.board.contains(zCard))
        #expect(await boards.copies(of: Self.card) == 1)
        #expect(await boards.copies(of: zCard) == 1)
        #expect(boards.store.appendedBoards.filter { $0.count == 2 }.count == 2, "each move is one append of both")
        await boards.stop()
    }
}
