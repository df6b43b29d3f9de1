import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Dispatch
import Foundation
import Synchronization
import Testing

/// The `BoardStore` contract, run on both stores: the embedded SQLite store and the shared
/// PostgreSQL store behave the same for everything the rooms rely on.
@Suite("BoardStore contract")
struct StoreContractTests {
    static let kinds = StoreKind.allCases.filter(\.runs)

    @Test("the board list round-trips in creation order; add refuses a taken or malformed id", arguments: kinds)
    func boardList(kind: StoreKind) async throws {
        try await kind.withStore { (store, reopen) async throws in
            #expect(try store.load().isEmpty)
            let a = record("a", title: "Alpha \"quoted\" / ünïcode")
            let b = record("b", template: .empty)
            try store.save([a, b])
            #expect(try store.load() == [a, b])
            var renamed = b
            renamed.title = "Beta"
            try store.save([renamed, record("c")])
            #expect(try store.load() == [renamed, record("c")])
            try store.add(record("d"))
            #expect(throws: CatalogError.self) { try store.add(record("d")) }
            #expect(throws: CatalogError.self) { try store.add(record("no spaces")) }
            #expect(try reopen().load().map(\.id) == ["b", "c", "d"])
            let rotated = try store.rotateKeys(of: "c")
            #expect(rotated.keys != record("c").keys)
            #expect(try reopen().load().first { $0.id == "c" }?.keys == rotated.keys)
            #expect(throws: CatalogError.self) { try store.rotateKeys(of: "nope") }
        }
    }

    @Test("appended operations come back from load in seq order, byte for byte, from any process", arguments: kinds)
    func operationsRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { (store, reopen) async throws in
            #expect(try store.load(board: "b") == nil, "a board without a snapshot has no stored state")
            var driver = RandomDriver(board: try templateBoard("b"), seed: 7)
            let initial = driver.sequencer.snapshot
            store.saveSnapshot(board: "b", snapshot: initial, retainingLog: 0)
            let ops = driver.commit(40)
            var rest = ops[...]
            while !rest.isEmpty {
                let batch = rest.prefix(rest.count % 5 + 1)
                rest = rest.dropFirst(batch.count)
                #expect(appendAndWait(store, board: "b", Array(batch)) == nil)
            }
            #expect(store.lastFailure == nil)
            let stored = try #require(try store.load(board: "b"))
            #expect(stored.snapshot == initial)
            #expect(stored.log == ops)
            #expect(try store.load(board: "other") == nil)
            #expect(try reopen().load(board: "b")?.log == ops)
        }
    }

    @Test("appends from several threads at once all complete, each board's in order (group commit)", arguments: kinds)
    func groupCommit(kind: StoreKind) async throws {
        try await kind.withStore { (store, _) async throws in
            let threads = 6
            let perThread = 60
            for t in 0..<threads {
                store.saveSnapshot(board: "b\(t)", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            }
            store.drain()
            let failures = Mutex<[String]>([])
            let done = DispatchGroup()
            DispatchQueue.concurrentPerform(iterations: threads) { t in
                for seq in 1...perThread {
                    done.enter()
                    store.append(board: "b\(t)", operations: [placeholderCommit(seq, board: "b\(t)")]) { error in
                        if let error { failures.withLock { $0.append("b\(t) seq \(seq): \(error)") } }
                        done.leave()
                    }
                }
            }
            #expect(done.wait(timeout: .now() + 60) == .success, "every completion runs")
            #expect(failures.withLock { $0 }.isEmpty)
            for t in 0..<threads {
                #expect(try store.load(board: "b\(t)")?.log.map(\.seq) == Array(1...perThread), "board b\(t)")
            }
        }
    }

    @Test("an append that does not follow the stored seq fails alone; queued good ones still commit", arguments: kinds)
    func contiguity(kind: StoreKind) async throws {
        try await kind.withStore { (store, _) async throws in
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            #expect(appendAndWait(store, board: "b", [placeholderCommit(1), placeholderCommit(2)]) == nil)
            let gap = try #require(appendAndWait(store, board: "b", [placeholderCommit(4)]))
            #expect(gap.message.contains("do not follow the stored seq 2"), "\(gap)")
            let repeated = try #require(appendAndWait(store, board: "b", [placeholderCommit(2)]))
            #expect(repeated.message.contains("from seq 2"), "\(repeated)")
            #expect(appendAndWait(store, board: "b", [placeholderCommit(3)]) == nil)

            // Queued together behind a held writer: the bad one fails alone, completions in order.
            let results = Mutex<[(Int, StoreError?)]>([])
            let done = DispatchGroup()
            let gate = DispatchSemaphore(value: 0)
            let held = DispatchSemaphore(value: 0)
            store.append(board: "b", operations: []) { _ in
                held.signal()
                gate.wait()
            }
            held.wait()
            for seq in [4, 8, 5] {
                done.enter()
                store.append(board: "b", operations: [placeholderCommit(seq)]) { error in
                    results.withLock { $0.append((seq, error)) }
                    done.leave()
                }
            }
            gate.signal()
            #expect(done.wait(timeout: .now() + 30) == .success)
            let outcome = results.withLock { $0 }
            #expect(outcome.map(\.0) == [4, 8, 5])
            #expect(outcome.map { $0.1 == nil } == [true, false, true])
            #expect(try store.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4, 5])
        }
    }

    @Test("R14: an atomic append of two boards commits both parts or neither", arguments: kinds)
    func atomicAppend(kind: StoreKind) async throws {
        try await kind.withStore { (store, _) async throws in
            for board in ["a", "z"] {
                store.saveSnapshot(board: board, snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            }
            #expect(appendBoth(store, ("a", [1]), ("z", [1])).allSatisfy { $0 == nil })
            let refused = appendBoth(store, ("a", [2]), ("z", [3]))
            #expect(refused.count == 2 && refused.allSatisfy { $0 != nil }, "\(refused)")
            #expect(try store.load(board: "a")?.log.map(\.seq) == [1])
            #expect(try store.load(board: "z")?.log.map(\.seq) == [1])
            #expect(appendBoth(store, ("a", [2]), ("z", [2])).allSatisfy { $0 == nil })
            #expect(try store.load(board: "z")?.log.map(\.seq) == [1, 2])
        }
    }

    @Test(
        "snapshot + replay equals the live board; compaction keeps the resume window",
        arguments: kinds, [(snapshotAt: 60, retaining: 25), (snapshotAt: 20, retaining: 50)])
    func snapshotAndReplay(kind: StoreKind, point: (snapshotAt: Int, retaining: Int)) async throws {
        let seed = storeTestSeed()
        print("StoreContractTests seed \(seed) (set CORKBOARD_STORE_SEED to replay)")
        try await kind.withStore { (store, reopen) async throws in
            var driver = RandomDriver(board: try templateBoard("b"), seed: seed)
            store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 0)
            let before = driver.commit(point.snapshotAt)
            #expect(appendAndWait(store, board: "b", before) == nil)
            let snapshot = driver.sequencer.snapshot
            store.saveSnapshot(board: "b", snapshot: snapshot, retainingLog: point.retaining)
            let after = driver.commit(40)
            for op in after { #expect(appendAndWait(store, board: "b", [op]) == nil) }
            store.drain()
            #expect(store.lastFailure == nil)
            let head = point.snapshotAt + 40
            for reader in [store, try reopen()] {
                let stored = try #require(try reader.load(board: "b"))
                #expect(stored.snapshot == snapshot, "seed \(seed)")
                let firstKept = max(1, point.snapshotAt - point.retaining + 1)
                #expect(stored.log.map(\.seq) == Array(firstKept...head), "seed \(seed): the retained window")
                let restored = try Sequencer(snapshot: stored.snapshot, replaying: stored.log)
                #expect(restored.board == driver.sequencer.board, "seed \(seed): replayed board differs")
                #expect(restored.board.checkInvariants().isEmpty)
                #expect(restored.operations(after: firstKept - 1) == Array((before + after)[(firstKept - 1)...]))
            }
        }
    }

    @Test(
        "R18: big operations churned with snapshots leave only the retained log behind the latest one",
        arguments: kinds)
    func fatChurnKeepsTheRetainedLog(kind: StoreKind) async throws {
        try await kind.withStore { (store, reopen) async throws in
            let opBytes = 64 << 10
            func fat(_ seq: Int) -> CommittedOperation {
                CommittedOperation(
                    seq: seq, opId: "op\(seq)", clientId: "tester",
                    op: .updateItem(
                        .init(
                            item: ItemID("b-gc1"),
                            representations: [
                                Representation(type: "public.plain-text", value: String(repeating: "z", count: opBytes))
                            ])), effect: Effect())
            }
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            for seq in 1...120 {
                #expect(appendAndWait(store, board: "b", [fat(seq)]) == nil)
                // As a room whose resume log holds 3 such operations saves a snapshot every 10.
                if seq % 10 == 0 {
                    store.saveSnapshot(board: "b", snapshot: Snapshot(seq: seq, board: Board()), retainingLog: 3)
                }
            }
            store.drain()
            #expect(store.lastFailure == nil)
            for reader in [store, try reopen()] {
                let stored = try #require(try reader.load(board: "b"))
                #expect(stored.snapshot.seq == 120)
                #expect(stored.log.map(\.seq) == [118, 119, 120], "7.5 MiB written, 192 KiB kept")
            }
        }
    }

    @Test(
        "writes happen in queue order: a new board's first snapshot is durable before its first operation",
        arguments: kinds)
    func snapshotBeforeAppend(kind: StoreKind) async throws {
        try await kind.withStore { (store, _) async throws in
            for round in 0..<5 {
                let board = "b\(round)"
                let seen = Mutex<String>("")
                let done = DispatchSemaphore(value: 0)
                store.saveSnapshot(board: board, snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
                store.append(board: board, operations: [placeholderCommit(1, board: board)]) { error in
                    let stored = try? store.load(board: board)
                    seen.withLock { $0 = "error \(String(describing: error)), snapshot \(stored?.snapshot.seq ?? -1)" }
                    done.signal()
                }
                #expect(done.wait(timeout: .now() + 30) == .success)
                #expect(seen.withLock { $0 } == "error nil, snapshot 0", "round \(round)")
            }
        }
    }
}

/// Appends two boards' operations as one atomic append and waits for both completions.
func appendBoth(
    _ store: any BoardStore, _ first: (String, [Int]), _ second: (String, [Int]), epochs: (Int?, Int?) = (nil, nil)
)
    -> [StoreError?]
{
    let results = Mutex<[StoreError?]>([])
    let done = DispatchGroup()
    done.enter()
    done.enter()
    store.append(atomically: [
        BoardAppend(
            board: first.0, operations: first.1.map { placeholderCommit($0, board: first.0) }, epoch: epochs.0
        ) { error in
            results.withLock { $0.append(error) }
            done.leave()
        },
        BoardAppend(
            board: second.0, operations: second.1.map { placeholderCommit($0, board: second.0) }, epoch: epochs.1
        ) { error in
            results.withLock { $0.append(error) }
            done.leave()
        },
    ])
    guard done.wait(timeout: .now() + 30) == .success else { return [StoreError(.io, "test: no completion")] }
    return results.withLock { $0 }
}
