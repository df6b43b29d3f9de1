import CorkboardModel
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Foundation
import Testing

/// `corkboard export` / `corkboard import`: a board as a versioned JSON file, validated on the way in.
struct ArchiveTests {
    /// A store with board `b` (demo template) moved on by `operations` random commits, some of them
    /// behind a snapshot.
    private func populated(_ store: SQLiteBoardStore, operations: Int = 50) throws -> Sequencer {
        try store.add(record("b"))
        var driver = RandomDriver(board: try templateBoard("b"), seed: 21)
        store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 0)
        #expect(appendAndWait(store, board: "b", driver.commit(operations / 2)) == nil)
        store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 5)
        #expect(appendAndWait(store, board: "b", driver.commit(operations - operations / 2)) == nil)
        return driver.sequencer
    }

    @Test("export then import into another store gives the same record and the board at its head")
    func roundTrip() throws {
        try withStore { source, _ in
            let live = try populated(source)
            let archive = try BoardArchive(exporting: "b", from: source)
            #expect(archive.format == "corkboard.board")
            #expect(archive.version == 1)
            #expect(archive.board == record("b"))
            #expect(archive.snapshot == live.snapshot)

            let data = try archive.jsonData()
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json["format"] as? String == "corkboard.board")
            #expect(json["version"] as? Int == 1)

            try withStore { target, _ in
                let read = try BoardArchive(jsonData: data)
                #expect(read.board == archive.board)
                #expect(read.snapshot == archive.snapshot)
                try read.importing(into: target)
                #expect(try target.load() == [record("b")])
                let stored = try #require(try target.load(board: "b"))
                #expect(stored.snapshot == live.snapshot)
                #expect(stored.log.isEmpty)
                // The imported board goes on from the archived seq.
                var driver = RandomDriver(board: live.board, seed: 99)
                driver.sequencer = try Sequencer(snapshot: stored.snapshot, replaying: stored.log)
                let next = driver.commit(3)
                #expect(next.first?.seq == live.head + 1)
                #expect(appendAndWait(target, board: "b", next) == nil)
            }
        }
    }

    @Test("R16: export then import carries a card's checklists")
    func checklistsTravel() throws {
        try withStore { source, _ in
            try source.add(record("b"))
            var sequencer = Sequencer(board: try templateBoard("b"))
            source.saveSnapshot(board: "b", snapshot: sequencer.snapshot, retainingLog: 0)
            let card = try #require(sequencer.board.allItemIDs.sorted().first)
            var committed: [CommittedOperation] = []
            for (n, change) in [
                BoardOperation.ChecklistChange(item: card, checklist: "k1", action: .add, name: "Gear"),
                .init(item: card, checklist: "k1", action: .addItem, entry: "e1", text: "Torch"),
                .init(item: card, checklist: "k1", action: .check, entry: "e1", done: true),
            ].enumerated() {
                let envelope = ClientOperation(
                    opId: "o\(n)", clientId: "ada", base: sequencer.head, op: .checklist(change))
                guard case .committed(let c) = sequencer.submit(envelope, now: 1, leases: ItemLeases()) else {
                    Issue.record("the checklist change \(n) was not committed")
                    return
                }
                committed.append(c)
            }
            #expect(appendAndWait(source, board: "b", committed) == nil)
            let data = try BoardArchive(exporting: "b", from: source).jsonData()
            try withStore { target, _ in
                try BoardArchive(jsonData: data).importing(into: target)
                let stored = try #require(try target.load(board: "b"))
                let board = try Sequencer(snapshot: stored.snapshot, replaying: stored.log).board
                #expect(
                    board.details(of: card)?.checklists
                        == [Checklist(id: "k1", name: "Gear", items: [.init(id: "e1", text: "Torch", done: true)])])
            }
        }
    }

    @Test("a board without stored state exports its template at seq 0")
    func exportOfAFreshBoard() throws {
        try withStore { store, _ in
            try store.add(record("fresh", template: .empty))
            let archive = try BoardArchive(exporting: "fresh", from: store)
            #expect(archive.snapshot == Snapshot(seq: 0, board: try templateBoard("fresh", .empty)))
        }
    }

    @Test("exporting an unknown board names the boards there are")
    func exportUnknownBoard() throws {
        try withStore { store, _ in
            try store.add(record("b"))
            let error = try #require(throws: StoreError.self) { try BoardArchive(exporting: "nope", from: store) }
            #expect(error.message.contains("no board \"nope\""), "\(error)")
            #expect(error.message.contains("the store has: b."), "\(error)")
        }
    }

    /// A valid archive as a JSON object to break.
    private func validArchiveObject() throws -> [String: Any] {
        let archive = BoardArchive(board: record("b"), snapshot: Snapshot(seq: 4, board: try templateBoard("b")))
        return try #require(try JSONSerialization.jsonObject(with: archive.jsonData()) as? [String: Any])
    }

    private func decodeError(_ object: Any) throws -> StoreError {
        let data = try JSONSerialization.data(withJSONObject: object)
        return try #require(throws: StoreError.self) { try BoardArchive(jsonData: data) }
    }

    @Test("invalid archives are refused with errors that say what is wrong")
    func invalidArchives() throws {
        #expect(throws: Never.self) {
            try BoardArchive(jsonData: JSONSerialization.data(withJSONObject: validArchiveObject()))
        }

        let notJSON = try #require(throws: StoreError.self) { try BoardArchive(jsonData: Data("hello".utf8)) }
        #expect(notJSON.kind == .invalidData)
        #expect(notJSON.message.contains("not a JSON object"), "\(notJSON)")
        let array = try #require(throws: StoreError.self) { try BoardArchive(jsonData: Data("[1,2]".utf8)) }
        #expect(array.message.contains("not a JSON object"), "\(array)")

        var object = try validArchiveObject()
        object["format"] = "trello.board"
        let format = try decodeError(object)
        #expect(format.message.contains("\"trello.board\", not \"corkboard.board\""), "\(format)")
        object["format"] = nil
        #expect(try decodeError(object).message.contains("format is missing"))

        object = try validArchiveObject()
        object["version"] = 2
        let version = try decodeError(object)
        #expect(version.message.contains("version 2; this build reads version 1"), "\(version)")

        // Duplicate item ids: the second card takes the first one's id.
        object = try validArchiveObject()
        var snapshot = try #require(object["snapshot"] as? [String: Any])
        var board = try #require(snapshot["board"] as? [String: Any])
        var collections = try #require(board["collections"] as? [[String: Any]])
        var sections = try #require(collections[0]["sections"] as? [[String: Any]])
        var items = try #require(sections[0]["items"] as? [[String: Any]])
        items[1]["id"] = items[0]["id"]
        sections[0]["items"] = items
        collections[0]["sections"] = sections
        board["collections"] = collections
        snapshot["board"] = board
        object["snapshot"] = snapshot
        let duplicate = try decodeError(object)
        #expect(duplicate.kind == .invalidData)
        #expect(duplicate.message.contains("does not decode"), "\(duplicate)")
        #expect(duplicate.message.contains("b-gc1"), "names the duplicate id: \(duplicate)")

        // A record without keys.
        object = try validArchiveObject()
        var boardRecord = try #require(object["board"] as? [String: Any])
        boardRecord["keys"] = nil
        object["board"] = boardRecord
        #expect(try decodeError(object).message.contains("keys"))

        // A snapshot of an unknown version.
        object = try validArchiveObject()
        snapshot = try #require(object["snapshot"] as? [String: Any])
        snapshot["version"] = 9
        object["snapshot"] = snapshot
        #expect(try decodeError(object).message.contains("Snapshot version 9"))
    }

    @Test("importing under a taken id is refused and changes nothing; another id works")
    func takenID() throws {
        try withStore { store, _ in
            let live = try populated(store, operations: 10)
            let archive = try BoardArchive(exporting: "b", from: store)
            let error = try #require(throws: CatalogError.self) { try archive.importing(into: store) }
            #expect(error.description.contains("already exists"), "\(error)")
            #expect(try store.load(board: "b")?.snapshot.seq == 5, "the existing board's snapshot is untouched")

            var copy = archive
            copy.board.id = "b2"
            try copy.importing(into: store)
            let ids = try store.load().map(\.id)
            #expect(ids == ["b", "b2"])
            #expect(try store.load(board: "b2")?.snapshot == live.snapshot)

            copy.board.id = "bad id"
            #expect(throws: CatalogError.self) { try copy.importing(into: store) }
            #expect(try store.integrityCheck() == ["ok"])
        }
    }
}
