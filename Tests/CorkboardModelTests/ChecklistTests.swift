import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

@Suite("R16 checklists: named lists of items on a card, changed by id so that concurrent changes converge")
struct ChecklistTests {
    typealias Change = BoardOperation.ChecklistChange

    static func add(_ list: ChecklistID, _ name: String, on card: ItemID = "a", index: Int? = nil) -> BoardOperation {
        .checklist(Change(item: card, checklist: list, action: .add, name: name, index: index))
    }

    static func addItem(
        _ entry: ChecklistEntryID, _ text: String, to list: ChecklistID = "k1", on card: ItemID = "a",
        index: Int? = nil
    ) -> BoardOperation {
        .checklist(Change(item: card, checklist: list, action: .addItem, entry: entry, text: text, index: index))
    }

    static func item(
        _ action: Change.Action, _ entry: ChecklistEntryID, in list: ChecklistID = "k1", on card: ItemID = "a",
        text: String? = nil, done: Bool? = nil, index: Int? = nil, from: String? = nil
    ) -> BoardOperation {
        .checklist(
            Change(
                item: card, checklist: list, action: action, entry: entry, text: text, done: done, index: index,
                from: from))
    }

    func texts(_ board: Board, _ list: ChecklistID = "k1", on card: ItemID = "a") -> [String] {
        board.details(of: card)?.checklists.first { $0.id == list }?.items.map { ($0.done ? "x " : "") + $0.text } ?? []
    }

    @Test("R16: add checklists and items, check, rename, move and delete them; progress counts what is done")
    func apply() throws {
        var h = Harness(undoBoard())
        h.commit(Self.add("k1", "Launch"))
        h.commit(Self.add("k0", "Before", index: 0))
        for (n, text) in ["posters", "tickets", "chairs"].enumerated() {
            h.commit(Self.addItem(ChecklistEntryID("e\(n)"), text))
        }
        h.commit(Self.addItem("e9", "first", index: 0))
        #expect(h.board.details(of: "a")?.checklists.map(\.name) == ["Before", "Launch"])
        #expect(texts(h.board) == ["first", "posters", "tickets", "chairs"])
        h.commit(Self.item(.check, "e1", done: true))
        h.commit(Self.item(.check, "e1", done: true))
        h.commit(Self.item(.moveItem, "e2", index: 0))
        h.commit(Self.item(.moveItem, "e9", index: 99))
        h.commit(Self.item(.renameItem, "e0", text: "big posters", from: "posters"))
        #expect(texts(h.board) == ["chairs", "big posters", "x tickets", "first"])
        #expect(h.board.details(of: "a").map { [$0.checklistProgress.done, $0.checklistProgress.total] } == [1, 4])
        h.commit(Self.item(.deleteItem, "e9"))
        h.commit(.checklist(Change(item: "a", checklist: "k0", action: .rename, name: "Prep")))
        h.commit(.checklist(Change(item: "a", checklist: "k0", action: .delete)))
        #expect(h.board.details(of: "a")?.checklists.map(\.name) == ["Launch"])
        #expect(texts(h.board) == ["chairs", "big posters", "x tickets"])
        // Snapshots carry them, and the size estimate bounds their JSON.
        let json = try Snapshot(seq: 9, board: h.board).jsonData()
        #expect(try Snapshot(jsonData: json).board == h.board)
        try expectSizeKept(h.board)
        #expect(String(decoding: json, as: UTF8.self).contains(#""checklists":[{"#))
    }

    @Test("R16 bounds: blank and long texts, missing parts, 20 checklists and 500 items a card, ids once")
    func bounds() throws {
        var h = Harness(undoBoard())
        #expect(h.reject(Self.add("k1", " "), .invalid)?.field == "name")
        let long = String(repeating: "x", count: CardLimits.checklistTextCharacters + 1)
        #expect(h.reject(Self.add("k1", long), .invalid)?.field == "name")
        #expect(h.reject(.checklist(Change(item: "a", checklist: "k1", action: .add)), .invalid)?.field == "name")
        #expect(h.reject(Self.add("", "x"), .invalid)?.field == "checklist")
        h.commit(Self.add("k1", String(repeating: "x", count: CardLimits.checklistTextCharacters)))
        #expect(h.reject(Self.add("k1", "again"), .duplicateID)?.field == "checklist")
        #expect(h.reject(Self.addItem("e1", long), .invalid)?.field == "text")
        #expect(h.reject(.checklist(Change(item: "a", checklist: "k1", action: .addItem)), .invalid)?.field == "entry")
        #expect(h.reject(Self.item(.check, "e1"), .invalid)?.field == "done")
        #expect(h.reject(Self.item(.moveItem, "e1"), .invalid)?.field == "index")
        #expect(h.reject(Self.item(.moveItem, "e1", index: -1), .invalid)?.field == "index")
        #expect(h.reject(Self.item(.check, "ghost", done: true), .notFound)?.field == "entry")
        #expect(h.reject(Self.addItem("e1", "x", to: "ghost"), .notFound)?.field == "checklist")
        h.commit(Self.addItem("e1", "one"))
        h.commit(Self.add("k2", "Other"))
        #expect(h.reject(Self.addItem("e1", "same id", to: "k2"), .duplicateID)?.field == "entry")
        h.reject(Self.add("k3", "x", on: "ghost"), .gone)
        // A card at its limits.
        var full = CardDetails()
        full.checklists = (0..<CardLimits.checklists).map { n in
            Checklist(
                id: ChecklistID("k\(n)"), name: "List \(n)",
                items: (0..<CardLimits.checklistItems / CardLimits.checklists).map {
                    Checklist.Entry(id: ChecklistEntryID("e\(n).\($0)"), text: "item")
                })
        }
        #expect(full.problem == nil)
        var f = Harness(
            try Board(collections: [
                BoardCollection(id: "c", sections: [Section(id: "todo", items: [Item(id: "a", details: full)])])
            ]))
        #expect(f.reject(Self.add("k99", "one more"), .invalid)?.field == "checklist")
        #expect(f.reject(Self.addItem("e-new", "one more", to: "k0"), .invalid)?.field == "entry")
        full.checklists.append(Checklist(id: "k99", name: "too many"))
        #expect(full.problem?.field == "details.checklists")
    }

    @Test("R16: two people checking the same item, or changing items at once, converge with nothing lost")
    func concurrent() throws {
        var h = Harness(undoBoard())
        h.commit(Self.add("k1", "Launch"))
        for n in 0..<4 { h.commit(Self.addItem(ChecklistEntryID("e\(n)"), "t\(n)")) }
        let base = h.sequencer.head
        // Both made on the same base: each applies by id.
        h.commit(Self.item(.check, "e1", done: true), by: "ada", base: base)
        h.commit(Self.item(.check, "e1", done: true), by: "bob", base: base)
        h.commit(Self.item(.moveItem, "e3", index: 0), by: "ada", base: base)
        h.commit(Self.item(.moveItem, "e0", index: 3), by: "bob", base: base)
        h.commit(Self.addItem("e4", "Ada's"), by: "ada", base: base)
        h.commit(Self.addItem("e5", "Bob's"), by: "bob", base: base)
        h.commit(Self.item(.renameItem, "e2", text: "Ada's text", from: "t2"), by: "ada", base: base)
        // Bob's rename was made on the text Ada replaced: refused, Ada's text kept (R12).
        #expect(
            h.reject(Self.item(.renameItem, "e2", text: "Bob's text", from: "t2"), .conflict, by: "bob")?.field
                == "from")
        #expect(texts(h.board) == ["t3", "x t1", "Ada's text", "t0", "Ada's", "Bob's"])
        // A replica applying the same committed log reaches the same board.
        var replica = undoBoard()
        let log = try #require(h.sequencer.operations(after: 0))
        for committed in log { try replica.apply(committed) }
        #expect(replica == h.board)
    }

    @Test("R13: every checklist change undoes and redoes exactly; an undo never overwrites someone's change")
    func undo() throws {
        var u = Undoer()
        u.commit(Self.add("k1", "Launch"))
        u.commit(Self.addItem("e1", "posters"))
        u.commit(Self.addItem("e2", "tickets"))
        u.commit(Self.addItem("e3", "chairs"))
        u.commit(Self.item(.moveItem, "e3", index: 0))
        u.commit(Self.item(.check, "e1", done: true))
        u.commit(Self.item(.renameItem, "e2", text: "paper tickets"))
        u.commit(Self.item(.deleteItem, "e1"))
        #expect(texts(u.board) == ["chairs", "paper tickets"])
        u.undo()
        #expect(texts(u.board) == ["chairs", "x posters", "paper tickets"])
        u.undo()
        #expect(texts(u.board) == ["chairs", "x posters", "tickets"])
        u.undo()
        #expect(texts(u.board) == ["chairs", "posters", "tickets"])
        u.undo()
        #expect(texts(u.board) == ["posters", "tickets", "chairs"])
        u.redo()
        #expect(texts(u.board) == ["chairs", "posters", "tickets"])
        // A deleted checklist comes back whole, at its place.
        u.commit(Self.add("k2", "Second"))
        u.commit(.checklist(Change(item: "a", checklist: "k1", action: .delete)))
        #expect(u.board.details(of: "a")?.checklists.map(\.id) == ["k2"])
        u.undo()
        #expect(u.board.details(of: "a")?.checklists.map(\.id) == ["k1", "k2"])
        #expect(texts(u.board) == ["chairs", "posters", "tickets"])
        // Bob renames the checklist after Ada: her undo of her rename is refused.
        u.commit(.checklist(Change(item: "a", checklist: "k1", action: .rename, name: "Ada's")))
        u.commit(.checklist(Change(item: "a", checklist: "k1", action: .rename, name: "Bob's")), by: "bob")
        #expect(u.undoRefused(.conflict).contains("renamed"))
        // Bob puts an item in Ada's new checklist: undoing its creation would delete his item.
        u.commit(Self.add("k3", "Ada's new"))
        u.commit(Self.addItem("b1", "Bob's item", to: "k3"), by: "bob")
        #expect(u.undoRefused(.conflict).contains("holds items"))
        #expect(texts(u.board, "k3") == ["Bob's item"])
        // Bob's own undo takes his item back.
        u.undo(by: "bob")
        #expect(texts(u.board, "k3").isEmpty)
    }

    @Test("R6/R16: checklists move with their card, to another board too, and go and come back with a delete")
    func travel() throws {
        var u = Undoer()
        u.commit(Self.add("k1", "Launch"))
        u.commit(Self.addItem("e1", "posters"))
        u.commit(Self.item(.check, "e1", done: true))
        let expected = try #require(u.board.details(of: "a"))
        u.commit(move(["a"], to: inC("done", 0)))
        #expect(u.board.details(of: "a") == expected)
        u.commit(.delete(.init(items: ["a"])))
        u.undo()
        #expect(u.board.details(of: "a") == expected)
        let committed = u.commit(.moveOut(.init(items: ["a"])))
        let movedOut = try #require(committed)
        var other = Harness(undoBoard())
        other.commit(.delete(.init(items: ["a"])))
        other.commit(.insert(.init(items: movedOut.effect.removed.map(NewItem.init), destination: inC("todo", 0))))
        #expect(other.board.details(of: "a")?.checklists == expected.checklists)
        other.commit(Self.item(.check, "e1", done: false))
        #expect(
            other.board.details(of: "a").map { [$0.checklistProgress.done, $0.checklistProgress.total] } == [0, 1])
    }

    @Test("R14: the snapshot growth of a checklist change is its size, and wire JSON round-trips")
    func wire() throws {
        let change = Change(
            item: "a", checklist: "k1", action: .add, name: "L", index: 0,
            restore: [Checklist.Entry(id: "e1", text: "one", done: true)])
        let data = try JSONEncoder().encode(BoardOperation.checklist(change))
        #expect(try JSONDecoder().decode(BoardOperation.self, from: data) == .checklist(change))
        #expect(String(decoding: data, as: UTF8.self).contains(#""kind":"checklist""#))
        var board = undoBoard()
        let growth = board.snapshotGrowth(of: .checklist(change), clientId: "ada", opId: "o1")
        let before = try Snapshot(seq: 0, board: board).jsonData().count
        try board.apply(.checklist(change), clientId: "ada", opId: "o1")
        let after = try Snapshot(seq: 0, board: board).jsonData().count
        #expect(growth >= after - before)
    }
}
