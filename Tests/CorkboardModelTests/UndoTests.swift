import CorkboardModel
import CorkboardTesting
import Testing

/// One kind of operation with what it does to `undoBoard()`, for the inverse-of-every-kind test.
struct UndoCase: CustomTestStringConvertible, Sendable {
    var name: String
    var ops: [BoardOperation]
    var testDescription: String { name }
}

let everyUndoableKind: [UndoCase] = [
    UndoCase(name: "move within a section", ops: [move(["b"], to: inC("todo", 3, after: "d"))]),
    UndoCase(name: "move of several from two places", ops: [move(["a", "c", "e"], to: inC("done", 0))]),
    UndoCase(name: "move into a card", ops: [move(["c", "d"], to: .into("a", collection: "c", section: "todo"))]),
    UndoCase(
        name: "move out of a group",
        ops: [
            move(["c", "d"], to: .into("a", collection: "c", section: "todo")), move(["d"], to: inC("done", 1)),
        ]),
    UndoCase(name: "copy", ops: [.copy(.init(items: ["a", "b"], destination: inC("done", 1)))]),
    UndoCase(
        name: "insert",
        ops: [
            .insert(
                .init(
                    items: [NewItem(representations: card("New"), children: [NewItem(representations: card("Kid"))])],
                    destination: inC("todo", 2, after: "b", before: "c")))
        ]),
    UndoCase(name: "delete", ops: [.delete(.init(items: ["b", "c", "e"]))]),
    UndoCase(
        name: "delete of a group and a card in it",
        ops: [move(["c"], to: .into("a", collection: "c", section: "todo")), .delete(.init(items: ["a", "c"]))]),
    UndoCase(name: "edit", ops: [.updateItem(.init(item: "a", representations: card("A again"), version: 0))]),
    UndoCase(
        name: "new collection", ops: [.createCollection(.init(id: "n", title: "New", sections: [.init(id: "n1")]))]),
    UndoCase(name: "rename collection", ops: [.renameCollection(.init(collection: "c", title: "Geocaches"))]),
    UndoCase(name: "delete collection", ops: [.deleteCollection(.init(collection: "c"))]),
    UndoCase(name: "move collection", ops: [.moveCollection(.init(collection: "p", index: 0))]),
    UndoCase(name: "what it takes", ops: [.setAccepts(.init(collection: "p", accepts: ["public.url"]))]),
    UndoCase(name: "layout", ops: [.setLayout(.init(collection: "c", layout: .list))]),
    UndoCase(name: "new section", ops: [.createSection(.init(collection: "c", id: "later", title: "Later", index: 1))]),
    UndoCase(name: "rename section", ops: [.renameSection(.init(section: "todo", title: "Next"))]),
    UndoCase(name: "delete section", ops: [.deleteSection(.init(section: "todo"))]),
    UndoCase(name: "move section", ops: [.moveSection(.init(section: "done", index: 0))]),
    UndoCase(name: "rename board", ops: [.renameBoard(.init(title: "Coast trip"))]),
]

@Suite("R13 undo and redo")
struct UndoTests {
    @Test("R13: undo reverses every kind of operation, redo makes it again", arguments: everyUndoableKind)
    func everyKind(_ undoCase: UndoCase) throws {
        var u = Undoer()
        for op in undoCase.ops.dropLast() { u.commit(op, by: "setup") }
        let before = u.board
        try #require(u.commit(undoCase.ops.last!) != nil)
        let after = u.board
        #expect(after != before)
        #expect(u.history.state(of: "ada") == UndoHistory.State(undo: true, redo: false))
        u.undo()
        // An edit undone is a new edit (its version goes on); everything else is as it was.
        #expect(u.board.withoutVersions == before.withoutVersions, "undo of \(undoCase.name)")
        #expect(u.board.title == before.title)
        #expect(u.history.state(of: "ada") == UndoHistory.State(undo: false, redo: true))
        u.redo()
        #expect(u.board.withoutVersions == after.withoutVersions, "redo of \(undoCase.name)")
        // And again: a redo is undone like anything else.
        u.undo()
        #expect(u.board.withoutVersions == before.withoutVersions, "second undo of \(undoCase.name)")
    }

    @Test("R13: a deleted card comes back with its id, content and version, beside the neighbours it had")
    func deleteComesBackWhole() throws {
        var u = Undoer()
        u.commit(.updateItem(.init(item: "c", representations: card("Card C2"))), by: "bob")
        u.commit(.delete(.init(items: ["c"])))
        // Meanwhile Bob moves d to the front: c goes back after b, not at its old index.
        u.commit(move(["d"], to: inC("todo", 0)), by: "bob")
        let undone = u.undo()
        let undo = try #require(undone)
        // R15: the undo restores the delete's Trash entry.
        guard case .restore = undo.op else { return recordIssue("expected a restore, got \(undo.op)") }
        #expect(u.ids("todo") == ["d", "a", "b", "c"])
        #expect(u.board.item("c") == Item(id: "c", representations: card("Card C2"), version: 1))
    }

    @Test("R13: a card taken out of a group goes back into that group, at its end")
    func backIntoItsGroup() {
        var u = Undoer()
        u.commit(move(["b", "c"], to: .into("a", collection: "c", section: "todo")), by: "bob")
        u.commit(move(["b"], to: inC("done", 0)))
        u.undo()
        #expect(u.board.children(of: "a") == ["c", "b"])
        // Its group dissolved meanwhile: the card makes it a group again.
        u.commit(move(["c"], to: inC("done", 0)))
        u.commit(move(["b"], to: inC("done", 0)), by: "bob")
        #expect(u.board.item("a")?.children == nil)
        u.undo()
        #expect(u.board.children(of: "a") == ["c"])
    }

    @Test("R13: an undo after a peer moved the same card puts it back beside its old neighbours")
    func undoAfterPeerMove() throws {
        var u = Undoer()
        u.commit(move(["b"], to: inC("done", 1, after: "e")))
        u.commit(move(["b"], to: inC("done", 0, before: "e")), by: "bob")
        u.commit(move(["a"], to: inC("done", 0)), by: "bob")
        let undone = u.undo()
        let undo = try #require(undone)
        guard case .move(let back) = undo.op else { return recordIssue("expected a move, got \(undo.op)") }
        #expect(back.items == ["b"] && back.destination.after == "a" && back.destination.before == "c")
        // a moved away, so its anchor no longer holds: b lands before c, where it was.
        #expect(u.ids("todo") == ["b", "c", "d"])
        #expect(u.ids("done") == ["a", "e"])
    }

    @Test("R13: an edit is reverted only while it is still what this client wrote")
    func editConflicts() {
        var u = Undoer()
        u.commit(move(["d"], to: inC("done", 0)))
        u.commit(.updateItem(.init(item: "a", representations: card("Ada's A"), version: 0)))
        u.commit(.updateItem(.init(item: "a", representations: card("Bob's A"), version: 1)), by: "bob")
        let sentence = u.undoRefused(.conflict)
        #expect(
            sentence
                == "Could not undo editing “Card A”: “Bob's A” was changed again since your edit; undoing would "
                + "overwrite that change. Nothing changed.")
        #expect(u.board.item("a")?.representations == card("Bob's A"))
        // The history moved past the edit: the next undo reverses the move before it.
        u.undo()
        #expect(u.ids("todo") == ["a", "b", "c", "d"])
        #expect(!u.history.state(of: "ada").undo)
    }

    @Test("R13: undo refuses to overwrite or destroy what someone else did since, saying so")
    func conflicts() {
        var u = Undoer()
        u.commit(.renameCollection(.init(collection: "c", title: "Mine")))
        u.commit(.renameCollection(.init(collection: "c", title: "Bob's")), by: "bob")
        #expect(u.undoRefused(.conflict).contains("someone renamed it since (it is now “Bob's”)"))

        u.commit(.insert(.init(items: [NewItem(representations: card("Box"))], destination: inC("done", 0))))
        let box = Board.derivedID(clientId: "ada", opId: "op4", n: 0)
        u.commit(move(["e"], to: .into(box, collection: "c", section: "done")), by: "bob")
        #expect(u.undoRefused(.conflict).contains("someone put cards into “Box” since; undo never deletes their cards"))
        #expect(u.board.contains("e") && u.board.contains(box))

        u.commit(.createSection(.init(collection: "c", id: "s9", title: "Soon")))
        u.commit(.insert(.init(items: [NewItem(representations: card("Bob's"))], destination: inC("s9", 0))), by: "bob")
        #expect(u.undoRefused(.conflict).contains("it holds cards now"))
        #expect(u.board.sectionIDs(in: "c")?.contains("s9") == true)
    }

    @Test("R13: what cannot apply is refused with a sentence and the history moves on")
    func refusalsMoveOn() {
        var u = Undoer()
        u.commit(move(["a"], to: inC("done", 0)))
        u.commit(.delete(.init(items: ["b"])))
        u.commit(move(["c"], to: inC("done", 0)))
        u.commit(.delete(.init(items: ["c"])), by: "bob")
        #expect(
            u.undoRefused(.gone) == "Could not undo moving “Card C”: the cards were deleted since. Nothing changed.")
        // b's section is deleted meanwhile: its restore from the Trash (R15) puts it at the end of
        // its collection instead.
        u.commit(.deleteSection(.init(section: "todo")), by: "bob")
        u.undo()
        #expect(u.ids("done").last == "b")
        // a's old section is gone too; nothing left to undo after that.
        u.undoRefused(.destinationGone)
        #expect(u.undoRefused(.notFound) == "There is nothing of yours to undo on this board.")
    }

    @Test("R13: a refused undo names the cards as they were when the operation committed, small or large")
    func refusalNamesCardsAsTheyWere() {
        var u = Undoer()
        // "Card C" is small (named when the sentence is needed); "Big" is over the 1 KiB a recipe
        // keeps for naming later (named when its recipe is taken).
        let notes = String(repeating: "n", count: 2_000)
        u.commit(.updateItem(.init(item: "d", representations: card("Big\",\"notes\":\"\(notes)"))), by: "bob")
        #expect(u.board.quotedName(of: "d") == "“Big”")
        u.commit(move(["c"], to: inC("done", 0)))
        u.commit(move(["d"], to: inC("done", 0)))
        for (item, version) in [("c", 0), ("d", 1)] {
            let rename = BoardOperation.updateItem(
                .init(item: ItemID(item), representations: card("Renamed"), version: version))
            u.commit(rename, by: "bob")
        }
        u.commit(.delete(.init(items: ["c", "d"])), by: "bob")
        #expect(u.undoRefused(.gone) == "Could not undo moving “Big”: the cards were deleted since. Nothing changed.")
        #expect(
            u.undoRefused(.gone) == "Could not undo moving “Card C”: the cards were deleted since. Nothing changed.")
    }

    @Test("R13: a refused undo of a batch names its last part's cards as they were")
    func batchRefusalNamesItsLastPart() {
        var u = Undoer()
        u.commit(.batch(.init(ops: [move(["a"], to: inC("done", 0)), move(["c"], to: inC("done", 0))])))
        u.commit(.updateItem(.init(item: "c", representations: card("Renamed"))), by: "bob")
        u.commit(.delete(.init(items: ["a", "c"])), by: "bob")
        #expect(
            u.undoRefused(.gone) == "Could not undo moving “Card C”: the cards were deleted since. Nothing changed.")
    }

    @Test("R13: undo goes through the leases like any drop (R9, R12)")
    func undoRespectsLeases() {
        var u = Undoer()
        u.commit(move(["a"], to: inC("done", 0)))
        u.commit(.updateItem(.init(item: "e", representations: card("E2"))))
        _ = u.leases.edits.begin(item: "e", client: "bob", member: "m2", holder: "Bob", on: u.board, now: u.now)
        #expect(
            u.undoRefused(.locked)
                == "Could not undo editing “Card E”: Bob is editing “E2”; wait until they save, then try again. "
                + "Nothing changed.")
        _ = u.leases.drags.begin(session: "d", client: "bob", holder: "Bob", items: ["a"], on: u.board, now: u.now)
        #expect(u.undoRefused(.locked).contains("is being dragged by Bob"))
        #expect(u.ids("done") == ["a", "e"])
    }

    @Test("R13: nobody undoes someone else's operation; a new operation clears redo")
    func ownHistoryOnly() {
        var u = Undoer()
        u.commit(move(["a"], to: inC("done", 0)))
        #expect(u.undoRefused(.notFound, by: "bob") == "There is nothing of yours to undo on this board.")
        #expect(u.ids("done") == ["a", "e"])
        u.undo()
        #expect(u.history.state(of: "ada").redo)
        u.commit(move(["b"], to: inC("done", 0)))
        #expect(!u.history.state(of: "ada").redo)
        guard case .rejected(let rejection) = u.reverse(.redo) else { return recordIssue("redo after a new op") }
        #expect(rejection.message == "There is nothing to redo: nothing was undone since your last change.")
    }

    @Test("R13: moves to another board cannot be undone, and say so")
    func otherBoards() {
        var u = Undoer()
        u.commit(move(["a"], to: inC("done", 0)))
        u.commit(.moveOut(.init(items: ["b"])))
        #expect(
            u.undoRefused(.invalid)
                == "Could not undo moving “Card B” to another board: moves to another board cannot be undone; drag the "
                + "cards back from that board. Nothing changed.")
        u.undo()
        #expect(u.ids("todo") == ["a", "c", "d"])
    }

    @Test("R13: a resend is answered from memory; an opId used for anything else is refused conflict (R14)")
    func resends() throws {
        var u = Undoer()
        u.commit(move(["a"], to: inC("done", 0)))
        u.commit(move(["b"], to: inC("done", 0)))
        let first = u.reverse(.undo, opId: "u1")
        guard case .committed(let committed) = first else { return recordIssue("\(first)") }
        let head = u.sequencer.head
        #expect(u.reverse(.undo, opId: "u1") == .resend(.committed(committed)))
        #expect(u.sequencer.head == head && u.ids("done") == ["a", "e"], "a resend applies nothing twice")
        guard case .rejected(let other) = u.reverse(.redo, opId: "u1") else { return recordIssue("redo under u1") }
        #expect(other.code == .conflict)
        guard case .rejected(let used) = u.reverse(.undo, opId: "op1") else { return recordIssue("undo under op1") }
        #expect(used.code == .conflict && used.message.contains("already used for another operation"))
        #expect(u.ids("done") == ["a", "e"])
    }

    @Test("R13: histories are bounded, keep their newest entries, and forget what a failed store undid")
    func bounds() {
        var u = Undoer(configuration: .init(depth: 5, guaranteed: 2, heldBytes: 1 << 20))
        for n in 0..<8 { u.commit(.renameBoard(.init(title: "T\(n)"))) }
        #expect(u.history.depth(of: "ada").undo == 5)
        for _ in 0..<5 { u.undo() }
        #expect(u.board.title == "T2")
        u.undoRefused(.notFound)
        // A rollback to an earlier seq forgets the entries after it.
        u.commit(.renameBoard(.init(title: "X")))
        let seq = u.sequencer.head
        u.commit(.renameBoard(.init(title: "Y")))
        u.history.forget(after: seq)
        #expect(u.history.depth(of: "ada").undo == 1)
        // Held bytes beyond the guaranteed entries are bounded too.
        var small = Undoer(configuration: .init(depth: 200, guaranteed: 2, heldBytes: 10))
        for item in ["a", "b", "c", "d"] { small.commit(.delete(.init(items: [ItemID(item)]))) }
        #expect(small.history.depth(of: "ada").undo == 2)
    }

    @Test("R13: the least recently active clients' histories go first past the bound")
    func clientBound() {
        var u = Undoer(configuration: .init(clients: 2))
        u.commit(.renameBoard(.init(title: "1")), by: "x")
        u.commit(.renameBoard(.init(title: "2")), by: "y")
        u.commit(.renameBoard(.init(title: "3")), by: "x")
        u.commit(.renameBoard(.init(title: "4")), by: "z")
        #expect(u.history.state(of: "x").undo && u.history.state(of: "z").undo)
        #expect(!u.history.state(of: "y").undo)
    }
}
