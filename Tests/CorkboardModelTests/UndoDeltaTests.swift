import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

/// What a history hands a store each batch (R13, R18): a delta of the entries added and the seqs
/// removed, as they happened, never a list of what it keeps.
@Suite("R13 undo histories: the delta a store writes")
struct UndoDeltaTests {
    /// The history with changes noted, as a room with a store keeps it.
    private func undoer(depth: Int = 200) -> Undoer {
        var u = Undoer(configuration: .init(depth: depth, guaranteed: min(depth, 100)))
        u.history.tracksChanges = true
        return u
    }

    @Test("each batch names only the entries added and the seqs dropped past the depth")
    func dropsPastDepth() throws {
        var u = undoer(depth: 2)
        u.commit(move(["b"], to: inC("todo", 3)))
        u.commit(move(["b"], to: inC("todo", 0)))
        let first = u.history.takeChanges()
        #expect(first.clients.map(\.clientId) == ["ada"])
        #expect(first.clients[0].added.map(\.seq) == [1, 2])
        #expect(first.clients[0].removed == [] && !first.clients[0].removesAll && !first.replacesAll)
        #expect(u.history.takeChanges().isEmpty, "nothing changed since")

        u.commit(move(["b"], to: inC("todo", 2)))  // seq 3: seq 1 goes past the depth
        let second = u.history.takeChanges()
        #expect(second.clients.map(\.added.count) == [1])
        #expect(second.clients[0].added.map(\.seq) == [3])
        #expect(second.clients[0].removed == [1])
    }

    @Test("an undo removes its entry and adds the redo; a new operation removes the redo")
    func undoAndRedo() throws {
        var u = undoer()
        u.commit(move(["b"], to: inC("todo", 3)))
        _ = u.history.takeChanges()
        u.undo()  // seq 2 on the redo stack
        let undone = try #require(u.history.takeChanges().clients.first)
        #expect(undone.removed == [1])
        #expect(undone.added.map { "\($0.stack) \($0.seq)" } == ["redo 2"])
        u.commit(move(["c"], to: inC("done", 0)))  // seq 3 clears the redo stack
        let cleared = try #require(u.history.takeChanges().clients.first)
        #expect(cleared.removed == [2])
        #expect(cleared.added.map(\.seq) == [3])
    }

    @Test("an entry added and dropped in the same batch is not written; a forgotten client goes whole")
    func forgottenClient() throws {
        var u = undoer(depth: 1)
        u.commit(move(["b"], to: inC("todo", 3)), by: "bob")
        u.commit(move(["b"], to: inC("todo", 0)), by: "bob")  // seq 1 went before the batch ended
        let batch = try #require(u.history.takeChanges().clients.first)
        #expect(batch.added.map(\.seq) == [2])
        #expect(!batch.added.contains { $0.seq == 1 })
        u.history.forget(client: "bob")
        let forgotten = u.history.takeChanges()
        #expect(forgotten.clients == [UndoHistory.Change(clientId: "bob", removesAll: true)])
    }

    @Test("after a failed write the next changes replace the board's entries with the whole history")
    func rewriteAll() throws {
        var u = undoer()
        u.commit(move(["b"], to: inC("todo", 3)), by: "ada")
        u.commit(move(["c"], to: inC("done", 0)), by: "bob")
        _ = u.history.takeChanges()
        u.history.rewriteAll()
        let whole = u.history.takeChanges()
        #expect(whole.replacesAll)
        #expect(whole.clients.map { "\($0.clientId) \($0.added.map(\.seq))" } == ["ada [1]", "bob [2]"])
        #expect(u.history.takeChanges().isEmpty)
    }

    @Test("a move's recipe goes in its compact form and comes back equal; others go as JSON")
    func compactRecipe() throws {
        var u = undoer()
        u.commit(move(["a", "c", "e"], to: inC("done", 0)))
        u.commit(.delete(.init(items: ["b"])))
        let added = u.history.takeChanges().clients[0].added
        let moved = try #require(added.first).recipe
        let bytes = try #require(moved.compactBytes)
        #expect(bytes.first == UndoRecipe.compactTag)
        let back = try UndoRecipe(compact: bytes)
        #expect(back == moved)
        #expect(back.summary == moved.summary)
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        #expect(try sorted.encode(back) == sorted.encode(moved), "every field, the summary's name included")
        #expect(added[1].recipe.compactBytes == nil, "a delete's recipe is JSON")
        #expect(throws: CompactRecipeError.self) { try UndoRecipe(compact: bytes.dropLast()) }
        #expect(throws: CompactRecipeError.self) { try UndoRecipe(compact: bytes + [0]) }
    }
}
