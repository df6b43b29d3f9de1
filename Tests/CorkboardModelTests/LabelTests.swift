import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

@Suite("R16 labels: the board's set, on cards, undone, carried along")
struct LabelTests {
    typealias Update = BoardOperation.UpdateCard

    let urgent = Label(id: "l-urgent", name: "Urgent", color: .red)
    let later = Label(id: "l-later", name: "Later", color: .sky)

    @Test("R16: labels are created, renamed and deleted; a deleted label leaves every card")
    func lifecycle() throws {
        var h = Harness(undoBoard())
        h.commit(.setLabel(.init(label: urgent)))
        h.commit(.setLabel(.init(label: later, index: 0)))
        #expect(h.board.labels == [later, urgent])
        h.commit(.updateCard(Update(item: "a", addLabels: ["l-urgent", "l-later"])))
        h.commit(.updateCard(Update(item: "b", addLabels: ["l-urgent"])))
        #expect(h.board.details(of: "a")?.labels == ["l-urgent", "l-later"])
        #expect(h.board.cards(carrying: "l-urgent") == ["a", "b"])
        // Renamed and recoloured in place.
        let renamed = Label(id: "l-urgent", name: "Now", color: .orange)
        h.commit(.setLabel(.init(label: renamed)))
        #expect(h.board.labels == [later, renamed])
        // An unknown label cannot be put on a card; removing one the card lacks changes nothing.
        #expect(h.reject(.updateCard(Update(item: "a", addLabels: ["l-ghost"])), .notFound)?.field == "addLabels")
        h.commit(.updateCard(Update(item: "c", removeLabels: ["l-later"])))
        h.commit(.deleteLabel(.init(label: "l-urgent")))
        #expect(h.board.labels == [later])
        #expect(h.board.details(of: "a")?.labels == ["l-later"])
        #expect(h.board.details(of: "b") == nil)
        h.reject(.deleteLabel(.init(label: "l-urgent")), .notFound)
        let rebuilt = try Board(collections: h.board.collections, title: h.board.title, labels: h.board.labels)
        #expect(rebuilt == h.board && rebuilt.estimatedSnapshotBytes == h.board.estimatedSnapshotBytes)
    }

    @Test("R16 bounds: 50 labels a board, names of 50 characters")
    func bounds() {
        var h = Harness(undoBoard())
        let long = Label(id: "x", name: String(repeating: "n", count: CardLimits.labelNameCharacters + 1), color: .gray)
        #expect(h.reject(.setLabel(.init(label: long)), .invalid)?.field == "label.name")
        for n in 0..<CardLimits.labels {
            h.commit(.setLabel(.init(label: Label(id: LabelID("l\(n)"), name: "", color: .green))))
        }
        #expect(
            h.reject(.setLabel(.init(label: Label(id: "one-more", name: "", color: .green))), .invalid)?.field
                == "label")
        // Changing a known one is still allowed at the bound.
        h.commit(.setLabel(.init(label: Label(id: "l0", name: "First", color: .blue))))
    }

    @Test("R13: label changes undo; a deleted label comes back on the cards that carried it")
    func undo() throws {
        var u = Undoer()
        u.commit(.setLabel(.init(label: urgent)))
        u.commit(.updateCard(Update(item: "a", addLabels: ["l-urgent"])), by: "bob")
        // Ada's creation cannot be undone while Bob's card carries it.
        #expect(u.undoRefused(.conflict).contains("on cards"))
        u.commit(.updateCard(Update(item: "a", removeLabels: ["l-urgent"])), by: "bob")
        u.commit(.updateCard(Update(item: "b", addLabels: ["l-urgent"])))
        u.commit(.updateCard(Update(item: "c", addLabels: ["l-urgent"])))
        u.commit(.deleteLabel(.init(label: "l-urgent")))
        #expect(u.board.labels.isEmpty && u.board.details(of: "b") == nil)
        u.undo()
        #expect(u.board.labels == [urgent])
        #expect(u.board.cards(carrying: "l-urgent") == ["b", "c"])
        // Undoing the label on c takes it off c only.
        u.undo()
        #expect(u.board.cards(carrying: "l-urgent") == ["b"])
        // A rename goes back, unless someone changed the label since.
        u.commit(.setLabel(.init(label: Label(id: "l-urgent", name: "Now", color: .red))))
        u.undo()
        #expect(u.board.label("l-urgent") == urgent)
        u.redo()
        u.commit(.setLabel(.init(label: Label(id: "l-urgent", name: "Bob's", color: .pink))), by: "bob")
        u.commit(.updateCard(Update(item: "d", done: true)))
        u.undo()
        #expect(u.undoRefused(.conflict).contains("changed or deleted since"))
    }

    @Test("R16 + R14: an insert from another board brings the labels its cards carry; unknown ones are left out")
    func carried() throws {
        var h = Harness(undoBoard())
        h.commit(.setLabel(.init(label: later)))
        let card = NewItem(
            id: "moved", representations: card("Moved"),
            details: CardDetails(labels: ["l-urgent", "l-later", "l-gone"]))
        h.commit(.insert(.init(items: [card], destination: inC("todo", 0), labels: [urgent])))
        #expect(h.board.labels == [later, urgent])
        #expect(h.board.details(of: "moved")?.labels == ["l-urgent", "l-later"])
        #expect(h.board.labelDefinitions(for: [try #require(h.board.item("moved"))]) == [later, urgent])
        // The board's JSON carries its labels, and a snapshot restores them.
        let json = try Snapshot(seq: 2, board: h.board).jsonData()
        #expect(String(decoding: json, as: UTF8.self).contains(#""labels":[{"#))
        let decoded = try Snapshot(jsonData: json).board
        #expect(decoded == h.board && decoded.labels == [later, urgent])
        #expect(h.board.estimatedSnapshotBytes >= json.count)
    }
}
