import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

@Suite("R12 edits: versions and edit leases")
struct EditTests {
    @Test("R12: an update names the version it was made on; a stale one is refused conflict and changes nothing")
    func versions() throws {
        var h = Harness(undoBoard())
        #expect(h.board.item("a")?.version == 0)
        h.commit(.updateItem(.init(item: "a", representations: card("Card A2"), version: 0)))
        #expect(h.board.item("a")?.version == 1)
        // Bob's editor opened on version 0 too: his save is refused and the board keeps Ada's text.
        let refused = h.reject(
            .updateItem(.init(item: "a", representations: card("Bob's A"), version: 0)), .conflict, by: "bob")
        let stale = try #require(refused)
        #expect(stale.message.hasPrefix("“Card A2” changed while you were editing it"), "\(stale.message)")
        #expect(stale.message.contains("your text is kept"))
        #expect(stale.item == "a")
        #expect(h.board.item("a")?.representations == card("Card A2"))
        // Made on the version it is at now, it applies; without a version it replaces whatever is there.
        h.commit(.updateItem(.init(item: "a", representations: card("Bob's A"), version: 1)), by: "bob")
        h.commit(.updateItem(.init(item: "a", representations: card("Anyone's A"))))
        #expect(h.board.item("a")?.version == 3)
    }

    @Test("R12: versions travel with items — kept by moves, new copies start at 0, snapshots carry them")
    func versionsTravel() throws {
        var h = Harness(undoBoard())
        h.commit(.updateItem(.init(item: "b", representations: card("B2"))))
        h.commit(move(["b"], to: inC("done", 1)))
        #expect(h.board.item("b")?.version == 1)
        h.commit(.copy(.init(items: ["b"], destination: inC("done", 0))))
        let copy = try #require(h.board.itemIDs(in: "done")?.first)
        #expect(h.board.item(copy)?.version == 0)
        // In JSON only above 0, and the estimate of the snapshot's size counts it (R14).
        let json = String(decoding: try Snapshot(seq: 3, board: h.board).jsonData(), as: UTF8.self)
        #expect(json.contains(#""version":1"#))
        #expect(!json.contains(#""version":0"#))
        let decoded = try Snapshot(jsonData: Data(json.utf8))
        #expect(decoded.board == h.board && decoded.board.item("b")?.version == 1)
        #expect(h.board.estimatedSnapshotBytes >= json.utf8.count)
    }

    @Test("R12: committing a placeholder is its first content change")
    func placeholderVersion() throws {
        var h = Harness(undoBoard())
        h.commit(.insertPlaceholder(.init(destination: inC("todo", 0))), opId: "p")
        let id = Board.derivedID(clientId: "alice", opId: "p", n: 0)
        h.commit(.commitPlaceholder(.init(item: id, representations: card("Arrived"))))
        #expect(h.board.item(id)?.version == 1)
    }

    @Test("R12 leases: one editor at a time, refreshed by its holder, moved when it edits another card")
    func leaseTable() {
        let board = undoBoard()
        var leases = EditLeaseTable()
        func begin(_ item: ItemID, _ client: String, _ member: String, _ holder: String, at now: Double)
            -> EditLeaseTable.Grant
        {
            leases.begin(item: item, client: client, member: member, holder: holder, on: board, now: now)
        }
        let first = begin("a", "ada", "m1", "Ada", at: 0)
        let refresh = begin("a", "ada", "m1", "Ada", at: 5)
        #expect(first == .granted(isNew: true) && refresh == .granted(isNew: false))
        guard case .refused(let locked) = begin("a", "bob", "m2", "Bob", at: 6) else {
            return recordIssue("Bob took Ada's lease")
        }
        #expect(locked.code == .locked)
        #expect(locked.message == "Ada is editing “Card A”; wait until they save, then try again.")
        guard case .refused(let gone) = begin("zz", "bob", "m2", "Bob", at: 6) else {
            return recordIssue("a lease on a missing card")
        }
        #expect(gone.code == .gone)
        // Ada moves on to another card: the first is free again.
        let moved = begin("b", "ada", "m1", "Ada", at: 7)
        #expect(moved == .moved(from: "a"))
        #expect(leases.lease(of: "a") == nil && leases.item(editedBy: "m1") == "b")
        // Quiet period, disconnect, end by its holder only.
        let endedByBob = leases.end(item: "b", member: "m2")
        let early = leases.expire(now: 60, quietPeriod: 60)
        let late = leases.expire(now: 67.5, quietPeriod: 60)
        #expect(!endedByBob && early.isEmpty && late.map(\.item) == ["b"])
        _ = begin("c", "bob", "m2", "Bob", at: 70)
        let left = leases.end(member: "m2")
        #expect(left.map(\.item) == ["c"])
        #expect(leases.isEmpty)
    }

    @Test("R12 leases: others' updates and deletes of an edited card are refused locked, naming the editor")
    func leasesRefuseOthers() throws {
        var h = Harness(undoBoard())
        _ = h.leases.edits.begin(
            item: "b", client: "ada", member: "m1", holder: "Ada", on: h.board, now: h.now)
        let expected = "Ada is editing “Card B”; wait until they save, then try again."
        for op: BoardOperation in [
            .updateItem(.init(item: "b", representations: card("Bob's B"))),
            .delete(.init(items: ["a", "b"])),
            .deleteSection(.init(section: "todo")),
            .deleteCollection(.init(collection: "c")),
            .batch(.init(ops: [move(["a"], to: inC("done", 0)), .delete(.init(items: ["b"]))])),
        ] {
            let refused = h.reject(op, .locked, by: "bob")
            #expect(refused?.message == expected, "\(op.kind)")
        }
        // Moves are fine (the editor follows the card); the editor's own changes go through.
        h.commit(move(["b"], to: inC("done", 0)), by: "bob")
        h.commit(.updateItem(.init(item: "b", representations: card("Ada's B"), version: 0)), by: "ada")
        // A group holding the edited card is protected too.
        h.commit(move(["c"], to: .into("b", collection: "c", section: "done")), by: "bob")
        h.leases.edits.end(item: "b")
        _ = h.leases.edits.begin(item: "c", client: "ada", member: "m1", holder: "Ada", on: h.board, now: h.now)
        h.reject(.delete(.init(items: ["b"])), .locked, by: "bob")
    }
}

@Suite("Board title, layouts, batches and groups")
struct StructureKindTests {
    @Test("setLayout switches a collection between grid and list; renameBoard gives the board its own title")
    func layoutAndTitle() throws {
        var h = Harness(undoBoard())
        h.commit(.setLayout(.init(collection: "p", layout: .grid)))
        #expect(h.board.collections[1].layout == .grid)
        h.reject(.setLayout(.init(collection: "nope", layout: .list)), .notFound)
        #expect(h.board.title == nil)
        h.commit(.renameBoard(.init(title: "Trip to the coast")))
        #expect(h.board.title == "Trip to the coast")
        let json = String(decoding: try Snapshot(seq: 2, board: h.board).jsonData(), as: UTF8.self)
        #expect(json.contains(#""title":"Trip to the coast""#))
        #expect(try Snapshot(jsonData: Data(json.utf8)).board == h.board)
        #expect(h.board.estimatedSnapshotBytes >= json.utf8.count)
        var other = h.board
        try other.apply(.renameBoard(.init(title: "Else")), clientId: "x", opId: "y")
        #expect(other != h.board, "the title is part of the board")
    }

    @Test("createCollection may bring its sections, with ids checked like createSection's")
    func collectionWithSections() {
        var h = Harness(undoBoard())
        h.commit(
            .createCollection(
                .init(id: "n", title: "New", index: 0, sections: [.init(id: "n1", title: "First"), .init(id: "n2")])))
        #expect(h.board.collectionIDs.first == "n")
        #expect(h.board.sectionIDs(in: "n") == ["n1", "n2"])
        h.reject(.createCollection(.init(id: "m", sections: [.init(id: "todo")])), .duplicateID)
        h.reject(.createCollection(.init(id: "m", sections: [.init(id: "x"), .init(id: "x")])), .duplicateID)
    }

    @Test("R13 batch: parts apply in order as one operation, and a refused part leaves the board as it was")
    func batches() throws {
        var h = Harness(undoBoard())
        let effect = h.commit(
            .batch(
                .init(ops: [
                    move(["a"], to: inC("done", 0)), .renameCollection(.init(collection: "c", title: "Geocaches")),
                    .delete(.init(items: ["b"])),
                ])))
        #expect(effect.changes.map(\.item) == ["a", "b"])
        #expect(effect.removed.map(\.id) == ["b"])
        #expect(h.board.collections[0].title == "Geocaches")
        // The second part fails: nothing of the first stays.
        h.reject(
            .batch(.init(ops: [move(["c"], to: inC("done", 0)), move(["d"], to: inC("gone", 0))])), .destinationGone)
        h.reject(.batch(.init(ops: [])), .invalid)
        h.reject(.batch(.init(ops: [.batch(.init(ops: [move(["c"], to: inC("done", 0))]))])), .invalid)
        h.reject(.batch(.init(ops: [.moveOut(.init(items: ["c"]))])), .invalid)
    }

    @Test("A group whose last card is dragged out dissolves into a plain card; deleting its last child too")
    func groupsDissolve() throws {
        var h = Harness(undoBoard())
        h.commit(move(["b", "c"], to: .into("a", collection: "c", section: "todo")))
        #expect(h.board.children(of: "a") == ["b", "c"])
        h.commit(move(["b"], to: inC("done", 0)))
        #expect(h.board.children(of: "a") == ["c"])
        h.commit(move(["c"], to: inC("done", 0)))
        #expect(h.board.item("a")?.children == nil, "an emptied group is a card again")
        h.commit(move(["d"], to: .into("a", collection: "c", section: "todo")))
        h.commit(.delete(.init(items: ["d"])))
        #expect(h.board.item("a")?.children == nil)
        let json = String(decoding: try Snapshot(seq: 9, board: h.board).jsonData(), as: UTF8.self)
        #expect(h.board.estimatedSnapshotBytes >= json.utf8.count)
        #expect(h.board.estimatedSnapshotBytes - json.utf8.count < 400, "the estimate follows the dissolved groups")
    }
}
