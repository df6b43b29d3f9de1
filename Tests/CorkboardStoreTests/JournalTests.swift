import CorkboardModel
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Foundation
import Testing

/// The SQLite store's operation journal (schema 2): operations are appended in arrival order and
/// move into each board's log a few boards per transaction; nothing reads one table alone.
struct JournalTests {
    /// A store on `folder`'s file that folds at `foldRows` journal rows.
    private func openStore(_ folder: String, foldRows: Int) throws -> SQLiteBoardStore {
        try SQLiteBoardStore(path: SQLiteBoardStore.path(inDataFolder: folder), foldRows: foldRows)
    }

    @Test("operations load the same from the journal, after folds and across reopening")
    func loadsFromBothTables() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let folding = try openStore(folder, foldRows: 10)
            var driver = RandomDriver(board: try templateBoard("b"), seed: 11)
            folding.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 0)
            let ops = driver.commit(25)
            // Batches of 3: at 12 rows waiting, the next transaction copies them and deletes them
            // from the journal (twice), so the last batch's rows and the 25th wait.
            var rest = ops[...]
            while !rest.isEmpty {
                let batch = Array(rest.prefix(3))
                rest = rest.dropFirst(batch.count)
                #expect(appendAndWait(folding, board: "b", batch) == nil)
            }
            folding.drain()
            #expect(folding.lastFailure == nil)
            #expect(try SQLiteShell.count(path, "journal") == 1, "the 25th operation waits for the next cycle")
            #expect(try SQLiteShell.count(path, "operations") == 24)
            #expect(try folding.load(board: "b")?.log == ops, "every operation, in order, from both tables")

            let reopened = try openStore(folder, foldRows: 10)
            #expect(try reopened.load(board: "b")?.log == ops)
            let reading = try SQLiteBoardStore(readingOnly: path)
            #expect(try reading.load(board: "b")?.log == ops)
        }
    }

    @Test("a board's stored seq counts the journal: appends after reopening continue it, a gap fails")
    func storedSeqCountsTheJournal() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            do {
                let first = try openStore(folder, foldRows: 1_000)
                first.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
                #expect(appendAndWait(first, board: "b", (1...5).map { placeholderCommit($0) }) == nil)
                first.drain()
            }
            #expect(try SQLiteShell.count(path, "journal") == 5)
            #expect(try SQLiteShell.count(path, "operations") == 0)
            let second = try openStore(folder, foldRows: 1_000)
            let repeated = try #require(appendAndWait(second, board: "b", [placeholderCommit(5)]))
            #expect(repeated.message.contains("do not follow the stored seq 5"), "\(repeated)")
            #expect(appendAndWait(second, board: "b", [placeholderCommit(6)]) == nil)
            #expect(try second.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4, 5, 6])
        }
    }

    @Test("a snapshot's compaction and a board's deletion clear its journal rows too")
    func compactionAndDeletion() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let store = try openStore(folder, foldRows: 1_000)
            for board in ["b", "c"] {
                store.saveSnapshot(board: board, snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
                #expect(appendAndWait(store, board: board, (1...6).map { placeholderCommit($0, board: board) }) == nil)
            }
            // A snapshot at seq 6 keeping 2 operations: b's 1–4 go, c's stay.
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 6, board: Board()), retainingLog: 2)
            store.drain()
            #expect(try store.load(board: "b")?.log.map(\.seq) == [5, 6])
            #expect(try SQLiteShell.count(path, "journal") == 8)

            try store.add(record("c"))
            #expect(try store.deleteBoard("c"))
            #expect(try SQLiteShell.count(path, "journal") == 2, "only b's rows are left")
            #expect(try store.load(board: "c") == nil)
        }
    }

    @Test("a fold cycle spread over several transactions never shows an operation twice or misses one")
    func cycleOverSeveralTransactions() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let store = try openStore(folder, foldRows: 80)
            let boards = ["b", "c", "d"]
            for board in boards {
                store.saveSnapshot(board: board, snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            }
            var copiedSeen = false
            for round in 0..<12 {
                for board in boards {
                    let seqs = (round * 3 + 1)...(round * 3 + 3)
                    #expect(appendAndWait(store, board: board, seqs.map { placeholderCommit($0, board: board) }) == nil)
                    for other in boards {
                        let stored = try store.load(board: other)?.log.map(\.seq)
                        let last = other <= board ? round * 3 + 3 : round * 3
                        let expected = Array(stride(from: 1, through: last, by: 1))
                        #expect(stored == expected, "\(other) after round \(round) of \(board)")
                    }
                }
                let inLogs = try SQLiteShell.count(path, "operations")
                let inJournal = try SQLiteShell.count(path, "journal")
                // While a cycle runs, copied rows are in both tables; never is any row in neither.
                #expect(inLogs + inJournal >= (round + 1) * 9)
                if inLogs > 0 && inLogs < 81 { copiedSeen = true }
            }
            let finalLogs = try SQLiteShell.count(path, "operations")
            #expect(copiedSeen || finalLogs >= 81, "a cycle copied rows into the logs")
            #expect(store.lastFailure == nil)
            let reopened = try openStore(folder, foldRows: 80)
            for board in boards {
                #expect(try reopened.load(board: board)?.log.map(\.seq) == Array(1...36))
            }
        }
    }

    @Test("rows a cycle cut short had copied are read once after reopening, and the next cycle clears them")
    func interruptedCycle() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            do {
                let first = try openStore(folder, foldRows: 1_000)
                first.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
                #expect(appendAndWait(first, board: "b", (1...4).map { placeholderCommit($0) }) == nil)
                first.drain()
            }
            // A crash in the middle of a cycle: seqs 1 and 2 were copied, the journal still has them.
            try SQLiteShell.run(
                path, "INSERT INTO operations (board, seq, data) SELECT board, seq, data FROM journal WHERE seq <= 2")
            let second = try openStore(folder, foldRows: 2)
            #expect(try second.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4])
            // Seqs 3 and 4 wait; the next transaction copies them and deletes the cycle's rows.
            #expect(appendAndWait(second, board: "b", [placeholderCommit(5)]) == nil)
            #expect(try SQLiteShell.count(path, "journal") == 1)
            #expect(try SQLiteShell.count(path, "operations") == 4)
            #expect(try second.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4, 5])
        }
    }

    @Test("a schema 1 file is read as it is when opened read-only, and upgraded when opened to write")
    func schemaOneUpgrade() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let ops = (1...4).map { placeholderCommit($0) }
            do {
                let first = try openStore(folder, foldRows: 1_000)
                first.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
                #expect(appendAndWait(first, board: "b", ops) == nil)
                first.drain()
            }
            // What a schema 1 build left: the operations in the log, no journal.
            try SQLiteShell.run(
                path,
                """
                INSERT INTO operations (board, seq, data) SELECT board, seq, data FROM journal;
                DROP TABLE journal; UPDATE meta SET value = '1' WHERE key = 'schema'
                """)

            let reading = try SQLiteBoardStore(readingOnly: path)
            #expect(try reading.load(board: "b")?.log == ops)
            #expect(try SQLiteShell.value(path, "SELECT value FROM meta WHERE key = 'schema'") == "1")

            let writing = try openStore(folder, foldRows: 1_000)
            #expect(try SQLiteShell.value(path, "SELECT value FROM meta WHERE key = 'schema'") == "2")
            #expect(try SQLiteShell.count(path, "journal") == 0)
            #expect(appendAndWait(writing, board: "b", [placeholderCommit(5)]) == nil)
            #expect(try writing.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4, 5])
        }
    }
}
