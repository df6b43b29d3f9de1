import CorkboardModel
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Dispatch
import Foundation
import Synchronization
import Testing

/// The SQLite store's basics: the board list, the operation log, group commit, the contiguity
/// check, opening bad files, and the integrity check.
struct StoreTests {
    @Test("the board list round-trips in creation order, across reopening the file")
    func boardListRoundTrip() throws {
        try withStore { store, folder in
            #expect(try store.load().isEmpty)
            let a = record("a", title: "Alpha \"quoted\" / ünïcode")
            let b = record("b", template: .empty)
            try store.save([a, b])
            #expect(try store.load() == [a, b])

            // Updating one record and adding another keeps positions; a dropped record goes away.
            var renamed = b
            renamed.title = "Beta"
            let c = record("c")
            try store.save([renamed, c])
            #expect(try store.load() == [renamed, c])

            let reopened = try SQLiteBoardStore(path: SQLiteBoardStore.path(inDataFolder: folder))
            #expect(try reopened.load() == [renamed, c])
        }
    }

    @Test("every load sees the latest commit, including boards another process adds while the store is open")
    func readsAreNeverStale() throws {
        try withStore { server, folder in
            // The server reads its board once (a snapshot and a log), then keeps appending.
            try server.add(record("demo"))
            server.saveSnapshot(board: "demo", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            #expect(appendAndWait(server, board: "demo", [placeholderCommit(1, board: "demo")]) == nil)
            let first = try server.load(board: "demo")?.log.map(\.seq)
            #expect(first == [1])
            #expect(appendAndWait(server, board: "demo", [placeholderCommit(2, board: "demo")]) == nil)
            let second = try server.load(board: "demo")?.log.map(\.seq)
            #expect(second == [1, 2])

            // `corkboard boards create` in another process, while the server runs.
            let cli = try SQLiteBoardStore(path: SQLiteBoardStore.path(inDataFolder: folder))
            try cli.add(record("later"))
            let ids = try server.load().map(\.id)
            #expect(ids == ["demo", "later"], "the running server sees the new board")
            // And the server's writer is not stuck on an old read snapshot.
            #expect(appendAndWait(server, board: "demo", [placeholderCommit(3, board: "demo")]) == nil)
            try server.save(try server.load() + [record("third")])
            let cliIDs = try cli.load().map(\.id)
            #expect(cliIDs == ["demo", "later", "third"])
            let third = try cli.load(board: "demo")?.log.map(\.seq)
            #expect(third == [1, 2, 3])
        }
    }

    @Test("BoardCatalog.add refuses a taken id and a malformed one, leaving the list as it was")
    func catalogRefusals() throws {
        try withStore { store, _ in
            try store.add(record("a"))
            #expect(throws: CatalogError.self) { try store.add(record("a")) }
            #expect(throws: CatalogError.self) { try store.add(record("no spaces")) }
            #expect(try store.load().map(\.id) == ["a"])
        }
    }

    @Test("the catalog's generation changes with the board list (in any process) and not with operations")
    func catalogGeneration() throws {
        try withStore { store, folder in
            let start = try #require(try store.generation())
            try store.add(record("a"))
            let added = try #require(try store.generation())
            #expect(added != start)
            store.saveSnapshot(board: "a", snapshot: Snapshot(seq: 0, board: try templateBoard("a")), retainingLog: 0)
            var driver = RandomDriver(board: try templateBoard("a"), seed: 3)
            #expect(appendAndWait(store, board: "a", driver.commit(5)) == nil)
            #expect(try store.generation() == added, "operations leave the list alone")
            // Another process (here: another store on the same file) rotates the keys.
            let other = try SQLiteBoardStore(path: SQLiteBoardStore.path(inDataFolder: folder))
            try other.rotateKeys(of: "a")
            other.drain()
            let rotated = try #require(try store.generation())
            #expect(rotated != added)
            #expect(try other.deleteBoard("a"))
            #expect(try store.generation() != rotated)
        }
    }

    @Test("appended operations come back from load in seq order, after the board's first snapshot")
    func operationsRoundTrip() throws {
        try withStore { store, folder in
            #expect(try store.load(board: "b") == nil, "a board without a snapshot has no stored state")
            var driver = RandomDriver(board: try templateBoard("b"), seed: 7)
            let initial = driver.sequencer.snapshot
            store.saveSnapshot(board: "b", snapshot: initial, retainingLog: 0)
            let ops = driver.commit(40)
            #expect(ops.count == 40)
            // In batches of 1 to 5, as rooms hand them over.
            var rest = ops[...]
            while !rest.isEmpty {
                let batch = rest.prefix(rest.count % 5 + 1)
                rest = rest.dropFirst(batch.count)
                #expect(appendAndWait(store, board: "b", Array(batch)) == nil)
            }
            #expect(store.lastFailure == nil)

            let stored = try #require(try store.load(board: "b"))
            #expect(stored.snapshot == initial)
            #expect(stored.log == ops, "every operation, byte for byte, in order")
            // Another board's log is separate.
            #expect(try store.load(board: "other") == nil)

            let reopened = try SQLiteBoardStore(path: SQLiteBoardStore.path(inDataFolder: folder))
            #expect(try reopened.load(board: "b")?.log == ops)
        }
    }

    @Test("appends from several threads at once all complete, each board's in order (group commit)")
    func groupCommit() throws {
        try withStore { store, _ in
            let threads = 8
            let perThread = 150
            for t in 0..<threads {
                store.saveSnapshot(board: "b\(t)", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            }
            store.drain()
            let failures = Mutex<[String]>([])
            let completed = Mutex<[Int]>(Array(repeating: 0, count: threads))
            let done = DispatchGroup()
            func appendAll(_ seqs: ClosedRange<Int>) {
                // Each thread appends its board's operations one by one without waiting.
                DispatchQueue.concurrentPerform(iterations: threads) { t in
                    for seq in seqs {
                        done.enter()
                        store.append(board: "b\(t)", operations: [placeholderCommit(seq, board: "b\(t)")]) { error in
                            completed.withLock { $0[t] += 1 }
                            if let error { failures.withLock { $0.append("b\(t) seq \(seq): \(error)") } }
                            done.leave()
                        }
                    }
                }
            }
            // First with the writer held (completions run on it), so every append piles up for one
            // transaction; then with the writer running, so appends arrive while it commits.
            let gate = DispatchSemaphore(value: 0)
            let held = DispatchSemaphore(value: 0)
            store.append(board: "gate", operations: []) { _ in
                held.signal()
                gate.wait()
            }
            held.wait()
            appendAll(1...perThread / 2)
            gate.signal()
            appendAll(perThread / 2 + 1...perThread)
            #expect(done.wait(timeout: .now() + 60) == .success, "every completion runs")
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(completed.withLock { $0 } == Array(repeating: perThread, count: threads))
            for t in 0..<threads {
                let stored = try #require(try store.load(board: "b\(t)"))
                #expect(stored.log.map(\.seq) == Array(1...perThread), "board b\(t)")
                #expect(stored.log.allSatisfy { $0.opId == "op\($0.seq)" })
            }
        }
    }

    @Test("an append that does not follow the stored seq fails alone and is not stored; later ones work")
    func contiguityCheck() throws {
        try withStore { store, _ in
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            #expect(appendAndWait(store, board: "b", [placeholderCommit(1), placeholderCommit(2)]) == nil)

            let gap = try #require(appendAndWait(store, board: "b", [placeholderCommit(4)]))
            #expect(gap.message.contains("do not follow the stored seq 2"), "\(gap)")
            let repeated = try #require(appendAndWait(store, board: "b", [placeholderCommit(2)]))
            #expect(repeated.message.contains("from seq 2"), "\(repeated)")

            #expect(appendAndWait(store, board: "b", [placeholderCommit(3), placeholderCommit(4)]) == nil)
            #expect(try store.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4])

            // Queued together: the good appends share a transaction with the bad one and still
            // commit; completions run in append order all the same.
            let results = Mutex<[(Int, StoreError?)]>([])
            let done = DispatchGroup()
            // Hold the writer (completions run on it) so the three appends queue up for one round.
            let gate = DispatchSemaphore(value: 0)
            let held = DispatchSemaphore(value: 0)
            store.append(board: "b", operations: []) { _ in
                held.signal()
                gate.wait()
            }
            held.wait()
            for seq in [5, 9, 6] {
                done.enter()
                store.append(board: "b", operations: [placeholderCommit(seq)]) { error in
                    results.withLock { $0.append((seq, error)) }
                    done.leave()
                }
            }
            gate.signal()
            #expect(done.wait(timeout: .now() + 30) == .success)
            let outcome = results.withLock { $0 }
            #expect(outcome.map(\.0) == [5, 9, 6], "completions in append order")
            #expect(outcome.map { $0.1 == nil } == [true, false, true])
            #expect(outcome.dropFirst().first?.1?.message.contains("do not follow") == true)
            let seqs = try store.load(board: "b")?.log.map(\.seq)
            #expect(seqs == [1, 2, 3, 4, 5, 6])
        }
    }

    @Test("R14: an atomic append of two boards commits both parts or neither; a gap in one part fails both")
    func atomicAppend() throws {
        try withStore { (store: SQLiteBoardStore, _: String) throws in
            for board in ["a", "z"] {
                store.saveSnapshot(board: board, snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            }
            func appendBoth(_ a: [Int], _ z: [Int]) -> [StoreError?] {
                let results = Mutex<[StoreError?]>([])
                let done = DispatchGroup()
                done.enter()
                done.enter()
                store.append(atomically: [
                    BoardAppend(board: "a", operations: a.map { placeholderCommit($0, board: "a") }) { error in
                        results.withLock { $0.append(error) }
                        done.leave()
                    },
                    BoardAppend(board: "z", operations: z.map { placeholderCommit($0, board: "z") }) { error in
                        results.withLock { $0.append(error) }
                        done.leave()
                    },
                ])
                #expect(done.wait(timeout: .now() + 30) == .success)
                return results.withLock { $0 }
            }
            #expect(appendBoth([1], [1]).allSatisfy { $0 == nil })
            // z's part would leave a gap: neither part is stored, and both are told why.
            let refused = appendBoth([2], [3])
            #expect(refused.count == 2)
            #expect(refused.allSatisfy { $0?.message.contains("do not follow the stored seq 1") == true }, "\(refused)")
            #expect(try store.load(board: "a")?.log.map(\.seq) == [1])
            #expect(try store.load(board: "z")?.log.map(\.seq) == [1])
            // The seqs the refused append did not take are still free on both boards.
            #expect(appendBoth([2], [2]).allSatisfy { $0 == nil })
            #expect(try store.load(board: "a")?.log.map(\.seq) == [1, 2])
            #expect(try store.load(board: "z")?.log.map(\.seq) == [1, 2])
        }
    }

    @Test("an append to a board that starts from an imported snapshot must continue from its seq")
    func contiguityAfterSnapshot() throws {
        try withStore { (store: SQLiteBoardStore, _: String) throws in
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 10, board: Board()), retainingLog: 0)
            #expect(appendAndWait(store, board: "b", [placeholderCommit(1)]) != nil)
            #expect(appendAndWait(store, board: "b", [placeholderCommit(11)]) == nil)
            #expect(try store.load(board: "b")?.log.map(\.seq) == [11])
        }
    }

    @Test("writes happen in queue order: a new board's first snapshot is durable before its first operation is acked")
    func snapshotBeforeAppendIsDurableFirst() throws {
        try withStore { store, _ in
            for round in 0..<20 {
                let board = "b\(round)"
                let seen = Mutex<[String]>([])
                let done = DispatchSemaphore(value: 0)
                // As BoardDirectory does for a new board, then a room's first batch, back to back.
                store.saveSnapshot(board: board, snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
                store.append(board: board, operations: [placeholderCommit(1, board: board)]) { error in
                    let stored = try? store.load(board: board)
                    seen.withLock {
                        $0.append("error \(String(describing: error)), snapshot \(stored?.snapshot.seq ?? -1)")
                    }
                    done.signal()
                }
                #expect(done.wait(timeout: .now() + 30) == .success)
                #expect(seen.withLock { $0 } == ["error nil, snapshot 0"], "round \(round)")
            }
        }
    }

    @Test("an empty append completes without error")
    func emptyAppend() throws {
        try withStore { store, _ in
            #expect(appendAndWait(store, board: "b", []) == nil)
        }
    }

    @Test("integrityCheck says ok for a store in use, in both durability modes")
    func integrity() throws {
        for durability in SQLiteBoardStore.Durability.allCases {
            try withStore(durability: durability) { (store: SQLiteBoardStore, _: String) throws in
                store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
                #expect(appendAndWait(store, board: "b", (1...20).map { placeholderCommit($0) }) == nil)
                #expect(try store.integrityCheck() == ["ok"])
            }
        }
    }

    @Test("a file that is not a database is refused as corrupt, naming what to do")
    func notADatabase() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: StoreError.self) { try SQLiteBoardStore(path: path) }
            #expect(error.kind == .corrupt, "\(error)")
            #expect(error.message.contains("backup"), "\(error)")
        }
    }

    @Test("a database of a newer schema is refused with a message saying to upgrade")
    func newerSchema() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            do {
                _ = try SQLiteBoardStore(path: path)
            }
            try SQLiteShell.run(path, "UPDATE meta SET value = '3' WHERE key = 'schema'")
            let error = try #require(throws: StoreError.self) { try SQLiteBoardStore(path: path) }
            #expect(error.kind == .invalidData)
            #expect(error.message.contains("schema 3") && error.message.contains("Upgrade the server"), "\(error)")
            let reading = try #require(throws: StoreError.self) { try SQLiteBoardStore(readingOnly: path) }
            #expect(reading.message.contains("schema 3"), "\(reading)")
        }
    }
}
