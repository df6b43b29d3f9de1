import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardTesting
import Foundation
import Testing

/// Moves between two boards of one server over real sockets, with the SQLite store (R6, R14): a
/// move is all or nothing whatever races it, its two halves have their own identities, and a
/// randomized mix with structure edits keeps every card on exactly one board.
@Suite("R14 moves between boards over sockets")
struct CrossBoardMoveTests {
    static let (a, z) = (DemoIDs(board: "a"), DemoIDs(board: "z"))

    @Test("R14: moves racing setAccepts on the destination, from a collection that no longer takes cards, lose nothing")
    func racesWithStructureEdits() async throws {
        try await withServer([.demo("a"), .demo("z")], durable: true) { server in
            let ada = try await server.connect("a", name: "Ada")
            let zed = try await server.connect("z", name: "Zed")
            let (roomA, roomZ) = (try server.room("a"), try server.room("z"))
            // Ada's caches stop taking cards after they arrived: nothing could put a card back there.
            let narrowed = try await ada.perform(.setAccepts(.init(collection: Self.a.caches, accepts: ["public.url"])))
            #expect(narrowed.committed != nil)
            let cards = ["corkboard.card"]
            let urls = ["public.url"]
            var outcomes: [String: Int] = [:]
            for number in 1...8 {
                let card = Self.a.gc(number)
                _ = try await ada.beginDrag(session: "d\(number)", items: [card])
                let destination = Destination(collection: Self.z.caches, section: Self.z.toFind, index: 0)
                // Zed narrows his caches while Ada's card is on its way (and widens them again after).
                async let drop = ada.drop(
                    session: "d\(number)", destination: destination, board: "z", key: BoardSpec.editKey("z"))
                async let narrow = zed.perform(.setAccepts(.init(collection: Self.z.caches, accepts: urls)))
                let (ack, narrowing) = try await (drop, narrow)
                #expect(narrowing.committed != nil)
                let onA = await roomA.snapshot.board.contains(card)
                let onZ = await roomZ.snapshot.board.contains(card)
                #expect(onA != onZ, "card \(number) stands on exactly one board (on a: \(onA), on z: \(onZ))")
                switch ack.outcome {
                case .committed: #expect(onZ, "a committed ack means the card is on z")
                case .rejected(let rejection):
                    #expect(onA, "a rejected ack (\(rejection.code.rawValue)) means the card is still on a")
                }
                outcomes[ack.outcome.committed == nil ? "rejected" : "committed", default: 0] += 1
                #expect(
                    try await zed.perform(.setAccepts(.init(collection: Self.z.caches, accepts: cards))).committed
                        != nil)
            }
            print("moves racing setAccepts: \(outcomes)")
            try await expectInStep(ada, with: roomA)
            try await expectInStep(zed, with: roomZ)
        }
    }

    @Test("R14: a drop whose opId one client already used on the destination board moves the card, once")
    func opIdUsedOnDestination() async throws {
        try await withServer([.demo("a"), .demo("z")], durable: true) { server in
            let ada = try await server.connect("a", name: "Ada")
            let clientId = try #require(ada.clientId)
            // The same client follows z too, with the same client id, and used opId "shared" there.
            let adaOnZ = try await server.client.connect(
                BoardConnection.Options(
                    url: server.url, board: "z", key: BoardSpec.editKey("z"), name: "Ada", clientId: clientId,
                    timeout: .seconds(10), recordsHistory: true, liveness: TestServer.liveness))
            let note = BoardOperation.insert(
                .init(
                    items: [NewItem(representations: [Representation(type: "public.plain-text", value: "hello")])],
                    destination: Destination(collection: Self.z.inbox, section: Self.z.inboxSection, index: 0)))
            #expect(try await adaOnZ.perform(note, opId: "shared").committed?.seq == 1)

            _ = try await ada.beginDrag(session: "d1", items: [Self.a.gc(1)])
            let ack = try await ada.drop(
                session: "d1",
                destination: Destination(collection: Self.z.found, section: Self.z.foundSection, index: 0),
                board: "z", key: BoardSpec.editKey("z"), opId: "shared")
            let committed = try #require(ack.outcome.committed, "\(ack.outcome)")
            #expect(committed.opId == "shared@from:a")
            #expect(committed.op.kind == "insert")
            let (roomA, roomZ) = (try server.room("a"), try server.room("z"))
            #expect(await roomZ.snapshot.board.itemIDs(in: Self.z.foundSection)?.first == Self.a.gc(1))
            #expect(await roomA.snapshot.board.contains(Self.a.gc(1)) == false)
            try await expectInStep(ada, with: roomA)
            try await expectInStep(adaOnZ, with: roomZ)
        }
    }

    @Test("R14: random moves between two boards mixed with setAccepts, deleteSection and deleteCollection on both")
    func randomizedMovesAndStructure() async throws {
        let seed = randomizedSeed("cross-board randomized")
        try await withServer([.demo("a"), .demo("z")], durable: true) { server in
            // Observers submit nothing, so they receive every operation of their board as `op`.
            let watchA = try await server.connect("a", name: "Watcher A")
            let watchZ = try await server.connect("z", name: "Watcher Z")
            var actors: [CrossBoardActor] = []
            for number in 0..<8 {
                let (home, away) = number % 2 == 0 ? ("a", "z") : ("z", "a")
                actors.append(
                    CrossBoardActor(
                        connection: try await server.connect(home, name: "Actor \(number)"),
                        awayView: number % 2 == 0 ? watchZ : watchA, away: away,
                        random: SplitMix64(seed: seed &+ UInt64(number) &* 0x9E37_79B9)))
            }
            let tally = try await withThrowingTaskGroup(of: [String: Int].self) { group in
                for actor in actors {
                    group.addTask {
                        var actor = actor
                        try await actor.run(actions: 25)
                        return actor.tally
                    }
                }
                return try await group.reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
            }
            print("cross-board randomized seed \(seed): \(tally.sorted { $0.key < $1.key })")
            #expect(tally["move committed", default: 0] > 0, "some moves went through")

            let (roomA, roomZ) = (try server.room("a"), try server.room("z"))
            try await expectInStep(watchA, with: roomA)
            try await expectInStep(watchZ, with: roomZ)
            let boardA = await roomA.snapshot.board
            let boardZ = await roomZ.snapshot.board
            // Every card the boards started with stands on exactly one board, unless an operation
            // deleted it (a deleted section or collection takes its cards with it).
            var deleted = Set<ItemID>()
            for watcher in [watchA, watchZ] {
                for committed in watcher.received({ if case .op(let c) = $0 { c } else { nil } }) {
                    guard
                        ["delete", "deleteSection", "deleteCollection", "deletePlaceholder"].contains(committed.op.kind)
                    else { continue }
                    for change in committed.effect.changes where change.to == nil { deleted.insert(change.item) }
                }
            }
            for board in ["a", "z"] {
                let ids = DemoIDs(board: board)
                for item in (1...10).map(ids.gc) + [ids.note] {
                    let places = (boardA.contains(item) ? 1 : 0) + (boardZ.contains(item) ? 1 : 0)
                    #expect(
                        places + (deleted.contains(item) ? 1 : 0) == 1,
                        "\(item): on a \(boardA.contains(item)), on z \(boardZ.contains(item)), deleted \(deleted.contains(item))"
                    )
                }
            }
            #expect(boardA.checkInvariants().isEmpty)
            #expect(boardZ.checkInvariants().isEmpty)
        }
    }
}

/// One client of the randomized test: on its home board it moves cards to the other board and
/// edits the structure (accepts, sections, collections), always waiting for each answer.
struct CrossBoardActor: Sendable {
    let connection: BoardConnection
    /// A connection following the other board, to pick destinations that exist there (mostly).
    let awayView: BoardConnection
    let away: String
    var random: SplitMix64
    var tally: [String: Int] = [:]

    mutating func run(actions: Int) async throws {
        for number in 0..<actions {
            let roll = random.next() % 100
            let board = connection.replica.confirmed
            if roll < 50 {
                try await moveAway(board, session: "s\(number)")
            } else if roll < 80 {
                try await submit("setAccepts", setAccepts(board))
            } else if roll < 87 {
                try await submit("createSection", createSection(board, number: number))
            } else if roll < 92 {
                try await createCollection(number: number)
            } else if roll < 97 {
                try await submit("deleteSection", deleteSection(board))
            } else {
                try await submit("deleteCollection", deleteCollection(board))
            }
        }
    }

    private mutating func pick<T>(_ values: [T]) -> T? {
        values.isEmpty ? nil : values[Int(random.next() % UInt64(values.count))]
    }

    /// A move of one or two cards to a random section of the other board (the demo ids, some of
    /// which may be gone by now: then the drop is refused and nothing moves).
    private mutating func moveAway(_ board: Board, session: String) async throws {
        let items = board.collectionIDs.flatMap { collection in
            (board.sectionIDs(in: collection) ?? []).flatMap { board.itemIDs(in: $0) ?? [] }
        }
        guard let first = pick(items) else { return }
        let second = random.next() % 3 == 0 ? pick(items.filter { $0 != first }) : nil
        let granted = try await connection.beginDrag(session: session, items: [first] + (second.map { [$0] } ?? []))
        guard !granted.granted.isEmpty else {
            tally["lease refused", default: 0] += 1
            connection.endDrag(session: session)
            return
        }
        // Mostly a section the other board has now; sometimes a demo section it may have deleted.
        let there = awayView.replica.confirmed
        var places = there.collectionIDs.flatMap { c in (there.sectionIDs(in: c) ?? []).map { (c, $0) } }
        if places.isEmpty || random.next() % 10 == 0 {
            let other = DemoIDs(board: away)
            places = [(other.caches, other.toFind), (other.found, other.foundSection)]
        }
        guard let (collection, section) = pick(places) else {
            connection.endDrag(session: session)
            return
        }
        let ack = try await connection.drop(
            session: session,
            destination: Destination(collection: collection, section: section, index: Int(random.next() % 4)),
            board: away, key: BoardSpec.editKey(away))
        count("move", ack.outcome)
    }

    private mutating func setAccepts(_ board: Board) -> BoardOperation? {
        guard let collection = pick(board.collectionIDs) else { return nil }
        let choices: [[String]] = [[], ["corkboard.card"], ["public.url"], ["public.url"], ["public.plain-text"]]
        return .setAccepts(.init(collection: collection, accepts: pick(choices) ?? []))
    }

    private var prefix: String {
        "\(connection.options.board)-\(connection.options.name.replacingOccurrences(of: " ", with: ""))"
    }

    private mutating func createSection(_ board: Board, number: Int) -> BoardOperation? {
        guard let collection = pick(board.collectionIDs) else { return nil }
        return .createSection(.init(collection: collection, id: SectionID("\(prefix)-s\(number)")))
    }

    /// A new collection with one section, taking anything.
    private mutating func createCollection(number: Int) async throws {
        let collection = CollectionID("\(prefix)-c\(number)")
        try await submit("createCollection", .createCollection(.init(id: collection, title: "C\(number)")))
        try await submit(
            "createSection", .createSection(.init(collection: collection, id: SectionID("\(prefix)-cs\(number)"))))
    }

    private mutating func deleteSection(_ board: Board) -> BoardOperation? {
        let sections = board.collectionIDs.flatMap { board.sectionIDs(in: $0) ?? [] }
        return pick(sections).map { .deleteSection(.init(section: $0)) }
    }

    private mutating func deleteCollection(_ board: Board) -> BoardOperation? {
        pick(board.collectionIDs).map { .deleteCollection(.init(collection: $0)) }
    }

    private mutating func submit(_ label: String, _ op: BoardOperation?) async throws {
        guard let op else { return }
        count(label, try await connection.perform(op))
    }

    private mutating func count(_ label: String, _ outcome: Outcome) {
        switch outcome {
        case .committed: tally["\(label) committed", default: 0] += 1
        case .rejected(let rejection): tally["\(label) \(rejection.code.rawValue)", default: 0] += 1
        }
    }
}
