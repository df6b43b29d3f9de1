import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardTesting
import Foundation
import Testing

/// Many clients doing random drags and drops at once over real sockets: every replica must end
/// equal to the room's board (semantics.md "Ordered operations", R1, R2, R9, R10).
@Suite("Randomized end to end")
struct RandomizedTests {
    @Test("8 clients × 40 random operations converge on the room's board")
    func randomClientsConverge() async throws {
        let seed = randomizedSeed("randomized end-to-end")
        try await withServer([.demo("r")]) { server in
            var clients: [BoardConnection] = []
            for number in 0..<8 { clients.append(try await server.connect("r", name: "Bot \(number)")) }
            let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
                for (number, connection) in clients.enumerated() {
                    group.addTask {
                        var bot = Bot(
                            connection: connection, random: SplitMix64(seed: seed &+ UInt64(number) &* 0x9E37_79B9))
                        try await bot.run(operations: 40)
                        return bot.tally
                    }
                }
                return try await group.reduce(into: Tally()) { $0.add($1) }
            }
            print("randomized end-to-end seed \(seed): \(tallies)")
            #expect(tallies.committed > 0)

            let room = try server.room("r")
            for connection in clients { try await expectInStep(connection, with: room) }
            let snapshot = await room.snapshot
            for connection in clients {
                let replica = connection.replica
                #expect(replica.view == snapshot.board, "no pending operation is left on \(connection.options.name)")
            }
            // R1: the ten cards and the note are still there exactly once unless deleted.
            #expect(snapshot.board.checkInvariants().isEmpty)
            #expect(snapshot.board.placeholders().isEmpty, "every bot committed or deleted its placeholders")
        }
    }
}

/// What the bots did, for the log line.
struct Tally: Sendable, CustomStringConvertible {
    var committed = 0
    var rejected: [RejectCode: Int] = [:]
    var refusedLeases = 0
    var resumes = 0

    mutating func count(_ outcome: Outcome) {
        switch outcome {
        case .committed: committed += 1
        case .rejected(let rejection): rejected[rejection.code, default: 0] += 1
        }
    }

    mutating func add(_ other: Tally) {
        committed += other.committed
        rejected.merge(other.rejected, uniquingKeysWith: +)
        refusedLeases += other.refusedLeases
        resumes += other.resumes
    }

    var description: String {
        let codes = rejected.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
        return "\(committed) committed, rejected [\(codes.joined(separator: ", "))], "
            + "\(refusedLeases) lease refusals, \(resumes) resumes"
    }
}

/// One random client: drags (single, multi with adds, copies, into items), plain moves, pipelined
/// submits, cancelled drags, placeholders, deletes and resumes, on items it sees in its own view,
/// with a bias to a few hot items so drags collide.
struct Bot {
    let connection: BoardConnection
    var random: SplitMix64
    var tally = Tally()

    init(connection: BoardConnection, random: SplitMix64) {
        self.connection = connection
        self.random = random
    }

    mutating func run(operations: Int) async throws {
        for _ in 0..<operations {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<30: try await drag(adding: false, copy: false)
            case 30..<42: try await drag(adding: true, copy: false)
            case 42..<48: try await drag(adding: false, copy: true)
            case 48..<60: try await plainMove()
            case 60..<68: try await pipelinedMoves()
            case 68..<74: try await cancelledDrag()
            case 74..<84: try await placeholder()
            case 84..<88: try await delete()
            case 88..<94: try await resume()
            default: await Task.yield()
            }
        }
    }

    // MARK: Choices

    var board: Board { connection.replica.view }

    /// Items worth dragging: not placeholders; half the time one of the four hot cards.
    mutating func pickItems(_ count: Int) -> [ItemID] {
        let view = board
        let all = view.allItemIDs.filter { !view.isPlaceholder($0) }.sorted()
        let hot = (1...4).map { ItemID("r-gc\($0)") }.filter(view.contains)
        var picked: [ItemID] = []
        for _ in 0..<count {
            let pool = !hot.isEmpty && Bool.random(using: &random) ? hot : all
            if let item = pool.randomElement(using: &random), !picked.contains(item) { picked.append(item) }
        }
        return picked
    }

    /// A destination in the current view: a gap with its anchors, or sometimes into an item.
    mutating func pickDestination(avoiding moving: [ItemID]) -> Destination? {
        let view = board
        guard let collection = view.collectionIDs.randomElement(using: &random),
            let section = view.sectionIDs(in: collection)?.first
        else { return nil }
        if Int.random(in: 0..<100, using: &random) < 15, let target = pickItems(1).first,
            let position = view.position(of: target)
        {
            // Any item, nested ones too: dropping a group into its own descendant is a cycle (R7).
            return .into(target, collection: position.collection, section: position.section)
        }
        let list = (view.itemIDs(in: section) ?? []).filter { !moving.contains($0) }
        let index = Int.random(in: 0...list.count, using: &random)
        return Destination(
            collection: collection, section: section, index: index, after: index > 0 ? list[index - 1] : nil,
            before: index < list.count ? list[index] : nil)
    }

    mutating func target(_ destination: Destination) -> DragTarget {
        DragTarget(
            collection: destination.collection, section: destination.section, index: destination.index,
            intent: destination.intent)
    }

    // MARK: Actions

    mutating func drag(adding: Bool, copy: Bool) async throws {
        let session = connection.makeSessionID()
        let begin = try await connection.beginDrag(
            session: session, items: pickItems(Int.random(in: 1...2, using: &random)))
        tally.refusedLeases += begin.refused.count
        var granted = begin.granted
        guard !granted.isEmpty else { return }
        if adding {
            let added = try await connection.addToDrag(session: session, items: pickItems(2))
            tally.refusedLeases += added.refused.count
            granted = added.granted.isEmpty ? granted : granted + added.granted.filter { !granted.contains($0) }
        }
        guard let destination = pickDestination(avoiding: granted) else {
            connection.endDrag(session: session)
            return
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            _ = try await connection.hover(session: session, target: target(destination), copy: copy)
        }
        let ack = try await connection.drop(session: session, destination: destination, copy: copy)
        tally.count(ack.outcome)
    }

    mutating func plainMove() async throws {
        let items = pickItems(Int.random(in: 1...2, using: &random))
        guard !items.isEmpty, let destination = pickDestination(avoiding: items) else { return }
        tally.count(try await connection.perform(.move(BoardOperation.Move(items: items, destination: destination))))
    }

    /// Several submits without waiting, then the acks of all of them.
    mutating func pipelinedMoves() async throws {
        var sent: [String] = []
        for _ in 0..<Int.random(in: 2...4, using: &random) {
            let items = pickItems(1)
            guard !items.isEmpty, let destination = pickDestination(avoiding: items) else { continue }
            sent.append(try connection.submit(.move(BoardOperation.Move(items: items, destination: destination))))
        }
        try await connection.wait("the pipelined submits are answered") { [sent] state in
            !state.replica.pending.contains { sent.contains($0.opId) }
        }
    }

    mutating func cancelledDrag() async throws {
        let session = connection.makeSessionID()
        let begin = try await connection.beginDrag(session: session, items: pickItems(1))
        guard !begin.granted.isEmpty, let destination = pickDestination(avoiding: begin.granted) else { return }
        _ = try await connection.hover(session: session, target: target(destination))
        connection.endDrag(session: session)
    }

    mutating func placeholder() async throws {
        let opId = connection.makeOpID()
        let insert = try await connection.perform(
            .insertPlaceholder(
                BoardOperation.InsertPlaceholder(
                    destination: Destination(
                        collection: "r-inbox", section: "r-inbox",
                        index: Int.random(in: 0...3, using: &random)),
                    representations: [Representation(type: "public.plain-text", value: "…")])),
            opId: opId)
        tally.count(insert)
        guard insert.committed != nil, let clientId = connection.clientId else { return }
        let item = Board.derivedID(clientId: clientId, opId: opId, n: 0)
        let finish: BoardOperation =
            Bool.random(using: &random)
            ? .commitPlaceholder(
                BoardOperation.CommitPlaceholder(
                    item: item, representations: [Representation(type: "public.plain-text", value: "note \(opId)")]))
            : .deletePlaceholder(BoardOperation.DeletePlaceholder(item: item))
        tally.count(try await connection.perform(finish))
    }

    mutating func delete() async throws {
        let items = pickItems(1).filter { $0 != "r-note1" }
        guard !items.isEmpty else { return }
        tally.count(try await connection.perform(.delete(BoardOperation.Delete(items: items))))
    }

    /// Drops the link, maybe makes an operation offline, and resumes (R10).
    mutating func resume() async throws {
        connection.disconnect()
        tally.resumes += 1
        let items = pickItems(1)
        if Bool.random(using: &random), !items.isEmpty, let destination = pickDestination(avoiding: items) {
            _ = try connection.submit(.move(BoardOperation.Move(items: items, destination: destination)))
        }
        try await connection.resume()
        try await connection.settle()
    }
}
