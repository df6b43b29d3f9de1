import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

@Suite("R16 card details: description, dates, done, assignees")
struct CardDetailsTests {
    typealias Update = BoardOperation.UpdateCard

    @Test("R16: updateCard sets each part, steps the versions, and leaves what it does not name")
    func applies() throws {
        var h = Harness(undoBoard())
        #expect(h.board.details(of: "a") == nil)
        h.commit(.updateCard(Update(item: "a", description: .init("## Plan\n- **soon**", version: 0))))
        h.commit(.updateCard(Update(item: "a", dates: .init(due: 1_765_000_000_000, start: 1_764_900_000_000))))
        h.commit(.updateCard(Update(item: "a", done: true, assign: ["Ada", "Bob"])))
        h.commit(.updateCard(Update(item: "a", assign: ["Ada", "Cy"], unassign: ["Bob"])))
        let details = try #require(h.board.details(of: "a"))
        #expect(
            details
                == CardDetails(
                    description: "## Plan\n- **soon**", descriptionVersion: 1, due: 1_765_000_000_000,
                    start: 1_764_900_000_000, datesVersion: 1, done: true, assignees: ["Ada", "Cy"]))
        // The card's own content version (R12 for representations) is not touched.
        #expect(h.board.item("a")?.version == 0)
        try expectSizeKept(h.board)
        // Cleared back to the defaults, the item carries no details at all.
        h.commit(
            .updateCard(
                Update(
                    item: "a", description: .init(""), dates: .init(due: nil), done: false, unassign: ["Ada", "Cy"])))
        #expect(h.board.details(of: "a")?.descriptionVersion == 2)
        try expectSizeKept(h.board)
    }

    @Test("R16 JSON: every field left out at its default; items without details carry no key")
    func json() throws {
        let details = CardDetails(description: "x", due: 5, assignees: ["Ada"])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = String(decoding: try encoder.encode(details), as: UTF8.self)
        #expect(encoded == #"{"assignees":["Ada"],"description":"x","due":5}"#)
        #expect(try JSONDecoder().decode(CardDetails.self, from: Data("{}".utf8)) == CardDetails())
        let item = Item(id: "i", representations: [], details: CardDetails())
        #expect(item.details == nil)
        #expect(!String(decoding: try JSONEncoder().encode(item), as: UTF8.self).contains("details"))
        let op = BoardOperation.updateCard(Update(item: "i", dates: .init(due: 7, version: 2), done: true))
        let opJSON = try JSONEncoder().encode(op)
        #expect(try JSONDecoder().decode(BoardOperation.self, from: opJSON) == op)
        #expect(String(decoding: opJSON, as: UTF8.self).contains(#""kind":"updateCard""#))
    }

    @Test("R12 for details: a description or dates change made on a stale version is refused conflict")
    func conflicts() throws {
        var h = Harness(undoBoard())
        h.commit(.updateCard(Update(item: "b", description: .init("Ada's", version: 0))), by: "ada")
        let rejection = h.reject(
            .updateCard(Update(item: "b", description: .init("Bob's", version: 0))), .conflict, by: "bob")
        let refused = try #require(rejection)
        #expect(refused.field == "description")
        #expect(refused.message.contains("your text is kept"), "\(refused.message)")
        #expect(h.board.details(of: "b")?.description == "Ada's")
        h.commit(.updateCard(Update(item: "b", dates: .init(due: 10, version: 0))))
        #expect(
            h.reject(.updateCard(Update(item: "b", dates: .init(due: 20, version: 0))), .conflict)?.field == "dates")
        // All or nothing: a stale description refuses the done flag sent with it.
        h.reject(.updateCard(Update(item: "b", description: .init("late", version: 0), done: true)), .conflict)
        #expect(h.board.details(of: "b")?.done == false)
    }

    @Test("R16 bounds: each refused naming its field, nothing applied")
    func bounds() throws {
        var h = Harness(undoBoard())
        let long = String(repeating: "é", count: CardLimits.descriptionBytes / 2 + 1)
        let cases: [(Update, String)] = [
            (Update(item: "a"), "item"),
            (Update(item: "a", description: .init(long)), "description"),
            (Update(item: "a", dates: .init(due: 10, start: 11)), "dates"),
            (Update(item: "a", dates: .init(due: -1)), "dates"),
            (Update(item: "a", dates: .init(due: CardLimits.latestDate + 1)), "dates"),
            (Update(item: "a", assign: ["  "]), "assign"),
            (Update(item: "a", assign: [String(repeating: "n", count: CardLimits.nameCharacters + 1)]), "assign"),
            (Update(item: "a", assign: (0...CardLimits.assignees).map { "P\($0)" }), "assign"),
            (Update(item: "a", assign: ["Ada"], unassign: ["Ada"]), "unassign"),
        ]
        for (update, field) in cases {
            let rejection = h.reject(.updateCard(update), .invalid)
            #expect(rejection?.field == field, "\(update)")
            #expect(update.problem?.field == field)
        }
        // The count after applying: 20 people fit, a 21st is refused.
        h.commit(.updateCard(Update(item: "a", assign: (1...CardLimits.assignees).map { "P\($0)" })))
        #expect(h.reject(.updateCard(Update(item: "a", assign: ["One more"])), .invalid)?.field == "assign")
        h.reject(.updateCard(Update(item: "ghost", done: true)), .gone)
        // A long description within the bound applies.
        h.commit(.updateCard(Update(item: "b", description: .init(String(repeating: "é", count: 32_768)))))
        try expectSizeKept(h.board)
    }

    @Test("R16: concurrent assigns of different people both stay; repeats change nothing")
    func assignsConverge() throws {
        var h = Harness(undoBoard())
        h.commit(.updateCard(Update(item: "c", assign: ["Ada"])), by: "ada", base: 0)
        h.commit(.updateCard(Update(item: "c", assign: ["Bob"])), by: "bob", base: 0)
        h.commit(.updateCard(Update(item: "c", assign: ["Ada"])), by: "bob", base: 0)
        h.commit(.updateCard(Update(item: "c", unassign: ["Zed"])), by: "bob")
        #expect(h.board.details(of: "c")?.assignees == ["Ada", "Bob"])
    }

    @Test("R16: details move with the card, go with a delete and come back with its undo, and are copied")
    func travel() throws {
        var u = Undoer()
        let details = Update(item: "a", description: .init("notes"), dates: .init(due: 99), done: true, assign: ["Ada"])
        u.commit(.updateCard(details))
        let expected = details.applied(to: CardDetails())
        u.commit(move(["a"], to: inC("done", 1)))
        #expect(u.board.details(of: "a") == expected)
        u.commit(.copy(.init(items: ["a"], destination: inC("todo", 0))))
        let copy = try #require(u.board.itemIDs(in: "todo")?.first)
        #expect(copy != "a" && u.board.details(of: copy) == expected)
        let deletion = u.commit(.delete(.init(items: ["a"])))
        let deleted = try #require(deletion)
        #expect(deleted.effect.removed.first?.details == expected)
        #expect(u.board.details(of: "a") == nil)
        u.undo()
        #expect(u.board.details(of: "a") == expected)
        // Out to another board: the removed tree carries them, and inserting it there keeps them.
        let movedOut = u.commit(.moveOut(.init(items: ["a"])))
        let out = try #require(movedOut)
        var other = Harness(undoBoard())
        other.commit(.delete(.init(items: ["a"])))
        other.commit(.insert(.init(items: out.effect.removed.map(NewItem.init), destination: inC("todo", 0))))
        #expect(other.board.details(of: "a") == expected)
        try expectSizeKept(other.board)
        // Snapshots carry them.
        let json = try Snapshot(seq: 9, board: other.board).jsonData()
        #expect(try Snapshot(jsonData: json).board.details(of: "a") == expected)
    }

    @Test("R13: undo puts back what the change changed, and only while nobody changed it since")
    func undo() throws {
        var u = Undoer()
        u.commit(.updateCard(Update(item: "a", description: .init("first"), assign: ["Bob"])), by: "bob")
        u.commit(.updateCard(Update(item: "a", description: .init("second"), done: true, assign: ["Ada", "Bob"])))
        u.undo()
        // Ada's change reverted: her description and done flag, and only the person she added.
        var details = try #require(u.board.details(of: "a"))
        #expect(details.description == "first" && !details.done && details.assignees == ["Bob"])
        u.redo()
        details = try #require(u.board.details(of: "a"))
        #expect(details.description == "second" && details.done && details.assignees == ["Bob", "Ada"])
        // Bob edits the description after Ada: her undo would overwrite it, so it is refused.
        u.commit(.updateCard(Update(item: "b", description: .init("Ada's b"))))
        u.commit(.updateCard(Update(item: "b", description: .init("Bob's b"))), by: "bob")
        let sentence = u.undoRefused(.conflict)
        #expect(sentence.contains("description"), "\(sentence)")
        #expect(u.board.details(of: "b")?.description == "Bob's b")
    }

    @Test("R12: another client's edit lease refuses a description change, not the other parts")
    func lease() throws {
        var h = Harness(undoBoard())
        _ = h.leases.edits.begin(item: "d", client: "bob", member: "m2", holder: "Bob", on: h.board, now: h.now)
        #expect(
            h.reject(.updateCard(Update(item: "d", description: .init("mine"))), .locked)?.message.hasPrefix("Bob")
                == true)
        h.commit(.updateCard(Update(item: "d", done: true, assign: ["Ada"])))
        h.commit(.updateCard(Update(item: "d", description: .init("Bob's"))), by: "bob")
    }

    @Test("R18: an undo history of a delete keeps its Trash entry's id, not the details the Trash holds")
    func heldBytes() {
        var u = Undoer()
        u.commit(.updateCard(Update(item: "a", description: .init(String(repeating: "x", count: 60_000)))))
        let before = u.history.heldBytes
        u.commit(.delete(.init(items: ["a"])))
        #expect(u.history.heldBytes - before < 1_000)
        #expect(u.board.trash.bytes >= 60_000)
    }

    @Test("R18: a resend memory keeps an updateCard without its text")
    func withoutContent() {
        let op = BoardOperation.updateCard(Update(item: "a", description: .init("secret", version: 3), done: true))
        #expect(op.withoutContent == .updateCard(Update(item: "a", description: .init("", version: 3), done: true)))
    }
}
