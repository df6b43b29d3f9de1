import CorkboardModel
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Foundation
import Synchronization
import Testing

/// R18 on disk: big operations churned through the SQLite store leave a file bounded by what the
/// store keeps (the log behind the latest snapshot, the journal up to its fold bytes, the WAL up
/// to its size limit), not by how much was ever written.
struct ByteBoundedLogTests {
    /// Appends the parts in one transaction and waits for their completions.
    static func appendTogether(_ store: SQLiteBoardStore, _ parts: [(String, [CommittedOperation])]) async
        -> StoreError?
    {
        // Awaited, not waited for: a blocked cooperative thread would starve the process's rooms.
        await withCheckedContinuation { (continuation: CheckedContinuation<StoreError?, Never>) in
            let left = Mutex((count: parts.count, error: StoreError?.none))
            store.append(
                atomically: parts.map { board, operations in
                    BoardAppend(board: board, operations: operations) { error in
                        let done = left.withLock { left -> StoreError?? in
                            left.count -= 1
                            if left.error == nil { left.error = error }
                            return left.count == 0 ? .some(left.error) : .none
                        }
                        if let done { continuation.resume(returning: done) }
                    }
                })
        }
    }

    /// The bytes of the database file and its WAL.
    static func fileBytes(_ folder: String) -> Int {
        let path = SQLiteBoardStore.path(inDataFolder: folder)
        return [path, path + "-wal"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
    }

    @Test("fat operations churned through the journal with byte-bounded snapshots leave a bounded file")
    func churnLeavesABoundedFile() async throws {
        try await withTemporaryFolder { folder in
            let opBytes = 128 << 10
            let count = 320  // 40 MiB written in all
            let store = try SQLiteBoardStore(
                path: SQLiteBoardStore.path(inDataFolder: folder), foldRows: SQLiteBoardStore.defaultFoldRows,
                foldBytes: 2 << 20)
            startBoards(store, ["b", "zz"])
            for seq in 1...count {
                // With another board's operation, so it goes through the arrival-ordered journal.
                let error = await Self.appendTogether(
                    store,
                    [
                        ("b", [fatCommit(seq, board: "b", bytes: opBytes)]),
                        ("zz", [placeholderCommit(seq, board: "zz")]),
                    ])
                #expect(error == nil)
                // As a room with a resume log of about 4 such operations saves a snapshot every 16.
                if seq % 16 == 0 {
                    store.saveSnapshot(board: "b", snapshot: Snapshot(seq: seq, board: Board()), retainingLog: 4)
                }
            }
            store.drain()
            let bytes = Self.fileBytes(folder)
            // Kept: 4 + up to 16 operations of b's log (2.5 MiB), the journal until it folds (2 MiB
            // and a cycle's arrivals), the WAL between checkpoints (about 4 MiB), pages freed and reused.
            #expect(bytes < 16 << 20, "the file holds \(bytes) bytes after \(count * opBytes) were written")
            let stored = try #require(try store.load(board: "b"))
            #expect(stored.snapshot.seq == 320)
            #expect(
                stored.log.map(\.seq) == Array(317...320), "the 4 retained operations only: none after the snapshot")
        }
    }

    @Test("the journal folds by bytes long before its row count")
    func journalFoldsByBytes() async throws {
        try await withTemporaryFolder { folder in
            let store = try SQLiteBoardStore(
                path: SQLiteBoardStore.path(inDataFolder: folder), foldRows: 100_000, foldBytes: 1 << 20)
            startBoards(store, ["b", "zz"])
            for seq in 1...64 {
                let error = await Self.appendTogether(
                    store,
                    [
                        ("b", [fatCommit(seq, board: "b", bytes: 64 << 10)]),
                        ("zz", [placeholderCommit(seq, board: "zz")]),
                    ])
                #expect(error == nil)
            }
            store.drain()
            // 4 MiB appended; folding started at 1 MiB, so most of the journal's rows are gone.
            let journal =
                Int(try SQLiteShell.value(SQLiteBoardStore.path(inDataFolder: folder), "SELECT count(*) FROM journal"))
                ?? -1
            #expect(journal < 64, "the journal still holds \(journal) of 128 rows")
            let stored = try #require(try store.load(board: "b"))
            #expect(stored.log.map(\.seq) == Array(1...64), "nothing is lost by folding")
        }
    }
}
