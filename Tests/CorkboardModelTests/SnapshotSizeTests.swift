import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

/// R14: the board's running snapshot-size estimate and the `too-large` refusal.
@Suite("Snapshot size (R14)")
struct SnapshotSizeTests {
    /// Random strings with what JSON escapes: quotes, backslashes, slashes, control characters,
    /// and multi-byte UTF-8.
    static let pieces = [
        "a", "b", "Z", "7", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "é", "漢", "🙂", "\u{2028}",
    ]

    static func randomString(_ rng: inout SplitMix64, maxLength: Int = 40) -> String {
        rng.string(maxLength: maxLength, from: pieces)
    }

    static func randomItem(_ rng: inout SplitMix64, id: inout Int, depth: Int = 0) -> Item {
        id += 1
        let me = ItemID("i\(id)-\(randomString(&rng, maxLength: 4))")
        let representations = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            Representation(
                type: ["public.plain-text", "public.url", "corkboard.card"].randomElement(using: &rng)!,
                value: randomString(&rng))
        }
        if depth == 0, rng.chance(0.1) {
            return Item(
                id: me, representations: representations,
                placeholder: PlaceholderInfo(owner: "c-\(id)", createdAt: Double.random(in: 0...2e9, using: &rng)))
        }
        if depth < 2, rng.chance(0.2) {
            let children = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                randomItem(&rng, id: &id, depth: depth + 1)
            }
            return Item(id: me, representations: representations, children: children)
        }
        guard rng.chance(0.3) else { return Item(id: me, representations: representations) }
        let details = CardDetails(
            description: randomString(&rng, maxLength: 80), descriptionVersion: Int.random(in: 0...99, using: &rng),
            due: rng.chance(0.5) ? Int.random(in: 0...CardLimits.latestDate, using: &rng) : nil,
            start: rng.chance(0.3) ? 0 : nil, datesVersion: Int.random(in: 0...9, using: &rng), done: rng.chance(0.5),
            assignees: (0..<Int.random(in: 0...3, using: &rng)).map { "P\($0)\(randomString(&rng, maxLength: 6))" })
        return Item(id: me, representations: representations, details: details)
    }

    static func randomBoard(_ rng: inout SplitMix64) -> Board {
        var id = 0
        var sectionNumber = 0
        let collections = (0..<Int.random(in: 0...4, using: &rng)).map { c in
            BoardCollection(
                id: CollectionID("c\(c)"), title: randomString(&rng), layout: rng.chance(0.5) ? .grid : .list,
                accepts: (0..<Int.random(in: 0...2, using: &rng)).map { _ in randomString(&rng, maxLength: 8) },
                sections: (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                    sectionNumber += 1
                    return Section(
                        id: SectionID("s\(sectionNumber)"), title: randomString(&rng),
                        items: (0..<Int.random(in: 0...8, using: &rng)).map { _ in randomItem(&rng, id: &id) })
                })
        }
        return try! Board(collections: collections)
    }

    /// Elements that each may carry a byte or two of slack: collections, sections, items and
    /// representations, and placeholders (their time's longest form).
    static func slack(_ board: Board) -> Int {
        var elements = 0
        var placeholders = 0
        func visit(_ item: Item) {
            elements += 1 + item.representations.count
            if item.placeholder != nil { placeholders += 1 }
            item.children?.forEach(visit)
        }
        for collection in board.collections {
            elements += 1 + collection.accepts.count
            for section in collection.sections {
                elements += 1
                section.items.forEach(visit)
            }
        }
        return 2 * elements + 24 * placeholders + 32
    }

    @Test("The estimate is an upper bound of the encoded snapshot, within a few bytes per element", arguments: 0..<40)
    func estimateBoundsEncoding(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let board = Self.randomBoard(&rng)
        let snapshot = Snapshot(seq: Int.random(in: 0...1_000_000_000, using: &rng), board: board)
        let escaped = try JSONEncoder().encode(snapshot).count
        let wire = JSONEncoder()
        wire.outputFormatting = .withoutEscapingSlashes
        let unescaped = try wire.encode(snapshot).count
        let estimate = board.estimatedSnapshotBytes
        #expect(estimate >= escaped, "seed \(seed)")
        #expect(estimate >= unescaped, "seed \(seed)")
        #expect(estimate - escaped <= Self.slack(board), "seed \(seed): \(estimate) for \(escaped) bytes")
    }

    @Test("A big board's estimate is within 1% of its JSON")
    func bigBoardIsClose() throws {
        var rng = SplitMix64(seed: 99)
        let items = (0..<2000).map { n in
            Item(
                id: ItemID("card-\(n)"),
                representations: [
                    Representation(type: "public.plain-text", value: Self.randomString(&rng, maxLength: 2000))
                ])
        }
        let board = try Board(collections: [BoardCollection(id: "c", sections: [Section(id: "s", items: items)])])
        let real = try JSONEncoder().encode(Snapshot(seq: 7, board: board)).count
        #expect(board.estimatedSnapshotBytes >= real)
        #expect(Double(board.estimatedSnapshotBytes) <= Double(real) * 1.01)
    }

    /// A random operation on the board, valid or not.
    static func randomOperation(_ board: Board, _ rng: inout SplitMix64, counter: Int) -> BoardOperation {
        let items = board.allItemIDs.sorted()
        let collections = board.collectionIDs
        let sections = collections.flatMap { c in (board.sectionIDs(in: c) ?? []).map { (c, $0) } }
        func destination() -> Destination {
            guard let (c, s) = sections.randomElement(using: &rng) else {
                return Destination(collection: "none", section: "none", index: 0)
            }
            if rng.chance(0.2), let target = items.randomElement(using: &rng) {
                return Destination(
                    collection: c, section: s, index: 0, intent: .insertIntoDestinationIndexPath, target: target)
            }
            return Destination(collection: c, section: s, index: Int.random(in: 0...5, using: &rng))
        }
        func some() -> [ItemID] { items.isEmpty ? ["gone"] : [items.randomElement(using: &rng)!] }
        var id = counter * 1000
        switch Int.random(in: 0..<16, using: &rng) {
        case 0: return .move(BoardOperation.Move(items: some(), destination: destination()))
        case 1: return .copy(BoardOperation.Copy(items: some(), destination: destination()))
        case 2:
            let new = (0..<Int.random(in: 1...3, using: &rng)).map { _ -> NewItem in
                var item = NewItem(Self.randomItem(&rng, id: &id, depth: 1))
                item.id = nil
                return item
            }
            return .insert(BoardOperation.Insert(items: new, destination: destination()))
        case 3:
            var d = destination()
            d.intent = .insertAtDestinationIndexPath
            d.target = nil
            return .insertPlaceholder(
                BoardOperation.InsertPlaceholder(
                    destination: d, representations: [Representation(type: "public.plain-text", value: "up")],
                    createdAt: 0))
        case 4:
            let placeholder = board.placeholders().randomElement(using: &rng) ?? "gone"
            return .commitPlaceholder(
                BoardOperation.CommitPlaceholder(
                    item: placeholder,
                    representations: [Representation(type: "public.plain-text", value: Self.randomString(&rng))]))
        case 5:
            return .deletePlaceholder(
                BoardOperation.DeletePlaceholder(item: board.placeholders().randomElement(using: &rng) ?? "gone"))
        case 6: return .delete(BoardOperation.Delete(items: some()))
        case 7:
            return .updateItem(
                BoardOperation.UpdateItem(
                    item: some()[0],
                    representations: [Representation(type: "public.url", value: Self.randomString(&rng, maxLength: 80))]
                ))
        case 8:
            return .createCollection(
                BoardOperation.CreateCollection(
                    id: CollectionID("nc\(counter)"), title: Self.randomString(&rng), layout: .list,
                    accepts: rng.chance(0.5) ? [] : ["public"], index: 0))
        case 9:
            return .renameCollection(
                BoardOperation.RenameCollection(
                    collection: collections.randomElement(using: &rng) ?? "none", title: Self.randomString(&rng)))
        case 10:
            return .deleteCollection(
                BoardOperation.DeleteCollection(collection: collections.randomElement(using: &rng) ?? "none"))
        case 11:
            return .setAccepts(
                BoardOperation.SetAccepts(
                    collection: collections.randomElement(using: &rng) ?? "none",
                    accepts: rng.chance(0.7) ? [] : [Self.randomString(&rng, maxLength: 6)]))
        case 12:
            return .createSection(
                BoardOperation.CreateSection(
                    collection: collections.randomElement(using: &rng) ?? "none", id: SectionID("ns\(counter)"),
                    title: Self.randomString(&rng), index: 0))
        case 13:
            return .renameSection(
                BoardOperation.RenameSection(
                    section: sections.randomElement(using: &rng)?.1 ?? "none", title: Self.randomString(&rng)))
        case 14:
            return .deleteSection(
                BoardOperation.DeleteSection(section: sections.randomElement(using: &rng)?.1 ?? "none"))
        default:
            return .moveSection(
                BoardOperation.MoveSection(section: sections.randomElement(using: &rng)?.1 ?? "none", index: 1))
        }
    }

    @Test(
        "The running estimate equals a recount after every operation, and growth bounds the change",
        arguments: 0..<12)
    func incrementalEstimate(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var sequencer = Sequencer(board: Self.randomBoard(&rng))
        var commits = 0
        for step in 0..<300 {
            let board = sequencer.board
            let op = Self.randomOperation(board, &rng, counter: step)
            let clientId = rng.chance(0.5) ? "alice" : "bob"
            let growth = board.snapshotGrowth(of: op, clientId: clientId, opId: "op\(step)")
            // The size R14 limits: the board without its Trash (R15, bounded on its own).
            let before = board.limitedSnapshotBytes
            let outcome = sequencer.submit(
                ClientOperation(opId: "op\(step)", clientId: clientId, base: sequencer.head, op: op), now: 1e9)
            let after = sequencer.board.limitedSnapshotBytes
            let recount = try Board(collections: sequencer.board.collections).limitedSnapshotBytes
            #expect(after == recount, "seed \(seed) step \(step): \(op.kind) left \(after), a recount says \(recount)")
            if outcome.committed != nil {
                commits += 1
                #expect(after - before <= max(growth, 0), "seed \(seed) step \(step): \(op.kind) grew past its bound")
            } else {
                #expect(after == before)
            }
            let real = try JSONEncoder().encode(sequencer.snapshot).count
            // The whole estimate, Trash included, bounds the real snapshot.
            #expect(sequencer.board.estimatedSnapshotBytes >= real, "seed \(seed) step \(step)")
        }
        #expect(commits > 30)
    }

    @Test("An insert that would pass the limit is refused too-large, naming the limit; nothing changes")
    func tooLargeRefusal() throws {
        var harness = Harness(makeBoard(["s": ["a", "b"]]), configuration: .init(maxSnapshotBytes: 64 << 10))
        let value = String(repeating: "x", count: 10_000)
        func insert() -> BoardOperation {
            .insert(BoardOperation.Insert(items: [NewItem(representations: text(value))], destination: at("s", 0)))
        }
        var inserted = 0
        while case .committed = harness.submit(insert()) { inserted += 1 }
        #expect(inserted == 6)
        #expect(harness.board.estimatedSnapshotBytes <= 64 << 10)
        let refused = harness.reject(insert(), .tooLarge)
        let rejection = try #require(refused)
        #expect(rejection.message.contains("64 KiB"), "\(rejection.message)")
        #expect(rejection.message.contains("65536 bytes"), "\(rejection.message)")
        #expect(rejection.message.contains("--max-board-bytes"), "\(rejection.message)")
        // Growth in other shapes is refused too; moves and removals never are.
        harness.reject(
            .updateItem(BoardOperation.UpdateItem(item: "a", representations: text(value + value))), .tooLarge)
        harness.reject(
            .renameSection(BoardOperation.RenameSection(section: "s", title: value)), .tooLarge)
        harness.commit(move(["a"], to: at("s", 3)))
        harness.commit(.delete(BoardOperation.Delete(items: ["b"])))
        let first = try #require(harness.board.itemIDs(in: "s")?.first { $0 != "a" })
        harness.commit(.delete(BoardOperation.Delete(items: [first])))
        harness.commit(insert())
    }

    @Test("A board over a lowered limit still shrinks and moves; the room's own operations pass")
    func overTheLimit() throws {
        let big = makeBoard(["s": (0..<50).map { "item-\($0)" }])
        var harness = Harness(big, configuration: .init(maxSnapshotBytes: 1024))
        #expect(big.estimatedSnapshotBytes > 1024)
        harness.commit(move(["item-1"], to: at("s", 10)))
        harness.commit(.delete(BoardOperation.Delete(items: ["item-2"])))
        harness.reject(
            .insert(BoardOperation.Insert(items: [NewItem(representations: text("more"))], destination: at("s", 0))),
            .tooLarge)
        harness.commit(
            .insert(BoardOperation.Insert(items: [NewItem(representations: text("back"))], destination: at("s", 0))),
            by: ClientIdentity.system)
    }

    @Test("The default limit is 64 MiB")
    func defaultLimit() {
        #expect(Sequencer.Configuration().maxSnapshotBytes == 64 * 1024 * 1024)
        #expect(SnapshotSize.defaultLimit == 67_108_864)
        #expect(SnapshotSize.describe(64 << 20) == "64 MiB")
        #expect(SnapshotSize.describe(1536) == "1.5 KiB")
        #expect(SnapshotSize.describe(900) == "900 bytes")
    }
}
