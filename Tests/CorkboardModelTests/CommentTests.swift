import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

@Suite("R16 comments: appended, never overwritten, only their author edits them")
struct CommentTests {
    typealias Add = BoardOperation.AddComment

    func thread(_ board: Board, _ item: ItemID = "a") -> [String] {
        (board.details(of: item)?.comments ?? []).map(\.text)
    }

    @Test("R16: comments append with their author, name and server time; concurrent ones both stay")
    func append() throws {
        var h = Harness(undoBoard())
        h.now = 1_765_036_800.25
        h.commit(.addComment(Add(item: "a", text: "First!", name: "Ada", at: 5)), by: "ada", opId: "c1", base: 0)
        h.commit(.addComment(Add(item: "a", text: "Second", name: "Bob")), by: "bob", opId: "c1", base: 0)
        let comments = try #require(h.board.details(of: "a")?.comments)
        #expect(comments.map(\.text) == ["First!", "Second"])
        #expect(
            comments[0] == CardComment(id: "ada:c1", author: "ada", name: "Ada", at: 1_765_036_800_250, text: "First!"))
        #expect(comments[1].id == "bob:c1")
        // A resend is answered from memory: no second comment, whatever time it carries.
        let resent = h.submit(.addComment(Add(item: "a", text: "First!", at: 99)), by: "ada", opId: "c1")
        guard case .committed = resent else {
            Issue.record("the resend was not answered with the first outcome: \(resent)")
            return
        }
        #expect(thread(h.board) == ["First!", "Second"])
        let json = try Snapshot(seq: 2, board: h.board).jsonData()
        #expect(try Snapshot(jsonData: json).board == h.board)
        #expect(h.board.estimatedSnapshotBytes >= json.count)
    }

    @Test("R16: only the author edits or deletes a comment; a stale edit is refused conflict")
    func authorOnly() throws {
        var h = Harness(undoBoard())
        h.commit(.addComment(Add(item: "a", text: "Ada's")), by: "ada", opId: "c1")
        let id = Board.commentID(clientId: "ada", opId: "c1")
        #expect(
            h.reject(.editComment(.init(item: "a", comment: id, text: "Bob's")), .notOwner, by: "bob")?.field
                == "comment")
        h.reject(.deleteComment(.init(item: "a", comment: id)), .notOwner, by: "bob")
        h.commit(.editComment(.init(item: "a", comment: id, text: "Ada's, edited", version: 0)), by: "ada")
        h.reject(.editComment(.init(item: "a", comment: id, text: "stale", version: 0)), .conflict, by: "ada")
        #expect(h.board.comment(id, on: "a")?.version == 1)
        h.reject(.editComment(.init(item: "a", comment: "ghost", text: "x")), .notFound, by: "ada")
        h.commit(.deleteComment(.init(item: "a", comment: id)), by: "ada")
        #expect(h.board.details(of: "a") == nil)
    }

    @Test("R16 bounds: empty and long comments, 500 a card, restores from clients")
    func bounds() {
        var h = Harness(undoBoard())
        #expect(h.reject(.addComment(Add(item: "a", text: "  \n")), .invalid)?.field == "text")
        let long = String(repeating: "x", count: CardLimits.commentBytes + 1)
        #expect(h.reject(.addComment(Add(item: "a", text: long)), .invalid)?.field == "text")
        h.reject(.addComment(Add(item: "ghost", text: "x")), .gone)
        var many = CardDetails()
        many.comments = (0..<CardLimits.comments).map {
            CardComment(id: CommentID("x:\($0)"), author: "x", name: "X", at: 0, text: "c\($0)")
        }
        var full = Harness(
            try! Board(collections: [
                BoardCollection(
                    id: "c", sections: [Section(id: "s", items: [Item(id: "a", details: many)])])
            ]))
        #expect(full.reject(.addComment(Add(item: "a", text: "one more")), .invalid)?.field == "item")
        // Someone else's comment cannot be "restored" under their name.
        let forged = CardComment(id: "ada:c9", author: "ada", name: "Ada", at: 0, text: "forged")
        h.reject(.addComment(Add(item: "b", text: "", restore: forged)), .notOwner, by: "mallory")
    }

    @Test("R13: adding, editing and deleting a comment undo and redo; comments move with their card")
    func undo() throws {
        var u = Undoer()
        u.commit(.addComment(Add(item: "a", text: "one", name: "Ada")))
        u.commit(.addComment(Add(item: "a", text: "Bob's", name: "Bob")), by: "bob")
        let mine = try #require(u.board.details(of: "a")?.comments.first)
        u.commit(.editComment(.init(item: "a", comment: mine.id, text: "one, edited", version: 0)))
        u.commit(.deleteComment(.init(item: "a", comment: mine.id)))
        #expect(thread(u.board) == ["Bob's"])
        u.undo()
        // Back at its place, with its id, author, time and edited text.
        #expect(thread(u.board) == ["one, edited", "Bob's"])
        #expect(u.board.comment(mine.id, on: "a")?.at == mine.at)
        u.undo()
        #expect(thread(u.board) == ["one", "Bob's"])
        u.redo()
        #expect(thread(u.board) == ["one, edited", "Bob's"])
        u.undo()
        u.undo()
        #expect(thread(u.board) == ["Bob's"])
        u.commit(move(["a"], to: inC("done", 0)))
        #expect(thread(u.board) == ["Bob's"])
    }
}
