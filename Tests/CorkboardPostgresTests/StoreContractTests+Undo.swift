import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Testing

extension StoreContractTests {
    /// The undo histories' part of the `BoardStore` contract (R13, R18), on both stores: the changes
    /// of each client's history are written with the operations they came with, the store keeps
    /// exactly the entries the history keeps, and a history restored from a store undoes as the
    /// first one would have.
    @Suite("undo histories")
    struct UndoHistories {
        /// A board, its sequencer and the clients' history, committing through a store.
        struct Writer {
            let store: any BoardStore
            let ids = DemoIDs(board: "b")
            var sequencer: Sequencer
            var history = UndoHistory(boardTitle: "B", configuration: .init(depth: 2, guaranteed: 1))

            init(store: any BoardStore) throws {
                self.store = store
                sequencer = Sequencer(board: try templateBoard("b"))
                history.tracksChanges = true
                store.saveSnapshot(board: "b", snapshot: sequencer.snapshot, retainingLog: 0)
            }

            /// Commits `op` of `client` and stores it with the history's changes.
            mutating func commit(_ op: BoardOperation, by client: String, opId: String) throws {
                let envelope = ClientOperation(opId: opId, clientId: client, base: sequencer.head, op: op)
                let committed = try #require(history.submit(envelope, to: &sequencer, now: 0).committed)
                #expect(appendAndWait(store, board: "b", [committed], undo: history.takeChanges()) == nil)
            }

            mutating func undo(_ client: String, opId: String) throws {
                let answer = history.perform(
                    .undo, clientId: client, opId: opId, base: sequencer.head, sequencer: &sequencer, now: 0)
                guard case .committed(let committed) = answer else {
                    Issue.record("\(opId) was not committed: \(answer)")
                    return
                }
                #expect(appendAndWait(store, board: "b", [committed], undo: history.takeChanges()) == nil)
            }

            func move(_ card: Int) -> BoardOperation {
                .move(.init(items: [ids.gc(card)], destination: ids.at(ids.found, ids.foundSection, 0)))
            }
        }

        /// (client, stack, seq) of stored entries, sorted.
        func shape(_ entries: [UndoHistory.StoredEntry]) -> [String] {
            entries.map { "\($0.clientId) \($0.stack.rawValue) \($0.seq)" }.sorted()
        }

        @Test(
            "each client's history is stored with its operations, pruned as it changes, and undoes after a reload",
            arguments: StoreKind.running)
        func roundTrip(kind: StoreKind) async throws {
            try await kind.withStore { (store, reopen) async throws in
                var w = try Writer(store: store)
                try w.commit(w.move(1), by: "ada", opId: "a1")
                try w.commit(.delete(.init(items: [w.ids.gc(2)])), by: "ada", opId: "a2")
                try w.commit(w.move(3), by: "bob", opId: "b1")
                let loaded = try #require(try store.load(board: "b")).undo
                #expect(shape(loaded) == ["ada undo 1", "ada undo 2", "bob undo 3"])
                let deleted = try #require(loaded.first { $0.seq == 2 })
                guard case .restoreTrash(let entry) = deleted.recipe.step else {
                    Issue.record("the delete's recipe came back as \(deleted.recipe.step)")
                    return
                }
                #expect(entry == "ada:a2", "the delete's Trash entry, by id (R15)")
                #expect(deleted.recipe.summary.hasPrefix("deleting "))

                try w.undo("ada", opId: "u1")  // seq 4: the delete undone, a redo entry
                #expect(shape(try store.load(board: "b")!.undo) == ["ada redo 4", "ada undo 1", "bob undo 3"])
                try w.commit(w.move(5), by: "ada", opId: "a3")  // seq 5: the redo stack is cleared
                try w.commit(w.move(6), by: "ada", opId: "a4")  // seq 6: past the depth of 2, seq 1 goes
                #expect(shape(try reopen().load(board: "b")!.undo) == ["ada undo 5", "ada undo 6", "bob undo 3"])

                // A history that forgot a client, with no operation: its rows go in a part of its own.
                w.history.forget(client: "bob")
                #expect(appendAndWait(store, board: "b", [], undo: w.history.takeChanges()) == nil)
                // A refused append writes nothing of its histories either.
                let stray = UndoHistory.StoredEntry(
                    clientId: "eve", stack: .undo, seq: 99, recipe: .notUndoable("test", summary: "testing"))
                let gap = CommittedOperation(seq: 99, opId: "x", clientId: "eve", op: w.move(7), effect: Effect())
                let refused = appendAndWait(
                    store, board: "b", [gap], undo: [.init(clientId: "eve", added: [stray])])
                #expect(refused != nil)

                // A server started again: the board from its log, the history from the store.
                let stored = try #require(try reopen().load(board: "b"))
                #expect(shape(stored.undo) == ["ada undo 5", "ada undo 6"])
                var sequencer = try Sequencer(snapshot: stored.snapshot, replaying: stored.log)
                var history = UndoHistory(boardTitle: "B")
                history.restore(stored.undo)
                #expect(history.state(of: "ada") == .init(undo: true, redo: false))
                let answer = history.perform(
                    .undo, clientId: "ada", opId: "u2", base: sequencer.head, sequencer: &sequencer, now: 0)
                guard case .committed = answer else {
                    Issue.record("the undo after the reload was not committed: \(answer)")
                    return
                }
                #expect(
                    sequencer.board.itemIDs(in: w.ids.toFind) == w.ids.cards(2, 4, 6, 7, 8),
                    "card 6 back between 4 and 7 (R3 anchors)")
            }
        }

        @Test(
            "a delta applies in order: rows of dropped seqs and forgotten clients go, a replaced board keeps only what is listed",
            arguments: StoreKind.running)
        func deltaInOrder(kind: StoreKind) async throws {
            try await kind.withStore { store, reopen in
                _ = try Writer(store: store)  // the board and its seq-0 snapshot
                func entry(_ client: String, _ seq: Int, _ stack: UndoHistory.Direction = .undo)
                    -> UndoHistory.StoredEntry
                {
                    .init(
                        clientId: client, stack: stack, seq: seq,
                        recipe: .notUndoable("test \(seq)", summary: "testing"))
                }
                // Every store starts a board with its seq-0 snapshot: histories may go without operations.
                #expect(
                    appendAndWait(
                        store, board: "b", [],
                        undo: [
                            .init(clientId: "ada", added: [entry("ada", 1), entry("ada", 2), entry("ada", 3, .redo)]),
                            .init(clientId: "bob", added: [entry("bob", 4)]),
                        ]) == nil)
                #expect(
                    shape(try store.load(board: "b")!.undo) == ["ada redo 3", "ada undo 1", "ada undo 2", "bob undo 4"])
                // Two parts of one append: the second's delta applies after the first's.
                let parts = [
                    BoardAppend(
                        board: "b", operations: [],
                        undo: [.init(clientId: "ada", removed: [1, 3], added: [entry("ada", 5)])]
                    ) { _ in },
                    BoardAppend(
                        board: "b", operations: [],
                        undo: [
                            .init(clientId: "ada", removed: [5]), .init(clientId: "bob", removesAll: true),
                            .init(clientId: "cy", added: [entry("cy", 6)]),
                        ]
                    ) { _ in },
                ]
                store.append(atomically: parts)
                store.drain()
                #expect(shape(try reopen().load(board: "b")!.undo) == ["ada undo 2", "cy undo 6"])
                let replaced = UndoHistory.Changes(
                    replacesAll: true, clients: [.init(clientId: "bob", added: [entry("bob", 7, .redo)])])
                #expect(appendAndWait(store, board: "b", [], undo: replaced) == nil)
                let stored = try #require(try reopen().load(board: "b")).undo
                #expect(shape(stored) == ["bob redo 7"])
                #expect(stored.first?.recipe == entry("bob", 7).recipe)
            }
        }
    }
}
