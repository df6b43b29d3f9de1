import CorkboardModel
import CorkboardTesting
import Testing

/// Issue 43: each committed operation becomes one activity sentence that names things as people
/// see them on the board (titles, collection and section names), never by ids.
@Suite("Activity entries")
struct ActivityNamesTests {
    static let ada = ActivityNames.Actor(name: "Ada", clientId: "alice", color: "#1971c2")

    /// A board: collection "Main" (sections "a", "b") and collection "Done" (section "d").
    static func board() -> Board {
        let done = BoardCollection(
            id: "done", title: "Done", layout: .list, accepts: [],
            sections: [Section(id: "d", title: "", items: [Item(id: "z", representations: text("Zebra crossing"))])])
        return makeBoard(["a": ["Old Mill Wheel", "Granite Owl", "x3", "x4", "x5"], "b": []], extra: [done])
    }

    /// Commits `op` and returns its entry (the names as the feed saw them before it).
    static func entry(_ op: BoardOperation, _ h: inout Harness, _ names: inout ActivityNames) -> ActivityEntry? {
        guard case .committed(let committed) = h.submit(op) else {
            Issue.record("\(op.kind) did not commit")
            return nil
        }
        return names.entry(for: committed, on: h.board, by: ada, at: 1_000)
    }

    @Test("Moves, copies, deletes, edits and comments name the cards and the places, never ids")
    func itemVerbs() throws {
        var h = Harness(Self.board())
        var names = ActivityNames(board: h.board)
        let moved = try #require(Self.entry(move(["Old Mill Wheel"], to: at("d", 0, collection: "done")), &h, &names))
        #expect(moved.verb == .moved)
        #expect(moved.text == "moved “Old Mill Wheel” from a to Done")
        #expect(moved.items == ["Old Mill Wheel"])
        #expect(moved.actor == "Ada" && moved.clientId == "alice" && moved.seq == 1 && moved.at == 1_000)

        let within = try #require(Self.entry(move(["Granite Owl"], to: at("a", 3)), &h, &names))
        #expect(within.text == "moved “Granite Owl” within a")

        let many = try #require(
            Self.entry(move(["Granite Owl", "x3", "x4", "x5"], to: at("b", 0)), &h, &names))
        #expect(many.text == "moved “Granite Owl”, “x3”, “x4” and 1 more from a to b")
        #expect(many.items.count == 4)

        let copied = try #require(
            Self.entry(.copy(.init(items: ["z"], destination: at("b", 0))), &h, &names))
        #expect(copied.verb == .copied && copied.text == "copied “Zebra crossing” to b")

        let deleted = try #require(Self.entry(.delete(.init(items: ["x5"])), &h, &names))
        #expect(deleted.verb == .deleted && deleted.text == "deleted “x5” from b")

        let edited = try #require(
            Self.entry(.updateItem(.init(item: "x4", representations: text("Fox hole"))), &h, &names))
        #expect(edited.text == "edited “Fox hole”")

        let commented = try #require(Self.entry(.addComment(.init(item: "x4", text: "found it")), &h, &names))
        #expect(commented.verb == .commented && commented.text == "commented on “Fox hole”")
        for entry in [moved, within, many, copied, deleted, edited, commented] {
            #expect(!entry.text.contains("done") && !entry.text.contains("\"d\""), "an id in \(entry.text)")
        }
    }

    @Test("Renames and deletions of collections, sections and the board name the old and new titles")
    func structureVerbs() throws {
        var h = Harness(Self.board())
        var names = ActivityNames(board: h.board)
        let renamed = try #require(
            Self.entry(.renameCollection(.init(collection: "done", title: "Found")), &h, &names))
        #expect(renamed.verb == .renamedCollection && renamed.text == "renamed the collection Done to Found")
        let section = try #require(Self.entry(.renameSection(.init(section: "b", title: "Later")), &h, &names))
        #expect(section.text == "renamed the section b to Later")
        let moved = try #require(Self.entry(move(["x3"], to: at("b", 0)), &h, &names))
        #expect(moved.text == "moved “x3” from a to Later")
        let deleted = try #require(Self.entry(.deleteCollection(.init(collection: "done")), &h, &names))
        #expect(deleted.verb == .deletedCollection && deleted.text == "deleted the collection Found")
        #expect(deleted.items == ["z"])
        let board = try #require(Self.entry(.renameBoard(.init(title: "Geocaching")), &h, &names))
        #expect(board.verb == .renamedBoard && board.text == "renamed the board to Geocaching")
    }

    @Test("Placeholders make no entry; long titles are cut and multi-item entries capped")
    func boundsAndSilence() throws {
        var h = Harness(Self.board())
        var names = ActivityNames(board: h.board)
        #expect(Self.entry(.insertPlaceholder(.init(destination: at("b", 0))), &h, &names) == nil)
        let long = String(repeating: "word ", count: 40)
        let renamed = try #require(Self.entry(.renameBoard(.init(title: long)), &h, &names))
        #expect(renamed.text.count < 80 && renamed.text.hasSuffix("…"))
        let items = (0..<30).map { NewItem(representations: text("n\($0)")) }
        let added = try #require(Self.entry(.insert(.init(items: items, destination: at("b", 0))), &h, &names))
        #expect(added.verb == .added)
        #expect(added.items.count == ActivityLimits.itemsPerEntry)
        #expect(added.text.hasSuffix("and 27 more to b"))
    }
}
