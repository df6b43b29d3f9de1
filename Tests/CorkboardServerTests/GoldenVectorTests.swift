import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Foundation
import Testing

/// Golden vectors that keep the browser's board model (`web/js/model/model.js`) applying operations
/// exactly as the Swift model does.
///
/// The Swift model is the reference. This file runs its `Sequencer` on seeded random operations
/// over the demo board (`BoardTemplate.demo`) and records, for each operation tried, either the
/// committed operation with the board after it, or the rejection code. `Tests/js/model.test.mjs`
/// replays the file with model.js and compares boards, effects and rejection codes.
///
/// Without `CORKBOARD_WRITE_GOLDEN=1` the test checks that the committed file is still what the
/// model produces, so the vectors cannot silently drift from the model; with it, the test
/// rewrites the file (`CORKBOARD_WRITE_GOLDEN=1 swift test --filter GoldenVectorTests`).
@Suite("Golden vectors for the browser's model")
struct GoldenVectorTests {
    @Test("Tests/golden/model-vectors.json is what the Swift model produces")
    func vectorsMatchTheModel() throws {
        let generated = GoldenVectors.generate()
        let url = GoldenVectors.fileURL
        if ProcessInfo.processInfo.environment["CORKBOARD_WRITE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(generated.utf8).write(to: url)
            return
        }
        let regenerate = "regenerate it with CORKBOARD_WRITE_GOLDEN=1 swift test --filter GoldenVectorTests"
        guard let committed = FileManager.default.contents(atPath: url.path) else {
            Issue.record("\(url.path) is missing; \(regenerate).")
            return
        }
        if committed == Data(generated.utf8) { return }
        // Same JSON in another layout passes; otherwise name the first sequence and step that differ.
        let old = try JSONSerialization.jsonObject(with: committed) as? NSDictionary
        let new = try JSONSerialization.jsonObject(with: Data(generated.utf8)) as? NSDictionary
        guard let old, let new, old != new else { return }
        Issue.record(
            "\(url.lastPathComponent) is not what the Swift model produces (\(firstDifference(old, new))). If the model changed on purpose, \(regenerate) and check that web/js/model/model.js still passes node --test Tests/js."
        )
    }

    private func firstDifference(_ old: NSDictionary, _ new: NSDictionary) -> String {
        let oldSequences = old["sequences"] as? [NSDictionary] ?? []
        let newSequences = new["sequences"] as? [NSDictionary] ?? []
        for (n, (a, b)) in zip(oldSequences, newSequences).enumerated() where a != b {
            let oldSteps = a["steps"] as? [NSDictionary] ?? []
            let newSteps = b["steps"] as? [NSDictionary] ?? []
            for (k, (x, y)) in zip(oldSteps, newSteps).enumerated() where x != y {
                return "sequence \(n), step \(k)"
            }
            return "sequence \(n)"
        }
        if oldSequences.count != newSequences.count {
            return "\(oldSequences.count) sequences committed, \(newSequences.count) generated"
        }
        return "the representation table or the header"
    }
}

/// The vector file: its location, its parameters and how it is made.
private enum GoldenVectors {
    static let baseSeed: UInt64 = 20_251_125
    static let sequences = 8
    /// Sequences after the first `sequences` that mostly change cards' details (R16).
    static let cardSequences = 6
    static let operationsPerSequence = 40

    static var fileURL: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // CorkboardServerTests
            .deletingLastPathComponent()  // Tests
            .appendingPathComponent("golden/model-vectors.json")
    }

    /// The whole file: one line per step, so a change shows as a readable diff.
    static func generate() -> String {
        var table = RepresentationTable()
        var lines: [String] = []
        for n in 0..<(sequences + cardSequences) {
            let seed = baseSeed &+ UInt64(n)
            var run = VectorRun(seed: seed, cardMix: n >= sequences)
            let initial = CompactBoard(run.sequencer.board, table: &table)
            lines.append(#"{"seed": \#(seed), "initial": \#(json(initial)), "steps": ["#)
            var steps: [String] = []
            for _ in 0..<operationsPerSequence {
                guard let step = run.step() else { continue }
                switch step {
                case .committed(let committed, let board):
                    let compact = CompactBoard(board, table: &table)
                    steps.append(#"{"committed": \#(json(committed)), "board": \#(json(compact))}"#)
                case .rejected(let submitted, let code):
                    steps.append(#"{"rejected": \#(json(submitted)), "code": \#(json(code.rawValue))}"#)
                }
            }
            lines.append(steps.joined(separator: ",\n"))
            lines.append(n == sequences + cardSequences - 1 ? "]}" : "]},")
        }
        let about =
            "Golden vectors for web/js/model/model.js, generated from the Swift model by "
            + "Tests/CorkboardServerTests/GoldenVectorTests.swift (CORKBOARD_WRITE_GOLDEN=1 to regenerate). "
            + "Each sequence starts from `initial`; each step is an operation submitted to the Sequencer at its head: "
            + "`committed` with the `board` after it, or `rejected` (clientId, opId, op) with the rejection `code`. "
            + "Boards are Board JSON whose items carry `representations` as an index into `representations`. "
            + "A board's `trash` lists its Trash entries' ids, oldest first (R15). "
            + "The last sequences mostly change cards' details, labels and comments (R16)."
        let header = [
            #"{"about": \#(json(about)),"#,
            #""representations": ["#,
            table.lists.map { json($0) }.joined(separator: ",\n"),
            "],",
            #""sequences": ["#,
        ]
        return (header + lines + ["]}"]).joined(separator: "\n") + "\n"
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(value), as: UTF8.self)
    }
}

/// Representation lists numbered in the order first seen, so boards repeat an index, not the text.
private struct RepresentationTable {
    var lists: [[Representation]] = []
    var index: [[Representation]: Int] = [:]

    mutating func number(_ list: [Representation]) -> Int {
        if let n = index[list] { return n }
        index[list] = lists.count
        lists.append(list)
        return lists.count - 1
    }
}

/// Board JSON with each item's representations replaced by their number in the table.
private struct CompactBoard: Encodable {
    struct CompactItem: Encodable {
        var id: ItemID
        var representations: Int
        var children: [CompactItem]?
        var placeholder: PlaceholderInfo?
        var version: Int?
        var details: CardDetails?
    }

    struct CompactSection: Encodable {
        var id: SectionID
        var title: String
        var items: [CompactItem]
    }

    struct CompactCollection: Encodable {
        var id: CollectionID
        var title: String
        var layout: Layout
        var accepts: [String]
        var sections: [CompactSection]
    }

    var title: String?
    var labels: [Label]?
    var collections: [CompactCollection]
    /// The Trash's entry ids, oldest first (R15); left out while it is empty.
    var trash: [String]?

    init(_ board: Board, table: inout RepresentationTable) {
        func compact(_ item: Item) -> CompactItem {
            CompactItem(
                id: item.id, representations: table.number(item.representations),
                children: item.children?.map(compact), placeholder: item.placeholder,
                version: item.version > 0 ? item.version : nil, details: item.details)
        }
        title = board.title
        labels = board.labels.isEmpty ? nil : board.labels
        trash = board.trash.entries.isEmpty ? nil : board.trash.entries.map(\.id)
        collections = board.collections.map { c in
            CompactCollection(
                id: c.id, title: c.title, layout: c.layout, accepts: c.accepts,
                sections: c.sections.map { s in CompactSection(id: s.id, title: s.title, items: s.items.map(compact)) })
        }
    }
}

/// One seeded run: random operations of every kind from three clients (and the room's `system`),
/// on stale anchors, vanished items and destinations, so commits and every model rejection occur;
/// clients also undo and redo (R13), which commits the batches, versioned updates and structure
/// operations the server makes.
struct VectorRun {
    enum Step {
        case committed(CommittedOperation, Board)
        case rejected(ClientOperation, RejectCode)
    }

    var rng: SplitMix64
    var sequencer: Sequencer
    var history = UndoHistory(boardTitle: "Geocaches")
    var now = 1_000.0
    var made = 0
    let clients = ["u0", "u1", "u2"]

    /// Whether most operations change cards' details, labels and comments.
    let cardMix: Bool

    init(seed: UInt64, cardMix: Bool = false) {
        self.cardMix = cardMix
        rng = SplitMix64(seed: seed)
        let board = try! Board(collections: BoardTemplate.demo.collections(board: "demo"))
        sequencer = Sequencer(board: board)
    }

    /// Submits one random operation at the head, or an undo or redo; nil when nothing was
    /// sequenced (an undo refused before it became an operation).
    mutating func step() -> Step? {
        now += 0.25
        made += 1
        if chance(12) {
            let client = pick(clients)
            let direction: UndoHistory.Direction = chance(70) ? .undo : .redo
            let answer = history.perform(
                direction, clientId: client, opId: "op\(made)", base: sequencer.head, sequencer: &sequencer, now: now)
            guard case .committed(let committed) = answer else { return nil }
            return .committed(committed, sequencer.board)
        }
        let (client, op) = cardMix && chance(65) ? cardOperation() : randomOperation()
        let envelope = ClientOperation(opId: "op\(made)", clientId: client, base: sequencer.head, op: op)
        // Clients' operations are recorded for their undo; the room's (system) are not.
        let outcome =
            client == ClientIdentity.system
            ? sequencer.submit(envelope, now: now) : history.submit(envelope, to: &sequencer, now: now)
        switch outcome {
        case .committed(let committed): return .committed(committed, sequencer.board)
        case .rejected(let rejection): return .rejected(envelope, rejection.code)
        }
    }

    static let texts = [
        "Bring a flashlight", "Grüße ✓ — «quoted» \"text\" / slash", "Emoji 😀 and tab\tand newline\nend", "",
        "Ferry times, both directions.",
    ]
    private static let typePool = [
        "public.plain-text", "public.url", "public.image", "public.image.png", "corkboard.card", "public.data",
    ]

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &rng)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

    /// Content for an item; mostly of a type the collection accepts (when one is given), so that
    /// commits and updates apply as often as they are refused.
    mutating func representations(in collection: CollectionID? = nil) -> [Representation] {
        let accepts = collection.flatMap { sequencer.board.accepts(of: $0) } ?? []
        if !accepts.isEmpty, chance(75) { return [representation(of: pick(accepts))] }
        return (0..<Int.random(in: 0...2, using: &rng)).map { _ in representation(of: pick(Self.typePool)) }
    }

    mutating func representation(of type: String) -> Representation {
        let value =
            switch type {
            case "public.url": "https://example.com/\(Int.random(in: 0..<100, using: &rng))"
            case "corkboard.card": #"{"name":"Card \#(Int.random(in: 0..<100, using: &rng))"}"#
            default: pick(Self.texts)
            }
        return Representation(type: type, value: value)
    }

    mutating func accepts() -> [String] {
        chance(30) ? [] : Array(Self.typePool.shuffled(using: &rng).prefix(Int.random(in: 1...2, using: &rng)))
    }

    mutating func randomOperation(allowBatch: Bool = true) -> (String, BoardOperation) {
        let board = sequencer.board
        let client = pick(clients)
        var sections: [(CollectionID, SectionID)] = []
        for collection in board.collectionIDs {
            for section in board.sectionIDs(in: collection) ?? [] { sections.append((collection, section)) }
        }
        let items = board.allItemIDs.sorted() + ["ghost"]
        func some() -> [ItemID] {
            Array(items.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)))
        }
        func destination() -> Destination {
            guard !sections.isEmpty, !chance(6) else {
                return Destination(collection: "demo-caches", section: "gone-section", index: 0)
            }
            let (home, section) = pick(sections)
            let collection = chance(4) ? pick(sections).0 : home  // sometimes a section not in the collection
            let list = board.itemIDs(in: section) ?? []
            let index = Int.random(in: 0...(list.count + 1), using: &rng)
            // Anchors as a sender saw them, sometimes stale (any item, or one that vanished).
            let after = index > 0 && index <= list.count ? list[index - 1] : nil
            let before = index < list.count ? list[index] : nil
            return Destination(
                collection: collection, section: section, index: index,
                after: chance(15) ? pick(items) : after, before: chance(15) ? pick(items) : before,
                intent: chance(10) ? .unspecified : .insertAtDestinationIndexPath)
        }
        func into(_ moving: [ItemID] = []) -> Destination {
            let d = destination()
            // Sometimes into one of the items dropped (a cycle).
            let target = !moving.isEmpty && chance(25) ? moving[0] : pick(items)
            return .into(target, collection: d.collection, section: d.section)
        }
        func newItem(depth: Int, in collection: CollectionID) -> NewItem {
            NewItem(
                representations: representations(in: collection),
                children: depth < 2 && chance(25)
                    ? (0..<Int.random(in: 0...2, using: &rng)).map { _ in
                        newItem(depth: depth + 1, in: collection)
                    } : nil)
        }
        // Structure operations name an existing collection or section most of the time, else one
        // that is not there (not-found) or, for creations, a new one.
        func collection(new: Bool = false) -> CollectionID {
            let ids = board.collectionIDs
            if ids.isEmpty || chance(new ? 60 : 15) { return pick(new ? ["demo-extra", "demo-more"] : ["demo-gone"]) }
            return pick(ids)
        }
        func section(new: Bool = false) -> SectionID {
            if sections.isEmpty || chance(new ? 60 : 15) {
                return pick(new ? ["demo-day1", "demo-day2"] : ["gone-section"])
            }
            return pick(sections).1
        }
        if chance(10) {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0:
                return (client, .setLayout(.init(collection: collection(), layout: chance(50) ? .grid : .list)))
            case 1:
                return (client, .renameBoard(.init(title: pick(Self.texts))))
            case 2:
                // R12: an update made on the version the item is at, or on a stale one (conflict).
                let item = pick(items)
                let version = (board.item(item)?.version ?? 0) - (chance(30) ? 1 : 0)
                let home = board.position(of: item)?.collection
                return (
                    client,
                    .updateItem(.init(item: item, representations: representations(in: home), version: version))
                )
            case 3:
                return (
                    client,
                    .createCollection(
                        .init(
                            id: collection(new: true), title: pick(Self.texts), layout: .list, accepts: accepts(),
                            sections: [
                                .init(id: section(new: true), title: "One"), .init(id: "demo-more-s", title: ""),
                            ]))
                )
            default:
                // A batch as the server makes them, whole or refused whole.
                guard allowBatch else { return (client, .renameBoard(.init(title: "Plain"))) }
                var parts: [BoardOperation] = []
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    var (_, part) = randomOperation(allowBatch: false)
                    if case .moveOut(let out) = part { part = .delete(out) }
                    parts.append(part)
                }
                return (client, .batch(.init(ops: parts)))
            }
        }
        if allowBatch, !cardMix, chance(7) {
            // R15: a restore of what the Trash holds (sometimes of an entry that is not there), or
            // now and then the whole Trash emptied.
            if chance(12) { return (client, .emptyTrash(.init())) }
            let entries = board.trash.entries.map(\.id)
            let entry = entries.isEmpty || chance(15) ? "u9:op-gone" : pick(entries)
            return (client, .restore(.init(entry: entry)))
        }
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<26:
            return (client, .move(.init(items: some(), destination: destination())))
        case 26..<33:
            let moving = some()
            return (client, .move(.init(items: moving, destination: into(moving))))
        case 33..<39:
            return (client, .copy(.init(items: some(), destination: chance(20) ? into() : destination())))
        case 39..<47:
            let target = chance(10) ? into() : destination()
            let new = (0..<Int.random(in: 1...2, using: &rng)).map { _ in newItem(depth: 0, in: target.collection) }
            return (client, .insert(.init(items: new, destination: target)))
        case 47..<54:
            return (
                client,
                .insertPlaceholder(
                    .init(
                        destination: chance(8) ? into() : destination(), representations: representations(),
                        createdAt: 0))
            )
        case 54..<62:
            let placeholders = board.placeholders()
            if placeholders.isEmpty, !chance(15) {
                return (
                    client, .insertPlaceholder(.init(destination: destination(), representations: [], createdAt: 0))
                )
            }
            let item = placeholders.isEmpty || chance(10) ? pick(items) : pick(placeholders)
            // Mostly the owner; sometimes another client, or the room's own clean-up.
            let owner = board.item(item)?.placeholder?.owner ?? client
            let by = chance(45) ? pick(clients.filter { $0 != owner }) : owner
            if chance(40) {
                return (chance(15) ? ClientIdentity.system : by, .deletePlaceholder(.init(item: item)))
            }
            let home = board.position(of: item)?.collection
            return (by, .commitPlaceholder(.init(item: item, representations: representations(in: home))))
        case 62..<67:
            return (client, .delete(.init(items: some())))
        case 67..<70:
            return (ClientIdentity.system, .moveOut(.init(items: some())))
        case 70..<75:
            let item = pick(items)
            let home = board.position(of: item)?.collection
            return (client, .updateItem(.init(item: item, representations: representations(in: home))))
        case 75..<78:
            return (
                client,
                .createCollection(
                    .init(
                        id: collection(new: true), title: pick(Self.texts), layout: chance(50) ? .grid : .list,
                        accepts: accepts(), index: chance(30) ? nil : Int.random(in: 0...4, using: &rng)))
            )
        case 78..<80:
            return (client, .renameCollection(.init(collection: collection(), title: pick(Self.texts))))
        case 80..<82:
            return (client, .deleteCollection(.init(collection: collection())))
        case 82..<84:
            return (
                client, .moveCollection(.init(collection: collection(), index: Int.random(in: 0...4, using: &rng)))
            )
        case 84..<87:
            return (client, .setAccepts(.init(collection: collection(), accepts: accepts())))
        case 87..<91:
            return (
                client,
                .createSection(
                    .init(
                        collection: collection(), id: section(new: true), title: pick(Self.texts),
                        index: chance(30) ? nil : Int.random(in: 0...3, using: &rng)))
            )
        case 91..<93:
            return (client, .renameSection(.init(section: section(), title: pick(Self.texts))))
        case 93..<95:
            return (client, .deleteSection(.init(section: section())))
        default:
            return (client, .moveSection(.init(section: section(), index: Int.random(in: 0...3, using: &rng))))
        }
    }
}
