import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Foundation
import Testing

/// R14: a snapshot cut into `snapshotPart` messages and put back together.
@Suite("Snapshots in parts")
struct SnapshotPartTests {
    static let pieces = ["a", "b", " ", "\"", "\\", "/", "\n", "\u{02}", "é", "🙂"]

    static func text(_ rng: inout SplitMix64, _ length: Int) -> String { rng.string(maxLength: length, from: pieces) }

    static func item(_ rng: inout SplitMix64, _ next: inout Int, depth: Int) -> Item {
        next += 1
        let id = ItemID("i\(next)")
        let representations = (0..<Int.random(in: 0...2, using: &rng)).map { _ in
            Representation(type: "public.plain-text", value: text(&rng, 300))
        }
        if depth == 0, rng.chance(0.1) {
            return Item(
                id: id, representations: representations,
                placeholder: PlaceholderInfo(owner: "c-1", createdAt: Double.random(in: 0...2e9, using: &rng)))
        }
        if depth < 3, rng.chance(0.25) {
            return Item(
                id: id, representations: representations,
                children: (0..<Int.random(in: 0...6, using: &rng)).map { _ in item(&rng, &next, depth: depth + 1) })
        }
        return Item(id: id, representations: representations, details: details(&rng))
    }

    /// Card details (R16) on a third of the cards, each field set or left at its default.
    static func details(_ rng: inout SplitMix64) -> CardDetails? {
        guard rng.chance(0.35) else { return nil }
        return CardDetails(
            description: rng.chance(0.5) ? text(&rng, 200) : "", descriptionVersion: Int.random(in: 0...3, using: &rng),
            due: rng.chance(0.5) ? Int.random(in: 0...CardLimits.latestDate, using: &rng) : nil,
            start: rng.chance(0.3) ? 0 : nil, datesVersion: Int.random(in: 0...2, using: &rng), done: rng.chance(0.5),
            assignees: (0..<Int.random(in: 0...3, using: &rng)).map { "P\($0) \(text(&rng, 8))" },
            labels: [[], ["l1"], ["l2", "l1"]][Int.random(in: 0...2, using: &rng)],
            comments: (0..<Int.random(in: 0...2, using: &rng)).map {
                CardComment(
                    id: CommentID("c:\($0)"), author: "c", name: text(&rng, 10), at: $0 * 1000,
                    text: "x" + text(&rng, 100),
                    version: $0)
            })
    }

    static func board(seed: UInt64) throws -> Board {
        var rng = SplitMix64(seed: seed)
        var next = 0
        var sectionNumber = 0
        return try Board(
            collections: (0..<Int.random(in: 0...4, using: &rng)).map { c in
                BoardCollection(
                    id: CollectionID("c\(c)"), title: text(&rng, 20), layout: c % 2 == 0 ? .grid : .list,
                    accepts: c % 3 == 0 ? [] : ["public.plain-text", "corkboard.card"],
                    sections: (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                        sectionNumber += 1
                        return Section(
                            id: SectionID("s\(sectionNumber)"), title: text(&rng, 20),
                            items: (0..<Int.random(in: 0...12, using: &rng)).map { _ in item(&rng, &next, depth: 0) })
                    })
            },
            labels: seed % 2 == 0
                ? [] : [Label(id: "l1", name: "One", color: .red), Label(id: "l2", name: "", color: .sky)])
    }

    /// Decodes every part with the client codec and assembles them.
    static func reassemble(_ encoding: SnapshotEncoding) throws -> Snapshot {
        var assembler = SnapshotAssembler(encoding.descriptor)
        for part in encoding.parts {
            guard case .snapshotPart(let decoded) = try WireCodec.decodeServerMessage(part.bytes) else {
                Issue.record("a part decoded as another message: \(part.text.prefix(80))")
                continue
            }
            try assembler.add(decoded, bytes: part.bytes.count)
        }
        #expect(assembler.isComplete)
        #expect(assembler.progress == 1)
        return try assembler.snapshot()
    }

    @Test("Random boards cut into small parts decode and reassemble to the same snapshot", arguments: 0..<40)
    func roundTrip(seed: UInt64) throws {
        let snapshot = Snapshot(seq: Int(seed) * 7, board: try Self.board(seed: seed))
        for partBytes in [1024, 4096, 1 << 20] {
            let encoding = SnapshotEncoding(snapshot, partBytes: partBytes)
            #expect(encoding.descriptor.parts == encoding.parts.count)
            #expect(encoding.bytes == encoding.parts.map(\.bytes.count).reduce(0, +))
            // A part ends at the first element boundary past the target: one leaf element at most.
            for part in encoding.parts { #expect(part.bytes.count <= partBytes + 4096, "seed \(seed)") }
            #expect(try Self.reassemble(encoding) == snapshot, "seed \(seed) parts of \(partBytes)")
        }
    }

    @Test("A group whose children span parts continues in group entries")
    func bigGroup() throws {
        let children = (0..<300).map {
            Item(id: ItemID("child\($0)"), representations: [.init(type: "t", value: "v\($0)")])
        }
        let group = Item(id: "g", representations: [], children: [Item(id: "inner", children: children)])
        let board = try Board(
            collections: [
                BoardCollection(id: "c", sections: [Section(id: "s", items: [group, Item(id: "after")])]),
                BoardCollection(id: "d", sections: [Section(id: "t", items: [Item(id: "last")])]),
            ])
        let encoding = SnapshotEncoding(Snapshot(seq: 3, board: board), partBytes: 1024)
        #expect(encoding.parts.count > 5)
        let texts = encoding.parts.map(\.text)
        #expect(texts.contains { $0.contains(#"{"group":"inner","items":["#) })
        #expect(texts.contains { $0.contains(#"{"section":"s","items":[{"id":"after""#) })
        #expect(texts.first?.hasPrefix(#"{"type":"snapshotPart","seq":3,"part":0,"append":[{"collections":["#) == true)
        #expect(try Self.reassemble(encoding).board == board)
    }

    @Test("An empty board is one part with nothing to append")
    func emptyBoard() throws {
        let encoding = SnapshotEncoding(Snapshot(seq: 0, board: Board()), partBytes: 1024)
        #expect(encoding.parts.map(\.text) == [#"{"type":"snapshotPart","seq":0,"part":0,"append":[]}"#])
        #expect(try Self.reassemble(encoding).board == Board())
    }

    @Test("A small board's one part, byte for byte: ids first, version and placeholder only when set")
    func smallBoardBytes() throws {
        let board = sampleBoard
        let encoding = SnapshotEncoding(Snapshot(seq: 4, board: board), partBytes: 1024)
        #expect(
            encoding.parts.map(\.text) == [
                #"{"type":"snapshotPart","seq":4,"part":0,"append":[{"collections":[{"id":"c","title":"Cards","layout":"list","accepts":["public.plain-text"],"sections":[{"id":"s","title":"Top","items":[{"id":"a","representations":[{"type":"public.plain-text","value":"A \"q\""}],"version":2},{"id":"g","representations":[],"children":[{"id":"b","representations":[]}]},{"id":"p","representations":[],"placeholder":{"owner":"c-1","createdAt":12.5}}]},{"id":"t","title":"","items":[]}]}]}]}"#
            ])
        #expect(try Self.reassemble(encoding).board == board)
    }

    @Test("The assembler refuses parts of another seq, out of order, or naming unknown parents")
    func refusals() throws {
        let items = (0..<100).map { Item(id: ItemID("i\($0)"), representations: [.init(type: "t", value: "\($0)")]) }
        let board = try Board(collections: [BoardCollection(id: "c", sections: [Section(id: "s", items: items)])])
        let encoding = SnapshotEncoding(Snapshot(seq: 9, board: board), partBytes: 1024)
        let parts = try encoding.parts.map { part -> ServerMessage.SnapshotPart in
            let message = try WireCodec.decodeServerMessage(part.bytes)
            guard case .snapshotPart(let decoded) = message else { throw ProtocolError(.badJSON, "not a part") }
            return decoded
        }
        try #require(parts.count > 2)
        var assembler = SnapshotAssembler(encoding.descriptor)
        #expect(throws: SnapshotAssembler.Failure.self) { try assembler.add(parts[1]) }
        var other = parts[0]
        other.seq = 8
        #expect(throws: SnapshotAssembler.Failure.self) { try assembler.add(other) }
        #expect(throws: SnapshotAssembler.Failure.self) { try assembler.snapshot() }
        var fresh = SnapshotAssembler(encoding.descriptor)
        let orphan = ServerMessage.SnapshotPart(seq: 9, part: 0, append: [.items(section: "nowhere", [])])
        #expect(throws: SnapshotAssembler.Failure.self) { try fresh.add(orphan) }
    }

    @Test("Parts and the descriptor round-trip through the Codable types")
    func codable() throws {
        let part = ServerMessage.snapshotPart(
            .init(
                seq: 4, part: 1,
                append: [
                    .collections([BoardCollection(id: "c")]), .sections(collection: "c", [Section(id: "s")]),
                    .items(section: "s", [Item(id: "g", children: [])]), .children(group: "g", [Item(id: "x")]),
                ]))
        let encoded = WireCodec.encode(part)
        #expect(try WireCodec.decodeServerMessage(encoded.bytes) == part)
        #expect(!encoded.isEphemeral)
        let synced = ServerMessage.synced(
            .init(ref: "r", head: 4, snapshot: nil, ops: nil, snapshotParts: .init(seq: 4, parts: 2, bytes: 900)))
        #expect(try WireCodec.decodeServerMessage(WireCodec.encode(synced).bytes) == synced)
    }
}
