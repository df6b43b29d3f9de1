import CorkboardModel
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Testing

extension StoreContractTests {
    /// Loading a board = its latest snapshot + the operations after it; compaction keeps the window
    /// that serves resume (R10) and resends, and nothing more (R18).
    @Suite("snapshots and replay")
    struct Snapshots {
        /// Runs `body` with a fresh store of `kind` holding board "b" at the demo template's seq-0
        /// snapshot, and a random driver of its operations, whose seed it prints (to replay a
        /// failure with `CORKBOARD_STORE_SEED`).
        private func withRandomBoard(
            _ kind: StoreKind,
            _ body: (any BoardStore, @escaping () throws -> any BoardStore, inout RandomDriver, UInt64) async throws ->
                Void
        ) async throws {
            let seed = storeTestSeed()
            print("StoreContractTests seed \(seed) (set CORKBOARD_STORE_SEED to replay)")
            try await kind.withStore { (store, reopen) async throws in
                var driver = RandomDriver(board: try templateBoard("b"), seed: seed)
                store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 0)
                try await body(store, reopen, &driver, seed)
            }
        }

        @Test(
            "snapshot + replay of the log equals the live board, wherever the snapshot falls, in any process",
            arguments: StoreKind.running, [0, 1, 37, 120, 200])
        func snapshotPlusReplayEqualsLiveState(kind: StoreKind, snapshotAt: Int) async throws {
            try await withRandomBoard(kind) { store, reopen, driver, seed in
                let before = driver.commit(snapshotAt)
                if !before.isEmpty { #expect(appendAndWait(store, board: "b", before) == nil) }
                let snapshot = driver.sequencer.snapshot
                store.saveSnapshot(board: "b", snapshot: snapshot, retainingLog: 10)
                let after = driver.commit(200 - snapshotAt)
                for op in after { #expect(appendAndWait(store, board: "b", [op]) == nil) }
                store.drain()
                #expect(driver.sequencer.head == 200, "seed \(seed): the driver committed 200 operations")
                #expect(store.lastFailure == nil)

                for reader in [store, try reopen()] {
                    let stored = try #require(try reader.load(board: "b"))
                    #expect(
                        stored.snapshot.seq == snapshot.seq && stored.snapshot == snapshot,
                        "seed \(seed): the latest snapshot is the one saved")
                    let restored = try Sequencer(snapshot: stored.snapshot, replaying: stored.log)
                    #expect(restored.head == driver.sequencer.head, "seed \(seed)")
                    #expect(restored.board == driver.sequencer.board, "seed \(seed): replayed board differs")
                    #expect(restored.board.checkInvariants().isEmpty, "seed \(seed)")
                    #expect(try stored.snapshot.replaying(stored.log) == driver.sequencer.snapshot, "seed \(seed)")
                    // The restored sequencer goes on exactly like the live one.
                    var live = driver
                    var continued = live
                    continued.sequencer = restored
                    #expect(
                        live.commit(30) == continued.commit(30), "seed \(seed): histories diverge after the restore")
                }
            }
        }

        @Test(
            "after a snapshot retaining R operations, load gives the snapshot, the last R operations before it and all after",
            arguments: StoreKind.running,
            [(snapshotAt: 60, retaining: 25), (snapshotAt: 60, retaining: 0), (snapshotAt: 20, retaining: 50)])
        func compactionKeepsResume(kind: StoreKind, point: (snapshotAt: Int, retaining: Int)) async throws {
            let (snapshotAt, retaining) = point
            try await withRandomBoard(kind) { store, reopen, driver, seed in
                let before = driver.commit(snapshotAt)
                #expect(appendAndWait(store, board: "b", before) == nil)
                let snapshot = driver.sequencer.snapshot
                store.saveSnapshot(board: "b", snapshot: snapshot, retainingLog: retaining)
                let after = driver.commit(40)
                for op in after { #expect(appendAndWait(store, board: "b", [op]) == nil) }
                store.drain()
                #expect(store.lastFailure == nil)
                let all = before + after
                let head = snapshotAt + 40
                #expect(driver.sequencer.head == head, "seed \(seed)")
                let firstKept = max(1, snapshotAt - retaining + 1)

                for reader in [store, try reopen()] {
                    let stored = try #require(try reader.load(board: "b"))
                    #expect(stored.snapshot == snapshot, "seed \(seed)")
                    #expect(stored.snapshot.seq == snapshotAt)
                    #expect(stored.log.map(\.seq) == Array(firstKept...head), "seed \(seed): the retained window")
                    #expect(stored.log == Array(all[(firstKept - 1)...]))
                    let restored = try Sequencer(snapshot: stored.snapshot, replaying: stored.log)
                    #expect(restored.board == driver.sequencer.board, "seed \(seed): replayed board differs")
                    #expect(restored.board.checkInvariants().isEmpty)
                    // Resume (R10): a client that saw any seq inside the window gets the operations after it.
                    for lastSeq in [firstKept - 1, snapshotAt - 1, snapshotAt, head - 1, head]
                    where lastSeq >= firstKept - 1 {
                        #expect(
                            restored.operations(after: lastSeq) == Array(all[lastSeq...]),
                            "seed \(seed): resume after \(lastSeq)")
                    }
                    if firstKept > 1 {
                        #expect(
                            restored.operations(after: firstKept - 2) == nil, "behind the window: a snapshot instead")
                    }
                    // Resends: an operation in the window (before or after the snapshot) gets its first
                    // outcome and changes nothing; one compacted away is no longer remembered.
                    var resender = restored
                    for seq in Set([firstKept, snapshotAt, head]) where seq >= firstKept && seq >= 1 {
                        let original = all[seq - 1]
                        #expect(
                            restored.outcome(clientId: original.clientId, opId: original.opId) == .committed(original),
                            "seed \(seed): outcome of seq \(seq)")
                        let again = resender.submit(
                            ClientOperation(opId: original.opId, clientId: original.clientId, base: 0, op: original.op),
                            now: 0)
                        #expect(again == .committed(original))
                        #expect(resender.head == head, "a resend applies nothing")
                    }
                    if firstKept > 1 {
                        let forgotten = all[firstKept - 2]
                        #expect(restored.outcome(clientId: forgotten.clientId, opId: forgotten.opId) == nil)
                    }
                }
            }
        }

        @Test("only the latest snapshot is kept, and a later snapshot compacts further", arguments: StoreKind.running)
        func olderSnapshotsAreDropped(kind: StoreKind) async throws {
            try await kind.withStore { (store, _) async throws in
                var driver = RandomDriver(board: try templateBoard("b"), seed: 11)
                store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 0)
                #expect(appendAndWait(store, board: "b", driver.commit(30)) == nil)
                store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 10)
                #expect(appendAndWait(store, board: "b", driver.commit(30)) == nil)
                store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 5)
                store.drain()
                let stored = try #require(try store.load(board: "b"))
                #expect(stored.snapshot == driver.sequencer.snapshot)
                #expect(stored.log.map(\.seq) == Array(56...60))
                #expect(try Sequencer(snapshot: stored.snapshot, replaying: stored.log).board == driver.sequencer.board)
                #expect(store.lastFailure == nil)
                if let sqlite = store as? SQLiteBoardStore { #expect(try sqlite.integrityCheck() == ["ok"]) }
            }
        }

        @Test(
            "R18: big operations churned with snapshots leave only the retained log behind the latest one",
            arguments: StoreKind.running)
        func fatChurnKeepsTheRetainedLog(kind: StoreKind) async throws {
            try await kind.withStore(started: ["b"]) { (store, reopen) async throws in
                for seq in 1...120 {
                    #expect(appendAndWait(store, board: "b", [fatCommit(seq, bytes: 64 << 10)]) == nil)
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
    }
}
