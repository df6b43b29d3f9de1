import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

@Suite("Snapshots, replay and wire shapes")
struct SnapshotTests {
    @Test("Snapshot at S plus the log after S gives the state at head")
    func snapshotReplay() throws {
        var h = Harness(makeBoard(["s1": ["a", "b", "c"], "s2": []]))
        h.commit(move(["a"], to: at("s2", 0)))
        let snapshot = h.sequencer.snapshot
        h.commit(.copy(.init(items: ["b"], destination: at("s2", 1))), by: "bob")
        h.commit(move(["c"], to: .into("a", collection: "c", section: "s2")))
        h.commit(.createSection(.init(collection: "c", id: "s3", title: "New", index: 0)))
        let decoded = try Snapshot(jsonData: try snapshot.jsonData())
        #expect(decoded == snapshot)
        let replayed = try decoded.replaying(h.sequencer.operations(after: decoded.seq)!)
        #expect(replayed.seq == h.sequencer.head)
        #expect(replayed.board == h.board)
        #expect(replayed.board.sectionIDs(in: "c") == ["s3", "s1", "s2"])
    }

    @Test("a log that does not reach the snapshot without a gap is not used as history, and nothing breaks")
    func historyWithAGapIsIgnored() throws {
        var driver = RandomDriver(board: try templateBoard("b"), seed: 3)
        let ops = driver.commit(10)
        let snapshot = driver.sequencer.snapshot
        var holed = ops
        holed.remove(at: 4)
        let restored = try Sequencer(snapshot: snapshot, replaying: holed)
        #expect(restored.board == snapshot.board)
        #expect(restored.operations(after: 8) == nil, "no resume log from a log with a gap")
        #expect(restored.operations(after: 10) == [])
    }

    @Test("Snapshot of another version fails with a clear error")
    func snapshotVersion() throws {
        let json = #"{"version":2,"seq":0,"board":{"collections":[]}}"#
        #expect(throws: Snapshot.UnsupportedVersion.self) { try Snapshot(jsonData: Data(json.utf8)) }
        #expect(Snapshot.UnsupportedVersion(found: 2).description.contains("version 2"))
    }

    @Test("Wire shapes: ids are strings, operations and outcomes are tagged objects")
    func wireShapes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let op = move(["a"], to: at("s1", 2, after: "x"))
        let json = String(decoding: try encoder.encode(op), as: UTF8.self)
        #expect(json.contains(#""kind":"move""#))
        #expect(json.contains(#""items":["a"]"#))
        #expect(json.contains(#""after":"x""#))
        #expect(json.contains(#""intent":"insertAtDestinationIndexPath""#))
        #expect(try JSONDecoder().decode(BoardOperation.self, from: Data(json.utf8)) == op)
        let rejection = Outcome.rejected(Rejection(.destinationGone, "gone", field: "destination.section"))
        let rjson = String(decoding: try encoder.encode(rejection), as: UTF8.self)
        #expect(
            rjson == #"{"code":"destination-gone","field":"destination.section","kind":"rejected","message":"gone"}"#)
        #expect(try JSONDecoder().decode(Outcome.self, from: Data(rjson.utf8)) == rejection)
        let unknown = #"{"kind":"teleport"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(BoardOperation.self, from: Data(unknown.utf8)) }
    }

    @Test("Wire shapes: a board is the nested tree with string ids; malformed trees are refused")
    func boardShape() throws {
        var h = Harness(makeBoard(["s1": ["g", "a"]]))
        h.commit(move(["a"], to: .into("g", collection: "c", section: "s1")))
        h.now = 5
        h.commit(.insertPlaceholder(.init(destination: at("s1", 1))), by: "bob", opId: "p")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(h.board), as: UTF8.self)
        let expected =
            #"{"collections":[{"accepts":[],"id":"c","layout":"grid","sections":[{"id":"s1","items":["#
            + #"{"children":[{"id":"a","representations":[{"type":"public.plain-text","value":"a"}]}],"id":"g","#
            + #""representations":[{"type":"public.plain-text","value":"g"}]},"#
            + #"{"id":"bob:p:0","placeholder":{"createdAt":5,"owner":"bob"},"representations":[]}],"#
            + #""title":"s1"}],"title":"Main"}]}"#
        #expect(json == expected)
        #expect(try JSONDecoder().decode(Board.self, from: Data(json.utf8)) == h.board)
        let twice =
            #"{"collections":[{"id":"c","title":"","layout":"list","accepts":[],"sections":["#
            + #"{"id":"s","title":"","items":[{"id":"x","representations":[]},{"id":"x","representations":[]}]}]}]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Board.self, from: Data(twice.utf8)) }
        let orphan = [
            BoardCollection(
                id: "c",
                sections: [
                    Section(
                        id: "s",
                        items: [
                            Item(id: "p", placeholder: PlaceholderInfo(owner: "", createdAt: 0))
                        ])
                ])
        ]
        #expect(throws: Rejection.self) { try Board(collections: orphan) }
    }

    @Test("Every operation kind round-trips through JSON")
    func everyKindRoundTrips() throws {
        let d = at("s1", 0)
        let ops: [BoardOperation] = [
            move(["a"], to: d, session: "s"), .copy(.init(items: ["a"], destination: d)),
            .insert(.init(items: [NewItem(representations: text("x"), children: [])], destination: d)),
            .insertPlaceholder(.init(destination: d, createdAt: 3)),
            .commitPlaceholder(.init(item: "p", representations: text("y"))), .deletePlaceholder(.init(item: "p")),
            .delete(.init(items: ["a"])), .moveOut(.init(items: ["a"], session: "s")),
            .updateItem(.init(item: "a", representations: image("i"))),
            .createCollection(.init(id: "k", title: "K", layout: .list, accepts: ["public.url"], index: 0)),
            .renameCollection(.init(collection: "k", title: "L")), .deleteCollection(.init(collection: "k")),
            .moveCollection(.init(collection: "k", index: 1)), .setAccepts(.init(collection: "k", accepts: [])),
            .createSection(.init(collection: "k", id: "s", title: "S", index: nil)),
            .renameSection(.init(section: "s", title: "T")), .deleteSection(.init(section: "s")),
            .moveSection(.init(section: "s", index: 0)),
        ]
        for op in ops {
            let data = try JSONEncoder().encode(ClientOperation(opId: "o", clientId: "c", base: 1, op: op))
            #expect(try JSONDecoder().decode(ClientOperation.self, from: data).op == op, "\(op.kind)")
        }
        #expect(Set(ops.map(\.kind)).count == ops.count)
    }

    @Test("Collections and sections: create, rename, reorder, change accepts, delete")
    func structure() {
        var h = Harness(makeBoard(["s1": ["a"]]))
        h.commit(.createCollection(.init(id: "k", title: "K", layout: .list, index: 0)))
        h.commit(.createSection(.init(collection: "k", id: "k1")))
        h.commit(.createSection(.init(collection: "k", id: "k0", index: 0)))
        h.reject(.createSection(.init(collection: "k", id: "s1")), .duplicateID)
        h.reject(.createCollection(.init(id: "c")), .duplicateID)
        h.reject(.renameSection(.init(section: "zz", title: "x")), .notFound)
        #expect(h.board.collectionIDs == ["k", "c"])
        h.commit(.moveCollection(.init(collection: "k", index: 5)))
        #expect(h.board.collectionIDs == ["c", "k"])
        h.commit(.moveSection(.init(section: "k1", index: 0)))
        #expect(h.board.sectionIDs(in: "k") == ["k1", "k0"])
        h.commit(.renameCollection(.init(collection: "k", title: "Renamed")))
        h.commit(.renameSection(.init(section: "k1", title: "One")))
        h.commit(.setAccepts(.init(collection: "k", accepts: ["public.url"])))
        h.reject(move(["a"], to: at("k1", 0, collection: "k")), .forbidden)
        h.commit(.setAccepts(.init(collection: "k", accepts: [])))
        h.commit(move(["a"], to: at("k1", 0, collection: "k")))
        let effect = h.commit(.deleteCollection(.init(collection: "k")))
        #expect(effect.changes.map(\.item) == ["a"])
        #expect(h.board.collectionIDs == ["c"] && h.board.itemCount == 0)
        let k = h.board.collections.first!
        #expect(k.title == "Main" && k.sections.map(\.id) == ["s1"])
    }

    @Test("updateItem replaces representations, respecting accepts")
    func update() {
        var h = Harness(makeBoard(["s1": ["a"]], accepts: ["public.plain-text", "public.image"]))
        h.commit(.updateItem(.init(item: "a", representations: image("pic"))))
        #expect(h.board.item("a")?.representations == image("pic"))
        h.reject(
            .updateItem(.init(item: "a", representations: [Representation(type: "public.url", value: "u")])), .forbidden
        )
        h.reject(.updateItem(.init(item: "zz", representations: text("z"))), .gone)
    }
}
