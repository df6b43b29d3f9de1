import CorkboardModel
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Foundation
import Testing

/// Loading a board = its latest snapshot + the operations after it; compaction keeps the window
/// that serves resume (R10) and resends.
struct SnapshotReplayTests {
    @Test(
        "snapshot + replay of the log equals the live board, wherever the snapshot falls",
        arguments: [0, 1, 37, 120, 200])
    func snapshotPlusReplayEqualsLiveState(snapshotAt: Int) throws {
        let seed = storeTestSeed()
        print("SnapshotReplayTests seed \(seed) (set CORKBOARD_STORE_SEED to replay)")
        try withStore { store, folder in
            var driver = RandomDriver(board: try templateBoard("b"), seed: seed)
            store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 0)
            let before = driver.commit(snapshotAt)
            if !before.isEmpty { #expect(appendAndWait(store, board: "b", before) == nil) }
            let snapshot = driver.sequencer.snapshot
            store.saveSnapshot(board: "b", snapshot: snapshot, retainingLog: 10)
            let after = driver.commit(200 - snapshotAt)
            for op in after { #expect(appendAndWait(store, board: "b", [op]) == nil) }
            store.drain()
            #expect(driver.sequencer.head == 200, "seed \(seed): the driver committed 200 operations")
            #expect(store.lastFailure == nil)

            for reader in [store, try SQLiteBoardStore(path: SQLiteBoardStore.path(inDataFolder: folder))] {
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
                #expect(live.commit(30) == continued.commit(30), "seed \(seed): histories diverge after the restore")
            }
        }
    }

    @Test(
        "after a snapshot retaining R operations, load gives the snapshot, the last R operations before it and all after",
        arguments: [(snapshotAt: 60, retaining: 25), (snapshotAt: 60, retaining: 0), (snapshotAt: 20, retaining: 50)])
    func compactionKeepsResume(snapshotAt: Int, retaining: Int) throws {
        let seed = storeTestSeed()
        print("SnapshotReplayTests seed \(seed) (set CORKBOARD_STORE_SEED to replay)")
        try withStore { store, _ in
            var driver = RandomDriver(board: try templateBoard("b"), seed: seed)
            store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 0)
            let before = driver.commit(snapshotAt)
            #expect(appendAndWait(store, board: "b", before) == nil)
            store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: retaining)
            let after = driver.commit(40)
            #expect(appendAndWait(store, board: "b", after) == nil)
            let all = before + after
            let head = snapshotAt + 40
            #expect(driver.sequencer.head == head, "seed \(seed)")

            let stored = try #require(try store.load(board: "b"))
            #expect(stored.snapshot.seq == snapshotAt)
            let firstKept = max(1, snapshotAt - retaining + 1)
            #expect(stored.log.map(\.seq) == Array(firstKept...head), "seed \(seed): the retained window")
            #expect(stored.log == Array(all[(firstKept - 1)...]))

            let restored = try Sequencer(snapshot: stored.snapshot, replaying: stored.log)
            #expect(restored.board == driver.sequencer.board, "seed \(seed)")
            // Resume (R10): a client that saw any seq inside the window gets the operations after it.
            for lastSeq in [firstKept - 1, snapshotAt - 1, snapshotAt, head - 1, head] where lastSeq >= firstKept - 1 {
                #expect(
                    restored.operations(after: lastSeq) == Array(all[lastSeq...]),
                    "seed \(seed): resume after \(lastSeq)")
            }
            if firstKept > 1 {
                #expect(restored.operations(after: firstKept - 2) == nil, "behind the window: a snapshot instead")
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

    @Test("only the latest snapshot is kept, and a later snapshot compacts further")
    func olderSnapshotsAreDropped() throws {
        try withStore { store, _ in
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
            #expect(try store.integrityCheck() == ["ok"])
        }
    }

    @Test("a log that does not reach the snapshot without a gap is not used as history, and nothing breaks")
    func historyWithAGapIsIgnored() throws {
        var driver = RandomDriver(board: try templateBoard("b"), seed: 3)
        let ops = driver.commit(10)
        let snapshot = driver.sequencer.snapshot
        var holed = ops
        holed.remove(at: 4)
        let restored = try Sequencer(snapshot: snapshot, replaying: holed)
        #expect(restored.board == snapshot.board)
        #expect(restored.operations(after: 8) == nil, "no resume log from a log with a gap")
        #expect(restored.operations(after: 10) == [])
    }
}
