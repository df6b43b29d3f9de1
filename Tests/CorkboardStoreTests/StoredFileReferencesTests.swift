import CorkboardModel
import CorkboardStorage
import Testing

/// R16: which uploaded files boards still refer to, read from what a store holds.
@Suite("Stored file references")
struct StoredFileReferencesTests {
    static let hexA = String(repeating: "a", count: 64)
    static let hexB = String(repeating: "0123456789abcdef", count: 4)

    @Test("R16: a stored file's name is found in any field, escaped or not; look-alikes are not")
    func scansText() {
        var references = StoredFileReferences()
        references.scan(Array("{\"url\":\"/files/demo/\(Self.hexA).bin\"}".utf8))
        // JSON that escapes slashes, and a link inside a description's markdown.
        references.scan(Array("{\"text\":\"see [plan](\\/files\\/b\\/\(Self.hexB).png)\"}".utf8))
        #expect(references.names == ["\(Self.hexA).bin", "\(Self.hexB).png"])
        var others = StoredFileReferences()
        for text in [
            "\(Self.hexA).svg", "\(Self.hexA).bins", "\(Self.hexA).binx", "f\(Self.hexA).png", "\(Self.hexA)0.png",
            String(Self.hexA.dropFirst()) + ".png", "\(Self.hexA.uppercased()).png", "\(Self.hexA).PNG",
            "\(Self.hexA).webp1", "\(Self.hexA)", "",
        ] {
            others.scan(Array(text.utf8))
        }
        #expect(others.names.isEmpty, "\(others.names)")
        var atEnd = StoredFileReferences()
        atEnd.scan(Array("\(Self.hexA).jpg".utf8))
        #expect(atEnd.contains("\(Self.hexA).jpg"))
    }

    @Test("R16: a board's cards, Trash, kept operations and undo entries all refer to their files")
    func scansABoard() throws {
        let onCard = Attachment(
            url: "/files/demo/\(Self.hexA).bin", name: "Plan.pdf", type: "application/pdf", bytes: 9)
        let inUndo = Attachment(url: "/files/demo/\(Self.hexB).png", name: "map.png", type: "image/png", bytes: 7)
        var sequencer = Sequencer(board: try Board(collections: BoardTemplate.demo.collections(board: "demo")))
        func commit(_ op: BoardOperation, _ opId: String) throws -> UndoRecipe {
            let capture = UndoRecipe.Capture(op, on: sequencer.board, clientId: "c1", opId: opId, boardTitle: "Demo")
            let outcome = sequencer.submit(
                ClientOperation(opId: opId, clientId: "c1", base: sequencer.head, op: op), now: 0)
            let committed = try #require(outcome.committed, "\(outcome)")
            return try #require(capture.recipe(effect: committed.effect, board: sequencer.board))
        }
        _ = try commit(.updateCard(.init(item: "demo-gc1", attach: [onCard, inUndo])), "o1")
        // Detached: only the detach's undo (which attaches it back) still mentions the image.
        let recipe = try commit(.updateCard(.init(item: "demo-gc1", detach: [inUndo.url])), "o2")
        #expect(sequencer.board.details(of: "demo-gc1")?.attachments == [onCard])
        let stored = StoredBoard(
            snapshot: Snapshot(seq: sequencer.head, board: sequencer.board), log: [],
            undo: [UndoHistory.StoredEntry(clientId: "c1", stack: .undo, seq: 2, recipe: recipe)])
        var cardOnly = StoredFileReferences()
        try cardOnly.scan(StoredBoard(snapshot: stored.snapshot, log: []))
        #expect(cardOnly.names == ["\(Self.hexA).bin"])
        var references = StoredFileReferences()
        try references.scan(stored)
        #expect(references.names == ["\(Self.hexA).bin", "\(Self.hexB).png"])
    }
}
