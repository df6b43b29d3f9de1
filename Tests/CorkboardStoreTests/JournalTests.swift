import CorkboardModel
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Foundation
import Testing

/// The SQLite store's operation journal (schema 2): operations are appended in arrival order and
/// move into each board's log a few boards per transaction; nothing reads one table alone.
struct JournalTests {
    /// A store on `folder`'s file that starts a fold cycle at `foldRows` journal rows.
    private func openStore(_ folder: String, foldRows: Int) throws -> SQLiteBoardStore {
        try SQLiteBoardStore(path: SQLiteBoardStore.path(inDataFolder: folder), foldRows: foldRows)
    }

    /// In a new temporary folder, a store that starts a fold cycle at `foldRows` journal rows, with
    /// `boards` started; `body` gets the folder, the path of its database and the store.
    private func withStartedStore(
        foldRows: Int, boards: [String], _ body: (String, String, SQLiteBoardStore) throws -> Void
    ) throws {
        try withTemporaryFolder { folder in
            let store = try openStore(folder, foldRows: foldRows)
            startBoards(store, boards)
            try body(folder, SQLiteBoardStore.path(inDataFolder: folder), store)
        }
    }

    /// Appends the parts in one transaction (as a move between boards does) and waits; two boards
    /// or more take the journal. Returns the first error.
    private func appendTogether(_ store: SQLiteBoardStore, _ parts: [(String, [CommittedOperation])]) -> StoreError? {
        let parts = parts.map { board, operations in BoardAppend(board: board, operations: operations) { _ in } }
        return CorkboardTesting.appendTogether(store, parts).compactMap { $0 }.first
    }

    /// `operations` of `board` with the next operation of the board `zz`, in one transaction, so
    /// they go through the journal.
    private func appendThroughJournal(
        _ store: SQLiteBoardStore, board: String, _ operations: [CommittedOperation], companion: inout Int
    ) -> StoreError? {
        companion += 1
        return appendTogether(store, [(board, operations), ("zz", [placeholderCommit(companion, board: "zz")])])
    }

    /// A store writes b's operations 1…`count` through the journal (with zz's first) and closes.
    private func writeThroughJournal(_ folder: String, count: Int) throws {
        let store = try openStore(folder, foldRows: 1_000)
        startBoards(store, ["b"])
        var companion = 0
        let ops = (1...count).map { placeholderCommit($0) }
        #expect(appendThroughJournal(store, board: "b", ops, companion: &companion) == nil)
        store.drain()
    }

    /// Appends round `round`'s operations of every board (seqs 3·round + 1 … + 3) in one transaction.
    private func appendRound(_ store: SQLiteBoardStore, _ boards: [String], _ round: Int) -> StoreError? {
        let seqs = (round * 3 + 1)...(round * 3 + 3)
        return appendTogether(store, boards.map { board in (board, seqs.map { placeholderCommit($0, board: board) }) })
    }

    /// Rows of `board` in `table`.
    private func rows(_ path: String, _ table: String, _ board: String) throws -> Int {
        Int(try SQLiteShell.value(path, "SELECT count(*) FROM \(table) WHERE board = '\(board)'")) ?? -1
    }

    @Test("operations load the same from the journal, after fold cycles and across reopening")
    func loadsFromBothTables() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let store = try openStore(folder, foldRows: 10)
            var driver = RandomDriver(board: try templateBoard("b"), seed: 11)
            store.saveSnapshot(board: "b", snapshot: driver.sequencer.snapshot, retainingLog: 0)
            let ops = driver.commit(25)
            // Transactions of 3 + 1 rows: at 12 rows waiting, the next transaction moves them into
            // the logs and deletes them from the journal (twice); 7 of b's rows wait at the end.
            var companion = 0
            var rest = ops[...]
            while !rest.isEmpty {
                let batch = Array(rest.prefix(3))
                rest = rest.dropFirst(batch.count)
                #expect(appendThroughJournal(store, board: "b", batch, companion: &companion) == nil)
            }
            store.drain()
            #expect(store.lastFailure == nil)
            #expect(try rows(path, "journal", "b") == 7)
            #expect(try rows(path, "operations", "b") == 18)
            #expect(try store.load(board: "b")?.log == ops, "every operation, in order, from both tables")

            let reopened = try openStore(folder, foldRows: 10)
            #expect(try reopened.load(board: "b")?.log == ops)
            let reading = try SQLiteBoardStore(readingOnly: path)
            #expect(try reading.load(board: "b")?.log == ops)
        }
    }

    @Test("one board with nothing in the journal is written straight into its log; while its rows wait, behind them")
    func directWrites() throws {
        try withStartedStore(foldRows: 4, boards: ["b"]) { (folder, path, store) throws in
            #expect(appendAndWait(store, board: "b", (1...3).map { placeholderCommit($0) }) == nil)
            #expect(try rows(path, "operations", "b") == 3)
            #expect(try SQLiteShell.count(path, "journal") == 0)

            var companion = 0
            #expect(appendThroughJournal(store, board: "b", [placeholderCommit(4)], companion: &companion) == nil)
            // b's seq 4 waits in the journal, so seqs 5 and 6 go behind it, not into the log.
            #expect(appendAndWait(store, board: "b", [placeholderCommit(5)]) == nil)
            #expect(appendAndWait(store, board: "b", [placeholderCommit(6)]) == nil)
            #expect(try rows(path, "journal", "b") == 3)
            #expect(try rows(path, "operations", "b") == 3)
            #expect(try store.load(board: "b")?.log.map(\.seq) == Array(1...6))

            // 4 rows wait: the next transaction moves them and deletes them from the journal; its
            // own row went to the journal (decided before), the one after it too; then a cycle.
            #expect(appendAndWait(store, board: "b", [placeholderCommit(7)]) == nil)
            #expect(try rows(path, "operations", "b") == 6)
            #expect(try rows(path, "journal", "b") == 1)
            for seq in 8...12 {
                #expect(appendAndWait(store, board: "b", [placeholderCommit(seq)]) == nil)
                #expect(try store.load(board: "b")?.log.map(\.seq) == Array(1...seq))
            }
            #expect(store.lastFailure == nil)
            let reopened = try openStore(folder, foldRows: 4)
            #expect(try reopened.load(board: "b")?.log.map(\.seq) == Array(1...12))
        }
    }

    @Test("a board's stored seq counts the journal: appends after reopening continue it, a gap fails")
    func storedSeqCountsTheJournal() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            try writeThroughJournal(folder, count: 5)
            #expect(try rows(path, "journal", "b") == 5)
            #expect(try rows(path, "operations", "b") == 0)
            let second = try openStore(folder, foldRows: 1_000)
            let repeated = try #require(appendAndWait(second, board: "b", [placeholderCommit(5)]))
            #expect(repeated.message.contains("do not follow the stored seq 5"), "\(repeated)")
            #expect(appendAndWait(second, board: "b", [placeholderCommit(6)]) == nil)
            #expect(try rows(path, "journal", "b") == 6, "behind the rows that wait")
            #expect(try second.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4, 5, 6])
        }
    }

    @Test("a snapshot's compaction and a board's deletion clear its journal rows too")
    func compactionAndDeletion() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let store = try openStore(folder, foldRows: 1_000)
            var companion = 0
            for board in ["b", "c"] {
                startBoards(store, [board])
                let ops = (1...6).map { placeholderCommit($0, board: board) }
                #expect(appendThroughJournal(store, board: board, ops, companion: &companion) == nil)
            }
            // A snapshot at seq 6 keeping 2 operations: b's 1–4 go, c's stay.
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 6, board: Board()), retainingLog: 2)
            store.drain()
            #expect(try store.load(board: "b")?.log.map(\.seq) == [5, 6])
            #expect(try rows(path, "journal", "b") == 2)
            #expect(try rows(path, "journal", "c") == 6)

            try store.add(record("c"))
            #expect(try store.deleteBoard("c"))
            #expect(try rows(path, "journal", "c") == 0)
            #expect(try rows(path, "journal", "b") == 2)
            #expect(try store.load(board: "c") == nil)
        }
    }

    @Test("a fold cycle spread over several transactions never shows an operation twice or misses one")
    func cycleOverSeveralTransactions() throws {
        let boards = ["b", "c", "d"]
        try withStartedStore(foldRows: 120, boards: boards) { (folder, path, store) throws in
            // 9 rows per transaction: after 14 of them a cycle covers 42 rows of each board. A
            // transaction copies 18 (twice what it appended); 42 rows are more than that plus 16,
            // so each board's rows are split over two transactions: 18, then the other 24.
            var partial = false
            for round in 0..<22 {
                #expect(appendRound(store, boards, round) == nil)
                for board in boards {
                    #expect(try store.load(board: board)?.log.map(\.seq) == Array(1...(round * 3 + 3)), "\(board)")
                }
                let inLogs = try SQLiteShell.count(path, "operations")
                let inJournal = try SQLiteShell.count(path, "journal")
                // A moved row is in both tables until its cycle deletes it; no row is ever in neither.
                #expect(inLogs + inJournal >= (round + 1) * 9)
                let movedOfD = try rows(path, "operations", "d")
                if movedOfD > 0 && movedOfD < 42 { partial = true }
            }
            #expect(partial, "a transaction ended inside one board's rows")
            #expect(try rows(path, "operations", "d") == 42, "the first cycle moved d's rows, the second has not yet")
            #expect(store.lastFailure == nil)
            let reopened = try openStore(folder, foldRows: 120)
            for board in boards {
                #expect(try reopened.load(board: board)?.log.map(\.seq) == Array(1...66))
            }
        }
    }

    @Test("a board's rows in a cycle move in one transaction when they are few")
    func fewRowsOfABoardMoveTogether() throws {
        let boards = ["b", "c", "d"]
        try withStartedStore(foldRows: 60, boards: boards) { (_, path, store) throws in
            // 9 rows per transaction: after 7 of them a cycle covers 21 rows of each board, more
            // than the 18 a transaction copies but within 16 more: each board moves whole.
            for round in 0..<12 {
                #expect(appendRound(store, boards, round) == nil)
                for board in boards {
                    #expect([0, 21].contains(try rows(path, "operations", board)), "\(board) in round \(round)")
                }
            }
            #expect(try boards.map { try rows(path, "operations", $0) } == [21, 21, 21])
            for board in boards {
                #expect(try store.load(board: board)?.log.map(\.seq) == Array(1...36))
            }
        }
    }

    @Test("a cycle's rows leave the journal a few hundred per transaction, after they all moved")
    func cycleDeletesInParts() throws {
        try withStartedStore(foldRows: 1_000, boards: ["b", "c"]) { (folder, path, store) throws in
            func append(_ seqs: ClosedRange<Int>) -> StoreError? {
                appendTogether(
                    store, ["b", "c"].map { board in (board, seqs.map { placeholderCommit($0, board: board) }) })
            }
            // 1,200 rows (ids 1…1,200); the next transaction starts a cycle over them, copies them
            // all (twice its own 1,200) and deletes ids up to 512; each later one 512 more.
            #expect(append(1...600) == nil)
            #expect(try SQLiteShell.count(path, "journal") == 1_200)
            #expect(append(601...1_200) == nil)
            #expect(try SQLiteShell.count(path, "operations") == 1_200)
            #expect(try SQLiteShell.count(path, "journal") == 2_400 - 512)
            #expect(append(1_201...1_201) == nil)
            #expect(try SQLiteShell.count(path, "journal") == 2_402 - 1_024)
            // The last 176 of the cycle; the 1,202 rows appended since wait for the next cycle.
            #expect(append(1_202...1_202) == nil)
            #expect(try SQLiteShell.count(path, "journal") == 1_204)
            #expect(try SQLiteShell.value(path, "SELECT min(id) FROM journal") == "1201")
            #expect(try SQLiteShell.count(path, "operations") == 1_200)
            for board in ["b", "c"] {
                #expect(try store.load(board: board)?.log.map(\.seq) == Array(1...1_202))
            }
            // A new cycle starts only now (1,204 rows wait) and copies 16 of them.
            #expect(append(1_203...1_203) == nil)
            #expect(try SQLiteShell.count(path, "operations") == 1_200 + 16)
            #expect(store.lastFailure == nil)
            let reopened = try openStore(folder, foldRows: 1_000)
            for board in ["b", "c"] {
                #expect(try reopened.load(board: board)?.log.map(\.seq) == Array(1...1_203))
            }
        }
    }

    @Test("rows a cycle cut short had moved are read once after reopening, and the next cycle clears them")
    func interruptedCycle() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            try writeThroughJournal(folder, count: 4)
            // A crash in the middle of a cycle: b's seqs 1 and 2 were moved, the journal still has them.
            try SQLiteShell.run(
                path,
                "INSERT INTO operations (board, seq, data) SELECT board, seq, data FROM journal WHERE board = 'b' AND seq <= 2"
            )
            let second = try openStore(folder, foldRows: 2)
            #expect(try second.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4])
            // Three rows wait (b's 3 and 4, zz's 1): the next transaction moves them and deletes
            // the cycle's rows; its own row (b's 5) waits behind them.
            #expect(appendAndWait(second, board: "b", [placeholderCommit(5)]) == nil)
            #expect(try SQLiteShell.count(path, "journal") == 1)
            #expect(try rows(path, "operations", "b") == 4)
            #expect(try second.load(board: "b")?.log.map(\.seq) == [1, 2, 3, 4, 5])
        }
    }

    @Test("a schema 1 file is read as it is when opened read-only, and upgraded when opened to write")
    func schemaOneUpgrade() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let ops = (1...4).map { placeholderCommit($0) }
            try writeThroughJournal(folder, count: 4)
            // What a schema 1 build left: the operations in the logs, no journal.
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
