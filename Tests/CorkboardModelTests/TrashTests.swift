import CorkboardModel
import CorkboardTesting
import Foundation
import Testing

/// R15: deletes go to the board's Trash; a restore puts an entry back, once, where it was.
@Suite("Trash and restore (R15)")
struct TrashTests {
    func restore(_ entry: String) -> BoardOperation { .restore(BoardOperation.Restore(entry: entry)) }
    func delete(_ items: [ItemID]) -> BoardOperation { .delete(BoardOperation.Delete(items: items, name: "Bob")) }

    @Test func aDeletedCardGoesToTheTrashAndARestorePutsItBackAtItsAnchors() throws {
        var h = Harness(makeBoard(["s": ["a", "b", "c", "d"]]))
        h.commit(delete(["b", "c"]), by: "bob", opId: "op-9")
        #expect(ids(h.board, "s") == ["a", "d"])
        let entry = try #require(h.board.trash.entries.first)
        #expect(entry.id == "bob:op-9" && entry.name == "Bob" && entry.clientId == "bob")
        #expect(entry.at == Int(h.now * 1000) && entry.cardCount == 2)
        h.commit(move(["a"], to: at("s", 2)))
        // Anyone with edit rights restores, not only the deleter.
        let effect = h.commit(restore("bob:op-9"), by: "alice")
        #expect(ids(h.board, "s") == ["d", "a", "b", "c"])
        #expect(effect.changes.map(\.item) == ["b", "c"] && effect.changes.allSatisfy { $0.from == nil })
        #expect(h.board.trash.entries.isEmpty && h.board.trash.bytes == 0)
    }

    @Test func aRestoreAppliesOnceAndTheSecondChangesNothing() {
        var h = Harness(makeBoard(["s": ["a", "b"]]))
        h.commit(delete(["a"]), by: "bob", opId: "d1")
        h.commit(restore("bob:d1"), by: "alice")
        let rejection = h.reject(restore("bob:d1"), .gone, by: "carol")
        #expect(rejection?.message.contains("already restored") == true)
        #expect(ids(h.board, "s") == ["a", "b"])
        h.reject(restore("nobody:op-1"), .gone)
    }

    @Test func cardsWhoseSectionIsGoneComeBackAtTheEndOfTheirCollection() {
        var h = Harness(makeBoard(["s": ["a", "b"], "t": ["x"]]))
        h.commit(delete(["a"]), by: "bob", opId: "d1")
        h.commit(.deleteSection(BoardOperation.DeleteSection(section: "s")))
        h.commit(restore("bob:d1"))
        #expect(ids(h.board, "t") == ["x", "a"])
    }

    @Test func cardsWhoseCollectionIsGoneWaitForTheCollection() {
        let other = BoardCollection(id: "k", title: "Other", sections: [Section(id: "ks", items: [])])
        var h = Harness(makeBoard(["s": ["a", "b"]], extra: [other]))
        h.commit(delete(["a"]), by: "bob", opId: "d1")
        // A restore racing the delete of its collection: the collection went first.
        h.commit(.deleteCollection(BoardOperation.DeleteCollection(collection: "c")), by: "carol", opId: "d2")
        let refused = h.reject(restore("bob:d1"), .gone)
        #expect(refused?.message.contains("restore the collection") == true)
        #expect(h.board.trash.entries.map(\.id) == ["bob:d1", "carol:d2"])
        h.commit(restore("carol:d2"))
        #expect(ids(h.board, "s") == ["b"])
        h.commit(restore("bob:d1"))
        #expect(ids(h.board, "s") == ["a", "b"])
        #expect(h.board.collectionIDs == ["c", "k"] && h.board.trash.entries.isEmpty)
    }

    @Test func aSectionAndACollectionComeBackWithTheirCardsAndDetails() {
        var h = Harness(makeBoard(["s": ["a"], "t": ["b", "c"]]))
        h.commit(.updateCard(BoardOperation.UpdateCard(item: "b", description: .init("## Plan", version: 0))))
        h.commit(.deleteSection(BoardOperation.DeleteSection(section: "t", name: "Ada")), by: "ada", opId: "d1")
        #expect(h.board.sectionIDs(in: "c") == ["s"] && h.board.trash.entries.first?.cardCount == 2)
        h.commit(.createSection(BoardOperation.CreateSection(collection: "c", id: "u", index: 0)))
        h.commit(restore("ada:d1"))
        #expect(h.board.sectionIDs(in: "c") == ["u", "t", "s"])
        #expect(ids(h.board, "t") == ["b", "c"] && h.board.details(of: "b")?.description == "## Plan")
        h.commit(.deleteCollection(BoardOperation.DeleteCollection(collection: "c")), by: "ada", opId: "d2")
        #expect(h.board.collectionIDs.isEmpty && h.board.itemCount == 0)
        h.commit(restore("ada:d2"))
        #expect(h.board.sectionIDs(in: "c") == ["u", "t", "s"] && h.board.itemCount == 3)
        #expect(h.board.details(of: "b")?.description == "## Plan")
    }

    @Test func placeholdersAndMovesOutNeverGoToTheTrash() throws {
        var h = Harness(makeBoard(["s": ["a", "b"]]))
        h.commit(.insertPlaceholder(BoardOperation.InsertPlaceholder(destination: at("s", 0))), by: "bob", opId: "p")
        h.commit(.moveOut(BoardOperation.Delete(items: ["a"])))
        #expect(h.board.trash.entries.isEmpty)
        h.commit(delete([Board.derivedID(clientId: "bob", opId: "p", n: 0)]), by: "bob")
        #expect(h.board.trash.entries.isEmpty)
        h.commit(.deleteSection(BoardOperation.DeleteSection(section: "s")), opId: "d")
        let entry = try #require(h.board.trash.entries.first)
        guard case .section(_, let section, _) = entry.content else { Issue.record("not a section entry"); return }
        #expect(section.items.map(\.id) == ["b"])
    }

    @Test func emptyTrashLetsEverythingGoForGood() {
        var h = Harness(makeBoard(["s": ["a", "b"]]))
        h.commit(delete(["a"]), opId: "d1")
        h.commit(delete(["b"]), opId: "d2")
        let effect = h.commit(.emptyTrash(BoardOperation.EmptyTrash()))
        #expect(effect.evicted == ["alice:d1", "alice:d2"] && h.board.trash.entries.isEmpty)
        h.reject(restore("alice:d1"), .gone)
    }

    @Test func theTrashKeepsAtMostMaxEntries() {
        let names = (0...Trash.maxEntries).map { "i\($0)" }
        var h = Harness(makeBoard(["s": names]))
        var evicted: [String] = []
        for (n, name) in names.enumerated() {
            evicted += h.commit(delete([ItemID(name)]), opId: "d\(n)").evicted ?? []
        }
        #expect(evicted == ["alice:d0"] && h.board.trash.entries.count == Trash.maxEntries)
        h.reject(restore("alice:d0"), .gone)
    }

    @Test func theTrashKeepsAtMostMaxBytesButAlwaysTheNewest() {
        let big = String(repeating: "x", count: Trash.maxBytes / 3)
        let items = (0..<4).map { Item(id: ItemID("b\($0)"), representations: text(big)) }
        var h = Harness(
            try! Board(collections: [BoardCollection(id: "c", sections: [Section(id: "s", items: items)])]),
            configuration: .init(maxSnapshotBytes: 64 << 20))
        #expect(h.commit(delete(["b0"]), opId: "d0").evicted == nil)
        #expect(h.commit(delete(["b1"]), opId: "d1").evicted == nil)
        #expect(h.commit(delete(["b2"]), opId: "d2").evicted == ["alice:d0"])
        #expect(h.board.trash.bytes <= Trash.maxBytes)
        // One entry larger than the budget stays (its deleter can still undo it) until the next.
        #expect(h.commit(delete(["b3"]), opId: "d3").evicted == ["alice:d1"])
    }

    @Test("R15 + R18: a server's own Trash limits decide; replicas and replays evict what effect.evicted names")
    func configuredLimitsTravelInTheEffect() throws {
        let names = (0..<6).map { "i\($0)" }
        let start = makeBoard(["s": names])
        // A server keeping 2 entries, and one keeping 1,000: each decides with its own limits.
        for (limit, evictions) in [(2, 4), (1_000, 0)] {
            var server = Sequencer(board: start, configuration: .init(trash: Trash.Limits(entries: limit)))
            var committed: [CommittedOperation] = []
            for (n, name) in names.enumerated() {
                let op = ClientOperation(
                    opId: "d\(n)", clientId: "bob", base: server.head, op: delete([ItemID(name)]))
                committed.append(try #require(server.submit(op, now: 1000).committed))
            }
            // Each delete past the limit names the entry it evicted.
            #expect(committed.compactMap(\.effect.evicted).joined().count == evictions)
            #expect(server.board.trash.entries.count == min(limit, names.count))
            // A replica with the default limits (500) keeps exactly what the server kept.
            var replica = start
            for operation in committed { try replica.apply(operation) }
            #expect(replica.trash == server.board.trash && replica.trash.bytes == server.board.trash.bytes)
            // A server restarted with other limits replays its log to the same Trash.
            let replayed = try Sequencer(
                snapshot: Snapshot(seq: 0, board: start), replaying: committed,
                configuration: .init(trash: Trash.Limits(entries: 3)))
            #expect(replayed.board.trash == server.board.trash)
        }
        // A batch of two deletes names what both of them evicted.
        var h = Harness(makeBoard(["s": ["a", "b", "c"]]), configuration: .init(trash: Trash.Limits(entries: 1)))
        h.commit(delete(["a"]), opId: "d0")
        let batch = h.commit(.batch(BoardOperation.Batch(ops: [delete(["b"]), delete(["c"])])), opId: "d1")
        #expect(batch.evicted == ["alice:d0", "alice:d1"], "\(String(describing: batch.evicted))")
        #expect(h.board.trash.entries.map(\.id) == ["alice:d1:2"])
    }

    @Test func entriesOlderThanThirtyDaysFallOutAtTheNextDeleteOrRestore() {
        var h = Harness(makeBoard(["s": ["a", "b", "c"]]))
        h.commit(delete(["a"]), opId: "d1")
        h.now += 20 * 86400
        h.commit(delete(["b"]), opId: "d2")
        h.now += 11 * 86400
        // Time alone evicts nothing: eviction depends only on the operations.
        #expect(h.board.trash.entries.count == 2)
        let effect = h.commit(restore("alice:d2"))
        #expect(effect.evicted == ["alice:d1"] && h.board.trash.entries.isEmpty)
        // Replayed elsewhere, the same log evicts the same entries.
        var replica = makeBoard(["s": ["a", "b", "c"]])
        for committed in h.sequencer.operations(after: 0) ?? [] { _ = try? replica.apply(committed) }
        #expect(replica == h.board && replica.trash == h.board.trash)
    }

    @Test func theSnapshotCarriesTheTrash() throws {
        var h = Harness(makeBoard(["s": ["a", "b"], "t": ["c"]]))
        h.commit(delete(["a"]), opId: "d1")
        h.commit(.deleteSection(BoardOperation.DeleteSection(section: "t")), opId: "d2")
        let snapshot = Snapshot(seq: h.sequencer.head, board: h.board)
        let data = try snapshot.jsonData()
        let decoded = try Snapshot(jsonData: data)
        #expect(decoded.board.trash == h.board.trash && decoded == snapshot)
        #expect(h.board.estimatedSnapshotBytes >= data.count)
        #expect(h.board.limitedSnapshotBytes < h.board.estimatedSnapshotBytes)
    }
}

/// R13 and R15 together: undoing a delete restores its Trash entry, so an undo and someone's
/// restore apply once.
@Suite("Undo and the Trash")
struct TrashUndoTests {
    @Test func undoOfADeleteRestoresItsEntryAndRacesARestoreOnce() {
        var u = Undoer()
        u.commit(.delete(BoardOperation.Delete(items: ["b"])))
        #expect(u.board.trash.entries.count == 1)
        let entry = u.board.trash.entries[0].id
        u.commit(.restore(BoardOperation.Restore(entry: entry)), by: "bob")
        let sentence = u.undoRefused(.gone)
        #expect(sentence.contains("restored from the Trash"))
        #expect(u.ids("todo") == ["a", "b", "c", "d"])
    }

    @Test func undoFirstThenSomeonesRestoreIsRefused() {
        var u = Undoer()
        u.commit(.delete(BoardOperation.Delete(items: ["b", "c"])))
        let entry = u.board.trash.entries[0].id
        u.undo()
        #expect(u.ids("todo") == ["a", "b", "c", "d"] && u.board.trash.entries.isEmpty)
        let envelope = ClientOperation(
            opId: "r1", clientId: "bob", base: u.sequencer.head, op: .restore(BoardOperation.Restore(entry: entry)))
        guard case .rejected(let rejection) = u.sequencer.submit(envelope, now: u.now) else {
            Issue.record("a second restore committed")
            return
        }
        #expect(rejection.code == .gone && u.ids("todo") == ["a", "b", "c", "d"])
        // Redo deletes again, into the Trash.
        u.redo()
        #expect(u.ids("todo") == ["a", "d"] && u.board.trash.entries.count == 1)
    }

    @Test func undoOfARestoreDeletesAgainIntoTheTrash() {
        var u = Undoer()
        u.commit(.deleteSection(BoardOperation.DeleteSection(section: "todo")), by: "bob")
        let entry = u.board.trash.entries[0].id
        u.commit(.restore(BoardOperation.Restore(entry: entry)))
        #expect(u.ids("todo") == ["a", "b", "c", "d"])
        u.undo()
        #expect(u.board.sectionIDs(in: "c") == ["done"] && u.board.trash.entries.count == 1)
        u.redo()
        #expect(u.board.sectionIDs(in: "c") == ["todo", "done"] && u.board.trash.entries.isEmpty)
    }

    @Test func emptyingTheTrashCannotBeUndone() {
        var u = Undoer()
        u.commit(.delete(BoardOperation.Delete(items: ["a"])))
        u.commit(.emptyTrash(BoardOperation.EmptyTrash()))
        #expect(u.undoRefused(.invalid).contains("gone for good"))
    }

    @Test func aRecipeThatRestoresHoldsTheEntryIdNotItsContent() {
        var u = Undoer()
        let big = String(repeating: "x", count: 100_000)
        u.commit(.updateItem(BoardOperation.UpdateItem(item: "a", representations: text(big))))
        let before = u.history.heldBytes
        u.commit(.delete(BoardOperation.Delete(items: ["a"])))
        #expect(u.history.heldBytes - before < 1000)
    }
}
