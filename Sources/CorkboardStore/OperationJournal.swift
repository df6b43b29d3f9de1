import CSQLite
import CorkboardStorage

/// Where the SQLite store's writer appends committed operations first (schema 2), and how it
/// moves them into each board's log a little at a time.
///
/// Each board's log (`operations`, keyed `(board, seq)`) keeps the board's newest operations in a
/// B-tree leaf of its own. Appended there directly, a transaction of operations from n boards
/// writes n pages, and the WAL's checkpoint writes each page again: with 1,000 busy boards that
/// was a sixth of a core for 2,000 operations a second, nearly all of it copying pages. Appended
/// to `journal` (keyed by arrival), the same transaction writes one or two pages.
///
/// Once the journal holds `foldRows` rows not yet in the logs, a fold cycle starts: it covers
/// every row up to the journal's last id then. Each following transaction of operations also
/// copies a few of the cycle's rows into the logs, a board at a time (at least `rowsPerCommit`,
/// and twice as many as the transaction appended, so folding outpaces appending), so each board's
/// leaf is written once for everything it got since the last cycle, and no transaction grows
/// much. A board's rows are split over transactions only when a transaction starts with more of
/// them than its budget plus `rowsPerCommit`. Once the cycle's last rows are copied, the following
/// transactions delete the cycle's rows from the journal, a prefix of it by id, `deleteRows` ids
/// each.
///
/// Both are spread because the writer shares the server's cores: at `boards` 10,000 (2,000
/// operations a second) a cycle that copied 64 rows per transaction and deleted 8,192 rows in one
/// kept the writer in transactions for 235–316 ms of 0.6–0.8 s every 4.1 s, the last transaction
/// alone 31–57 ms, and every drop read meanwhile waited behind the backlog it left.
///
/// Until then a copied row is in both tables, so readers take a board's journal rows only above
/// the highest seq of its log: the rows copied of a board are always the first of its journal
/// rows. Nothing reads one table alone: a board's last stored seq is the largest of both, and
/// compaction and deletion clear both. A crash between cycles or in the middle of one leaves a
/// state readers and the next cycle understand (copying uses `INSERT OR IGNORE`).
///
/// A transaction whose operations are all of one board with none of its rows waiting in the
/// journal writes them straight into the board's log: they share its leaf anyway, and copying them
/// later would only write them twice (a single busy board, `storm`, lost a tenth of its throughput
/// to that). The board's log then still ends below its first journal row, as readers assume.
///
/// The writer keeps the journal rows not yet copied in memory (at most about `foldRows` rows or
/// `foldBytes` bytes plus what comes during a cycle), so a fold never scans the journal. A cycle
/// starts at whichever bound comes first: big operations (items with large representations) fold
/// by bytes long before their count would, so neither this memory nor the journal grows with them.
struct OperationJournal {
    /// One journal row not yet copied into its board's log.
    struct Row {
        var id: Int64
        var seq: Int
        var data: [UInt8]
    }

    /// What one transaction copies, applied to the journal once the transaction committed.
    struct Step {
        /// Per board, how many of its first rows were copied.
        var copied: [(board: String, rows: Int)] = []
        /// The highest id the transaction deleted from the journal, when it deleted the cycle's
        /// rows; the cycle's end once the last of them are gone.
        var deletedThrough: Int64?
    }

    /// The table (schema 2); `id` is the rowid, so rows are appended in arrival order.
    static let createTable = """
        CREATE TABLE IF NOT EXISTS journal (
            id INTEGER PRIMARY KEY, board TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL);
        """

    /// Appends one operation.
    static let insert = "INSERT INTO journal (board, seq, data) VALUES (?, ?, ?)"

    /// Writes one operation straight into its board's log (see ``waits(_:)``).
    static let insertIntoLog = "INSERT INTO operations (board, seq, data) VALUES (?, ?, ?)"

    /// A board's stored operations in seq order (`?1`: the board): its log, then the journal rows
    /// not yet copied into it.
    static let loadBoth = """
        SELECT seq, data FROM operations WHERE board = ?1
        UNION ALL SELECT seq, data FROM journal WHERE board = ?1
            AND seq > (SELECT coalesce(max(seq), 0) FROM operations WHERE board = ?1)
        ORDER BY seq
        """

    /// A board's operations in a schema 1 file (opened read-only, so not upgraded).
    static let loadLogOnly = "SELECT seq, data FROM operations WHERE board = ?1 ORDER BY seq"

    /// The highest seq stored for a board (`?1`) in the log, the journal or a snapshot.
    static let lastSeq = """
        SELECT max(coalesce((SELECT max(seq) FROM operations WHERE board = ?1), 0),
                   coalesce((SELECT max(seq) FROM journal WHERE board = ?1), 0),
                   coalesce((SELECT max(seq) FROM snapshots WHERE board = ?1), 0))
        """

    /// Every journal row not yet copied into its board's log, on opening the file.
    static let loadUncopied = """
        SELECT j.id, j.board, j.seq, j.data FROM journal j
        WHERE j.seq > (SELECT coalesce(max(o.seq), 0) FROM operations o WHERE o.board = j.board)
        ORDER BY j.id
        """

    /// Uncopied rows that start a fold cycle.
    let foldRows: Int
    /// Bytes of uncopied rows that start a fold cycle.
    let foldBytes: Int
    /// The fewest rows a transaction copies during a cycle.
    let rowsPerCommit: Int
    /// How many ids of the cycle's prefix a transaction deletes once the cycle's rows are copied.
    let deleteRows: Int
    /// The rows not yet copied, by board, in seq (and id) order.
    private var uncopied: [String: [Row]] = [:]
    /// How many rows `uncopied` holds.
    private var count = 0
    /// The bytes of the rows `uncopied` holds (their data).
    private(set) var bytes = 0
    /// The boards the running cycle has yet to copy (the next one last), or empty between cycles.
    private var cycle: [String] = []
    /// The last journal id the running cycle covers.
    private var cycleEnd: Int64 = 0
    /// The highest id the running cycle has deleted from the journal (below its first row at its start).
    private var deletedThrough: Int64 = 0
    /// Whether a cycle runs (until the transaction that deletes the last of its rows).
    private var isFolding = false

    /// An empty journal.
    init(
        foldRows: Int, foldBytes: Int = OperationJournal.defaultFoldBytes, rowsPerCommit: Int = 16,
        deleteRows: Int = 512
    ) {
        self.foldRows = max(1, foldRows)
        self.foldBytes = max(1, foldBytes)
        self.rowsPerCommit = max(1, rowsPerCommit)
        self.deleteRows = max(1, deleteRows)
    }

    /// The default bytes of uncopied rows that start a fold cycle.
    static let defaultFoldBytes = 32 << 20

    /// Reads the rows not yet copied (on opening a file, whatever an earlier run left).
    mutating func load(_ db: SQLiteDatabase) throws(StoreError) {
        let rows = try db.statement(Self.loadUncopied)
        defer { db.resetStatements() }
        while try rows.step() {
            let board = rows.text(1) ?? ""
            let row = Row(id: Int64(rows.int(0)), seq: rows.int(2), data: rows.blob(3))
            uncopied[board, default: []].append(row)
            count += 1
            bytes += row.data.count
        }
    }

    /// Whether rows of `board` wait in the journal: while they do, its new operations must go to
    /// the journal too, behind them (readers take a board's journal rows above its log's end).
    func waits(_ board: String) -> Bool { uncopied[board] != nil }

    /// Notes rows a committed transaction appended to the journal (in seq order per board).
    mutating func appended(_ board: String, _ row: Row) {
        uncopied[board, default: []].append(row)
        count += 1
        bytes += row.data.count
    }

    /// Forgets a board's rows up to `seq` (compaction deleted them from the journal).
    mutating func removed(_ board: String, upTo seq: Int) {
        guard let rows = uncopied[board] else { return }
        let kept = rows.filter { $0.seq > seq }
        count -= rows.count - kept.count
        bytes -= rows.reduce(0) { $0 + $1.data.count } - kept.reduce(0) { $0 + $1.data.count }
        uncopied[board] = kept.isEmpty ? nil : kept
    }

    /// Forgets a deleted board's rows.
    mutating func removed(_ board: String) {
        count -= uncopied[board]?.count ?? 0
        bytes -= uncopied[board]?.reduce(0) { $0 + $1.data.count } ?? 0
        uncopied[board] = nil
    }

    /// Inside a transaction that appended `appended` rows: starts a cycle when enough rows wait,
    /// copies the next of the cycle's rows into the logs, and once they are all copied deletes
    /// the next part of the cycle's rows from the journal. Changes nothing in memory: pass the
    /// step to ``finish(_:)`` once the transaction committed.
    mutating func copy(_ db: SQLiteDatabase, appended: Int) throws(StoreError) -> Step {
        if !isFolding && (count >= foldRows || bytes >= foldBytes) { startCycle() }
        guard isFolding else { return Step() }
        var step = Step()
        var budget = max(rowsPerCommit, 2 * appended)
        var next = cycle.count - 1
        while budget > 0, next >= 0 {
            let board = cycle[next]
            let rows = (uncopied[board] ?? []).prefix { $0.id <= cycleEnd }
            // A board's rows go together (its leaf written once): a board with more rows than the
            // budget allows is split only when it comes first, else it waits for the next transaction.
            let whole = rows.count <= budget + rowsPerCommit
            guard whole || step.copied.isEmpty else { break }
            let taken = whole ? rows : rows.prefix(budget)
            for row in taken {
                let insert = try db.statement("INSERT OR IGNORE INTO operations (board, seq, data) VALUES (?, ?, ?)")
                insert.bind(1, board)
                insert.bind(2, row.seq)
                insert.bind(3, blob: row.data)
                _ = try insert.step()
            }
            if !taken.isEmpty { step.copied.append((board, taken.count)) }
            budget -= taken.count
            guard taken.count == rows.count else { break }
            next -= 1
        }
        if next < 0 {
            let through = min(cycleEnd, deletedThrough + Int64(deleteRows))
            let delete = try db.statement("DELETE FROM journal WHERE id <= ?")
            delete.bind(1, Int(through))
            _ = try delete.step()
            step.deletedThrough = through
        }
        return step
    }

    /// Applies a step whose transaction committed.
    mutating func finish(_ step: Step) {
        for (board, rows) in step.copied {
            guard var left = uncopied[board] else { continue }
            let taken = min(rows, left.count)
            bytes -= left.prefix(taken).reduce(0) { $0 + $1.data.count }
            left.removeFirst(taken)
            count -= rows
            uncopied[board] = left.isEmpty ? nil : left
        }
        while let board = cycle.last, uncopied[board]?.first.map({ $0.id > cycleEnd }) ?? true {
            cycle.removeLast()
        }
        if let through = step.deletedThrough { deletedThrough = through }
        if step.deletedThrough == cycleEnd {
            cycle = []
            isFolding = false
        }
    }

    /// Starts a cycle over every row now waiting.
    private mutating func startCycle() {
        cycleEnd = uncopied.values.reduce(0) { max($0, $1.last?.id ?? 0) }
        // Rows below the first uncopied one are copies an interrupted cycle left: the first
        // delete takes them too.
        deletedThrough = uncopied.values.reduce(cycleEnd) { min($0, ($1.first?.id ?? cycleEnd) - 1) }
        cycle = uncopied.keys.sorted(by: >)
        isFolding = true
    }
}
