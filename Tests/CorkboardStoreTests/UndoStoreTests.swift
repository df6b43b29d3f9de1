import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardStore

/// What the SQLite store keeps for undo across restarts (R13): the secret resume tokens derive
/// from, and the histories' rows, which go with their board.
@Suite("SQLite store: undo histories and the resume secret")
struct UndoStoreTests {
    @Test("the resume secret is made once, kept across reopening, and differs between data folders")
    func resumeSecret() throws {
        let (first, again) = try withStore { (store: SQLiteBoardStore, folder: String) throws in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let reader = try SQLiteBoardStore(readingOnly: path)
            #expect(reader.resumeSecret == store.resumeSecret, "a read-only open reads it too")
            return (store.resumeSecret, try SQLiteBoardStore(path: path).resumeSecret)
        }
        let secret = try #require(first)
        #expect(secret.count == 64, "32 random bytes in hex")
        #expect(again == first)
        let other = try withStore { (store: SQLiteBoardStore, _: String) in store.resumeSecret }
        #expect(other != first)
    }

    @Test("a board's undo rows are read by a read-only open and deleted with the board")
    func deletedWithBoard() throws {
        try withStore { (store: SQLiteBoardStore, folder: String) throws in
            try store.add(record("b"))
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: try templateBoard("b")), retainingLog: 0)
            let entry = UndoHistory.StoredEntry(
                clientId: "ada", stack: .undo, seq: 1, recipe: .notUndoable("test", summary: "testing"))
            let change = UndoHistory.Change(clientId: "ada", added: [entry])
            #expect(appendAndWait(store, board: "b", [placeholderCommit(1)], undo: [change]) == nil)
            let reader = try SQLiteBoardStore(readingOnly: SQLiteBoardStore.path(inDataFolder: folder))
            #expect(try reader.load(board: "b")?.undo == [entry])
            #expect(try store.deleteBoard("b"))
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: try templateBoard("b")), retainingLog: 0)
            store.drain()
            #expect(try store.load(board: "b")?.undo == [], "a board made again under the id starts with no history")
        }
    }
}
