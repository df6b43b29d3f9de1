import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

@Suite("R16 card files: attach, detach, the cover, their bounds and their undo")
struct AttachmentTests {
    typealias Update = BoardOperation.UpdateCard

    static let hexA = String(repeating: "a", count: 64)
    static let hexB = String(repeating: "b", count: 64)
    static let pdf = Attachment(url: "/files/demo/\(hexA).bin", name: "Plan.pdf", type: "application/pdf", bytes: 1234)
    static let map = Attachment(url: "/files/demo/\(hexB).png", name: "map.png", type: "image/png", bytes: 78)

    @Test("R16: files are attached once each, in order; an image becomes the cover; detaching the cover clears it")
    func attachDetachCover() throws {
        var h = Harness(undoBoard())
        h.commit(.updateCard(Update(item: "a", attach: [Self.pdf, Self.map], cover: Self.map.url)))
        var details = try #require(h.board.details(of: "a"))
        #expect(details.attachments == [Self.pdf, Self.map] && details.cover == Self.map.url)
        try expectSizeKept(h.board)
        // The same file again changes nothing; the cover can be cleared.
        h.commit(.updateCard(Update(item: "a", attach: [Self.map], cover: "")))
        details = try #require(h.board.details(of: "a"))
        #expect(details.attachments == [Self.pdf, Self.map] && details.cover == nil)
        h.commit(.updateCard(Update(item: "a", cover: Self.map.url)))
        h.commit(.updateCard(Update(item: "a", detach: [Self.map.url])))
        details = try #require(h.board.details(of: "a"))
        #expect(details.attachments == [Self.pdf] && details.cover == nil)
        try expectSizeKept(h.board)
        // Snapshots and the wire carry them.
        let json = try Snapshot(seq: 3, board: h.board).jsonData()
        #expect(try Snapshot(jsonData: json).board.details(of: "a") == details)
        let op = BoardOperation.updateCard(Update(item: "a", attach: [Self.map], detach: [Self.pdf.url], cover: ""))
        #expect(try JSONDecoder().decode(BoardOperation.self, from: try JSONEncoder().encode(op)) == op)
    }

    @Test("R16 bad input: each malformed file, list or cover is refused invalid, naming the field, and changes nothing")
    func badInput() throws {
        var h = Harness(undoBoard())
        func refused(_ update: Update, field: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let rejection = h.reject(.updateCard(update), .invalid, sourceLocation: sourceLocation)
            #expect(rejection?.field == field, "\(String(describing: rejection))", sourceLocation: sourceLocation)
        }
        var file = Self.pdf
        for url in [
            "https://evil.example/x.bin", "/files/demo/\(Self.hexA).html", "/files/demo/\(Self.hexA.uppercased()).bin",
            "/files/../\(Self.hexA).bin", "/files/demo/abc.png", "javascript:alert(1)", "",
            "/files/\(String(repeating: "é", count: 33))/\(Self.hexA).bin", "/files/a b/\(Self.hexA).bin",
            "/files/demo/x/\(Self.hexA).bin", "/files//\(Self.hexA).bin",
        ] {
            file.url = url
            refused(Update(item: "a", attach: [file]), field: "attach")
        }
        for name in ["", "   ", "line\nbreak", String(repeating: "n", count: 256)] {
            refused(
                Update(item: "a", attach: [Attachment(url: Self.pdf.url, name: name, type: "text/plain", bytes: 1)]),
                field: "attach")
        }
        for type in [
            "", "pdf", "Application/PDF", "text/html; charset=utf-8", "a/" + String(repeating: "b", count: 130),
        ] {
            refused(
                Update(item: "a", attach: [Attachment(url: Self.pdf.url, name: "x", type: type, bytes: 1)]),
                field: "attach")
        }
        for bytes in [-1, (1 << 40) + 1] {
            refused(
                Update(item: "a", attach: [Attachment(url: Self.pdf.url, name: "x", type: "text/plain", bytes: bytes)]),
                field: "attach")
        }
        refused(Update(item: "a", detach: ["nope"]), field: "detach")
        refused(Update(item: "a", attach: [Self.pdf], detach: [Self.pdf.url]), field: "detach")
        refused(Update(item: "a", cover: "https://evil.example/x.png"), field: "cover")
        // A cover must be one of the card's images: not attached, or not an image.
        refused(Update(item: "a", cover: Self.map.url), field: "cover")
        refused(Update(item: "a", attach: [Self.pdf], cover: Self.pdf.url), field: "cover")
        // Twenty files a card; twenty in one list.
        let many = (0..<21).map { n in
            Attachment(
                url: "/files/demo/\(String(format: "%064x", n)).bin", name: "f\(n)", type: "text/plain", bytes: n)
        }
        refused(Update(item: "a", attach: many), field: "attach")
        h.commit(.updateCard(Update(item: "a", attach: Array(many.prefix(20)))))
        refused(Update(item: "a", attach: [many[20]]), field: "attach")
        #expect(h.board.details(of: "a")?.attachments.count == 20)
        // Inserted cards are held to the same bounds.
        var details = CardDetails(attachments: [Self.pdf])
        details.cover = Self.pdf.url
        #expect(details.problem?.field == "details.cover")
        #expect(CardDetails(attachments: [Self.pdf, Self.pdf]).problem?.field == "details.attachments")
        #expect(CardDetails(attachments: [Self.map], cover: Self.map.url).problem == nil)
    }

    @Test("R13: undo detaches what was attached, attaches back what was detached, and puts the old cover back")
    func undo() throws {
        var u = Undoer()
        u.commit(.updateCard(Update(item: "a", attach: [Self.map], cover: Self.map.url)), by: "bob")
        u.commit(.updateCard(Update(item: "a", attach: [Self.pdf, Self.map], cover: "")))
        u.undo()
        var details = try #require(u.board.details(of: "a"))
        // Only the file Ada really attached goes; Bob's image is the cover again.
        #expect(details.attachments == [Self.map] && details.cover == Self.map.url)
        u.redo()
        details = try #require(u.board.details(of: "a"))
        #expect(details.attachments == [Self.map, Self.pdf] && details.cover == nil)
        // Ada detaches Bob's image while it is the cover; her undo brings both back.
        u.commit(.updateCard(Update(item: "a", cover: Self.map.url)))
        u.commit(.updateCard(Update(item: "a", detach: [Self.map.url])))
        #expect(u.board.details(of: "a")?.cover == nil)
        u.undo()
        details = try #require(u.board.details(of: "a"))
        #expect(Set(details.attachments) == [Self.map, Self.pdf] && details.cover == Self.map.url)
    }

    @Test("R16: one parser names stored files for the card check and the file route: board, name, extension")
    func storedFileNames() throws {
        let file = try #require(Attachment.StoredFile(path: "tâches_2/\(Self.hexA).webp"))
        #expect(file.board == "tâches_2" && file.name == "\(Self.hexA).webp" && file.fileExtension == "webp")
        #expect(Attachment.StoredFile(path: "demo/\(Self.hexA).bin")?.fileExtension == "bin")
        for path in [
            "demo/\(Self.hexA).svg", "demo/\(Self.hexA)", "demo/\(Self.hexA).png.bin", "../\(Self.hexA).png",
            "/demo/\(Self.hexA).png", "demo/\(String(Self.hexA.dropLast())).png", "de mo/\(Self.hexA).png",
        ] {
            #expect(Attachment.StoredFile(path: Substring(path)) == nil, "\(path)")
        }
        #expect(Attachment.isStoredFileURL("/files/demo/\(Self.hexA).jpg"))
        #expect(!Attachment.isStoredFileURL("/file/demo/\(Self.hexA).jpg"))
        #expect(
            BoardIDRule.isValid(String(repeating: "b", count: 64))
                && !BoardIDRule.isValid(String(repeating: "b", count: 65)))
    }

    @Test("R16: files move with the card, go with a delete and come back with its undo")
    func travel() throws {
        var u = Undoer()
        u.commit(.updateCard(Update(item: "a", attach: [Self.map, Self.pdf], cover: Self.map.url)))
        let expected = try #require(u.board.details(of: "a"))
        u.commit(move(["a"], to: inC("done", 1)))
        #expect(u.board.details(of: "a") == expected)
        u.commit(.delete(.init(items: ["a"])))
        #expect(u.board.details(of: "a") == nil)
        u.undo()
        #expect(u.board.details(of: "a") == expected)
    }
}
