import CorkboardModel
import CorkboardPostgres
import CorkboardStorage
import CorkboardTesting
import Dispatch
import PostgresNIO
import Synchronization
import Testing

/// Leases and fencing on PostgreSQL: only the writer of the board's current epoch commits, so a
/// node that lost its lease (a pause, a partition) can never write the board again.
@Suite("Epoch fencing", .enabled(if: TestPostgres.enabled))
struct FencingTests {
    @Test("a write under an old epoch is refused (fenced) and changes nothing; the new epoch writes")
    func oldEpochIsRefused() async throws {
        try await TestPostgres.withStore { url, store in
            let first = try PostgresCluster(url: url, leaseDuration: .seconds(30), logger: TestPostgres.logger)
            let second = try PostgresCluster(url: url, leaseDuration: .seconds(30), logger: TestPostgres.logger)
            try store.add(record("b"))
            let old = try #require(try await first.claim("b"))
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0, epoch: old)
            #expect(appendFenced(store, "b", [1, 2], epoch: old) == nil)

            // Another node cannot claim a valid lease; once it is released, it claims the next epoch.
            #expect(try await second.claim("b") == nil)
            try await first.release("b", epoch: old)
            let new = try #require(try await second.claim("b"))
            #expect(new == old + 1)

            let refused = try #require(appendFenced(store, "b", [3], epoch: old))
            #expect(refused.kind == .fenced, "\(refused)")
            #expect(refused.message.contains("held by another node"), "\(refused)")
            #expect(store.lastFailure == nil, "a fenced write is not a database failure")
            #expect(try store.load(board: "b")?.log.map(\.seq) == [1, 2], "nothing of the old epoch landed")

            #expect(appendFenced(store, "b", [3], epoch: new) == nil)
            #expect(try store.load(board: "b")?.log.map(\.seq) == [1, 2, 3])
            let epochs = try await TestPostgres.rows(
                "SELECT epoch FROM corkboard_operations WHERE board = 'b' ORDER BY seq", on: url
            ).map { try $0.decode(Int64.self) }
            #expect(epochs == [Int64(old), Int64(old), Int64(new)], "every row names its writer's epoch")

            // A snapshot under the old epoch is not written either.
            store.saveSnapshot(
                board: "b", snapshot: Snapshot(seq: 3, board: Board()), retainingLog: 0, epoch: old)
            store.drain()
            #expect(try store.load(board: "b")?.snapshot.seq == 0)
        }
    }

    @Test(
        "R14: an atomic append across two boards is refused whole when one part's epoch is old, activity entries too"
    )
    func atomicAppendFencesEveryPart() async throws {
        try await withStartedBoards(["a", "z"], nodes: 1) { store, nodes in
            let node = nodes[0]
            let a = try #require(try await node.claim("a"))
            let z = try #require(try await node.claim("z"))
            #expect(
                appendTogether(store, [placeholderPart("a", [1], epoch: a), placeholderPart("z", [1], epoch: z)]) == [
                    nil, nil,
                ])
            try await node.release("z", epoch: z)
            let z2 = try #require(try await node.claim("z"))
            let refused = appendTogether(
                store,
                [
                    withActivity(placeholderPart("a", [2], epoch: a)),
                    withActivity(placeholderPart("z", [2], epoch: z)),
                ])
            #expect(refused.count == 2 && refused.allSatisfy { $0?.kind == .fenced }, "\(refused)")
            #expect(try store.load(board: "a")?.log.map(\.seq) == [1], "the part with a good epoch is not stored alone")
            #expect(try store.load(board: "a")?.activity == [], "nor its activity entries (issue 43)")
            #expect(try store.load(board: "z")?.activity == [])
            #expect(
                appendTogether(store, [placeholderPart("a", [2], epoch: a), placeholderPart("z", [2], epoch: z2)]) == [
                    nil, nil,
                ])
        }
    }

    @Test("a fenced append fails alone: other boards' appends in the same transaction commit")
    func fencedAppendFailsAlone() async throws {
        try await withStartedBoards(["a", "b"], nodes: 1) { store, nodes in
            let node = nodes[0]
            let a = try #require(try await node.claim("a"))
            let b = try #require(try await node.claim("b"))
            try await node.release("b", epoch: b)
            _ = try #require(try await node.claim("b"))
            // Hold the writer so both appends share one transaction.
            let release = holdWriter(appending: store.append(atomically:))
            let results = Mutex<[String: StoreError?]>([:])
            let done = DispatchGroup()
            for (board, epoch) in [("a", a), ("b", b)] {
                done.enter()
                store.append(atomically: [
                    BoardAppend(board: board, operations: [placeholderCommit(1, board: board)], epoch: epoch) {
                        error in
                        results.withLock { $0[board] = error }
                        done.leave()
                    }
                ])
            }
            release()
            #expect(done.wait(timeout: .now() + 30) == .success)
            let outcome = results.withLock { $0 }
            #expect(outcome["a"] == .some(nil), "\(outcome)")
            #expect(outcome["b"]??.kind == .fenced, "\(outcome)")
        }
    }

    @Test("R14 across nodes: a move's record commits with its transaction, or is decided aborted first")
    func moveDecisions() async throws {
        try await withStartedBoards(["s", "d"], nodes: 2) { store, nodes in
            let (source, destination) = (nodes[0], nodes[1])
            let s = try #require(try await source.claim("s"))
            let d = try #require(try await destination.claim("d"))

            // Committed with its transaction: the destination learns it from the database.
            #expect(appendMove(store, move: "mv-1", source: ("s", 1, s), destination: ("d", 1, d)) == [nil, nil])
            #expect(try await destination.decideMove("mv-1") == true)

            // Decided aborted before the source's transaction: that transaction stores nothing.
            #expect(try await destination.decideMove("mv-2") == false)
            let late = appendMove(store, move: "mv-2", source: ("s", 2, s), destination: ("d", 2, d))
            #expect(late.allSatisfy { $0?.message.contains("given up") == true }, "\(late)")
            #expect(try store.load(board: "s")?.log.map(\.seq) == [1])
            #expect(try store.load(board: "d")?.log.map(\.seq) == [1])
            #expect(try await destination.decideMove("mv-2") == false, "a decision does not change")
        }
    }
}

/// Runs `body` on a fresh database with a store whose `boards` are added and started (a snapshot
/// at seq 0 each), and `nodes` cluster nodes with 30 s leases.
func withStartedBoards(
    _ boards: [String], nodes count: Int, _ body: (PostgresBoardStore, [PostgresCluster]) async throws -> Void
) async throws {
    try await TestPostgres.withStore { url, store in
        let nodes = try (0..<count).map { _ in
            try PostgresCluster(url: url, leaseDuration: .seconds(30), logger: TestPostgres.logger)
        }
        for board in boards {
            try store.add(record(board))
            startBoards(store, [board])
        }
        try await body(store, nodes)
    }
}

/// Appends operations of one board under an epoch and waits.
func appendFenced(_ store: any BoardStore, _ board: String, _ seqs: [Int], epoch: Int) -> StoreError? {
    appendTogether(store, [placeholderPart(board, seqs, epoch: epoch)]).first ?? nil
}

/// The source's transaction of a move between nodes: both boards' operations and the move's record.
func appendMove(
    _ store: any BoardStore, move: String, source: (String, Int, Int), destination: (String, Int, Int)
) -> [StoreError?] {
    appendTogether(
        store,
        [
            placeholderPart(source.0, [source.1], epoch: source.2, moveID: move),
            placeholderPart(destination.0, [destination.1], epoch: destination.2),
        ])
}
