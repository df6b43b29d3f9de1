import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Dispatch
import Foundation
import Synchronization
import Testing

extension StoreContractTests {
    /// Appends on both stores: group commit, completions in order, no gaps, moves all or nothing,
    /// and writes in queue order.
    @Suite("appends")
    struct Appends {
        @Test(
            "appended operations come back from load in seq order, byte for byte, from any process",
            arguments: StoreKind.running)
        func operationsRoundTrip(kind: StoreKind) async throws {
            try await kind.withStore { (store, reopen) async throws in
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
                #expect(try reopen().load(board: "b")?.log == ops)
            }
        }

        @Test(
            "the store writes the records the room encoded, not its own encoding (commit and announce once)",
            arguments: StoreKind.running)
        func writesTheGivenRecords(kind: StoreKind) async throws {
            try await kind.withStore(started: ["b"]) { (store, reopen) async throws in
                store.drain()
                let operation = placeholderCommit(1, board: "b")
                // A record that says something its operation does not: only a store that writes the
                // given bytes loads it back.
                var marked = operation
                marked.opId = "encoded-by-the-room"
                let record = try #require(WireCodec.encode(marked))
                let errors = appendTogether(
                    store, [BoardAppend(board: "b", operations: [operation], records: [record]) { _ in }])
                #expect(errors == [nil])
                #expect(try reopen().load(board: "b")?.log.map(\.opId) == ["encoded-by-the-room"])
            }
        }

        @Test(
            "appends from several threads at once all complete, each board's in order (group commit)",
            arguments: StoreKind.running)
        func groupCommit(kind: StoreKind) async throws {
            try await kind.withStore { (store, _) async throws in
                let threads = 8
                let perThread = 150
                startBoards(store, (0..<threads).map { "b\($0)" })
                store.drain()
                let failures = Mutex<[String]>([])
                let completed = Mutex<[Int]>(Array(repeating: 0, count: threads))
                let done = DispatchGroup()
                func appendAll(_ seqs: ClosedRange<Int>) {
                    // Each thread appends its board's operations one by one without waiting.
                    DispatchQueue.concurrentPerform(iterations: threads) { t in
                        for seq in seqs {
                            done.enter()
                            store.append(board: "b\(t)", operations: [placeholderCommit(seq, board: "b\(t)")]) {
                                error in
                                completed.withLock { $0[t] += 1 }
                                if let error { failures.withLock { $0.append("b\(t) seq \(seq): \(error)") } }
                                done.leave()
                            }
                        }
                    }
                }
                // First with the writer held (completions run on it), so every append piles up for
                // one transaction; then with the writer running, so appends arrive while it commits.
                let release = holdWriter(appending: store.append(atomically:))
                appendAll(1...perThread / 2)
                release()
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

        @Test(
            "an append that does not follow the stored seq fails alone and is not stored; queued good ones commit",
            arguments: StoreKind.running)
        func contiguity(kind: StoreKind) async throws {
            try await kind.withStore(started: ["b"]) { (store, _) async throws in
                #expect(appendAndWait(store, board: "b", [placeholderCommit(1), placeholderCommit(2)]) == nil)
                let gap = try #require(appendAndWait(store, board: "b", [placeholderCommit(4)]))
                #expect(gap.message.contains("do not follow the stored seq 2"), "\(gap)")
                let repeated = try #require(appendAndWait(store, board: "b", [placeholderCommit(2)]))
                #expect(repeated.message.contains("from seq 2"), "\(repeated)")
                #expect(appendAndWait(store, board: "b", [placeholderCommit(3), placeholderCommit(4)]) == nil)
                #expect(try store.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4])

                // Queued together behind the held writer: the good appends share a transaction with
                // the bad one and still commit; completions run in append order all the same.
                let results = Mutex<[(Int, StoreError?)]>([])
                let done = DispatchGroup()
                let release = holdWriter(appending: store.append(atomically:))
                for seq in [5, 9, 6] {
                    done.enter()
                    store.append(board: "b", operations: [placeholderCommit(seq)]) { error in
                        results.withLock { $0.append((seq, error)) }
                        done.leave()
                    }
                }
                release()
                #expect(done.wait(timeout: .now() + 30) == .success)
                let outcome = results.withLock { $0 }
                #expect(outcome.map(\.0) == [5, 9, 6], "completions in append order")
                #expect(outcome.map { $0.1 == nil } == [true, false, true])
                #expect(outcome.dropFirst().first?.1?.message.contains("do not follow") == true)
                #expect(try store.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4, 5, 6])
            }
        }

        @Test(
            "an append to a board that starts from an imported snapshot must continue from its seq",
            arguments: StoreKind.running)
        func contiguityAfterSnapshot(kind: StoreKind) async throws {
            try await kind.withStore { (store, _) async throws in
                store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 10, board: Board()), retainingLog: 0)
                #expect(appendAndWait(store, board: "b", [placeholderCommit(1)]) != nil)
                #expect(appendAndWait(store, board: "b", [placeholderCommit(11)]) == nil)
                #expect(try store.load(board: "b")?.log.map(\.seq) == [11])
            }
        }

        @Test(
            "R14: an atomic append of two boards commits both parts or neither; a gap in one part fails both",
            arguments: StoreKind.running)
        func atomicAppend(kind: StoreKind) async throws {
            try await kind.withStore(started: ["a", "z"]) { (store, _) async throws in
                #expect(appendTogether(store, [placeholderPart("a", [1]), placeholderPart("z", [1])]) == [nil, nil])
                // z's part would leave a gap: neither part is stored, and both are told why.
                let refused = appendTogether(store, [placeholderPart("a", [2]), placeholderPart("z", [3])])
                #expect(refused.count == 2)
                #expect(
                    refused.allSatisfy { $0?.message.contains("do not follow the stored seq 1") == true }, "\(refused)")
                #expect(try store.load(board: "a")?.log.map(\.seq) == [1])
                #expect(try store.load(board: "z")?.log.map(\.seq) == [1])
                // The seqs the refused append did not take are still free on both boards.
                #expect(appendTogether(store, [placeholderPart("a", [2]), placeholderPart("z", [2])]) == [nil, nil])
                #expect(try store.load(board: "a")?.log.map(\.seq) == [1, 2])
                #expect(try store.load(board: "z")?.log.map(\.seq) == [1, 2])
            }
        }

        @Test(
            "writes happen in queue order: a new board's first snapshot is durable before its first operation is acked",
            arguments: StoreKind.running)
        func snapshotBeforeAppend(kind: StoreKind) async throws {
            try await kind.withStore { (store, _) async throws in
                for round in 0..<20 {
                    let board = "b\(round)"
                    let seen = Mutex<[String]>([])
                    let done = DispatchSemaphore(value: 0)
                    // As BoardDirectory does for a new board, then a room's first batch, back to back.
                    startBoards(store, [board])
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

        @Test("an empty append completes without error", arguments: StoreKind.running)
        func emptyAppend(kind: StoreKind) async throws {
            try await kind.withStore { (store, _) async throws in
                #expect(appendAndWait(store, board: "b", []) == nil)
            }
        }
    }
}
