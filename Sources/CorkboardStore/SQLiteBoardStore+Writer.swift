import CSQLite
import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Foundation
import Synchronization

/// The store's writer thread: group commit of the queued appends and snapshots, one transaction
/// per round (see `SQLiteBoardStore`).
extension SQLiteBoardStore {
    /// Queues a job; starts the writer when it is idle.
    func enqueue(_ job: Job) {
        let start = jobs.withLock { jobs -> Bool in
            jobs.pending.append(job)
            guard !jobs.draining else { return false }
            jobs.draining = true
            return true
        }
        if start { queue.async { self.writeQueuedJobs() } }
    }

    /// Writes everything queued, one transaction per round, until nothing is queued.
    private func writeQueuedJobs() {
        while true {
            let batch = jobs.withLock { jobs -> [Job] in
                defer { jobs.pending.removeAll(keepingCapacity: true) }
                if jobs.pending.isEmpty { jobs.draining = false }
                return jobs.pending
            }
            if batch.isEmpty { return }
            // In queue order: consecutive appends share one transaction; a snapshot is written
            // after the appends queued before it and before those queued after it (a new board's
            // seq-0 snapshot must be durable before its first operation is reported durable).
            var appends: [[BoardAppend]] = []
            var firstBoard: String?
            for job in batch {
                switch job {
                case .append(let parts):
                    appends.append(parts)
                    if let board = parts.first?.board {
                        if firstBoard == nil {
                            firstBoard = board
                        } else if board != firstBoard {
                            severalBoardsAt = .now
                        }
                    }
                case .snapshot(let board, let snapshot, let retaining):
                    if !appends.isEmpty { writeAppends(appends) }
                    appends.removeAll()
                    // Like an append, a snapshot's transaction sets or clears the last failure.
                    let started = ContinuousClock.now
                    let error = writeSnapshot(board: board, snapshot: snapshot, retainingLog: retaining)
                    if error == nil { metrics.recordSnapshot(elapsed: .now - started) }
                    failure.withLock { $0 = error }
                }
            }
            if !appends.isEmpty { writeAppends(appends) }
            // The writer waits `commitGather` after a round that wrote operations while rooms of
            // several boards commit (a round had two of them within `gatherWindow`). One busy board
            // alone never makes it wait: its room already hands over everything it committed
            // meanwhile as one append, and a client waiting for each acknowledgement would only
            // wait longer.
            if commitGather > .zero, firstBoard != nil, let seen = severalBoardsAt, .now - seen < Self.gatherWindow {
                Thread.sleep(forTimeInterval: commitGather / .seconds(1))
            }
        }
    }

    /// Writes appends in one transaction. An append whose parts do not all continue their boards'
    /// stored seqs (one was sequenced after a write that failed) fails alone, every part of it, so
    /// the log never has a gap and a move between boards is never half stored.
    private func writeAppends(_ appends: [[BoardAppend]]) {
        var next: [String: Int] = [:]
        // Per append: the error it fails with before the write, or nil when it goes into the transaction.
        var refusals: [StoreError?] = []
        var accepted: [(String, [CommittedOperation])] = []
        var undo: [(String, UndoHistory.Changes)] = []
        for parts in appends {
            var partsNext = next
            var refusal: StoreError?
            var rows: [(String, [CommittedOperation])] = []
            for part in parts {
                guard let first = part.operations.first?.seq, let last = part.operations.last?.seq else { continue }
                let stored: Int
                if let known = partsNext[part.board] {
                    stored = known
                } else {
                    do {
                        stored = try lastStoredSeq(part.board)
                    } catch {
                        refusal = error as? StoreError ?? StoreError(.io, "\(error)")
                        break
                    }
                }
                guard first == stored + 1 else {
                    refusal = StoreError(
                        .io,
                        "Operations of \(part.board) from seq \(first) do not follow the stored seq \(stored) "
                            + "(an earlier write failed); they were not stored.")
                    break
                }
                partsNext[part.board] = last
                rows.append((part.board, part.operations))
            }
            refusals.append(refusal)
            if refusal == nil {
                next = partsNext
                accepted += rows
                undo += parts.filter { !$0.undo.isEmpty }.map { ($0.board, $0.undo) }
            }
        }
        var error: StoreError?
        if !accepted.isEmpty || !undo.isEmpty {
            let started = ContinuousClock.now
            error = writeOperations(accepted, undo: undo)
            if error == nil, !accepted.isEmpty {
                metrics.recordCommit(
                    operations: accepted.reduce(0) { $0 + $1.1.count }, appends: refusals.count { $0 == nil },
                    elapsed: .now - started)
            }
            failure.withLock { $0 = error }
            if error == nil { storedSeq.withLock { $0.merge(next) { _, new in new } } }
        }
        // Completions run in append order (rooms rely on it to tell stale completions apart).
        for (parts, refusal) in zip(appends, refusals) {
            let wrote = parts.contains(where: \.writes)
            for part in parts { part.completion(refusal ?? (wrote ? error : nil)) }
        }
    }

    /// The highest seq stored for a board, in its log, the journal or a snapshot (0 for none).
    private func lastStoredSeq(_ board: String) throws -> Int {
        if let known = storedSeq.withLock({ $0[board] }) { return known }
        let seq = try writer.withLock { db in
            defer { db.resetStatements() }
            let statement = try db.statement(OperationJournal.lastSeq)
            statement.bind(1, board)
            return try statement.step() ? statement.int(0) : 0
        }
        storedSeq.withLock { $0[board] = seq }
        return seq
    }

    /// Writes operations and the undo histories that changed with them, in one transaction.
    private func writeOperations(
        _ appends: [(String, [CommittedOperation])], undo: [(String, UndoHistory.Changes)] = []
    ) -> StoreError? {
        var rows: [(String, Int, [UInt8])] = []
        for (board, operations) in appends {
            for operation in operations {
                guard let data = WireCodec.encode(operation) else {
                    return StoreError(.invalidData, "Operation \(operation.seq) of \(board) cannot be encoded.")
                }
                rows.append((board, operation.seq, data))
            }
        }
        // One board with nothing waiting in the journal: straight into its log (``OperationJournal``).
        let direct =
            !rows.isEmpty && rows.allSatisfy { $0.0 == rows[0].0 } && !journal.withLock { $0.waits(rows[0].0) }
        do {
            // The rows as the journal got them, and what the transaction copied into the logs.
            let (appended, step) = try writer.withLock { db in
                try transaction(db) { () throws -> ([(String, OperationJournal.Row)], OperationJournal.Step) in
                    var appended: [(String, OperationJournal.Row)] = []
                    appended.reserveCapacity(direct ? 0 : rows.count)
                    for (board, seq, data) in rows {
                        let insert = try db.statement(direct ? OperationJournal.insertIntoLog : OperationJournal.insert)
                        insert.bind(1, board)
                        insert.bind(2, seq)
                        insert.bind(3, blob: data)
                        try insert.step()
                        guard !direct else { continue }
                        appended.append((board, .init(id: sqlite3_last_insert_rowid(db.handle), seq: seq, data: data)))
                    }
                    for (board, changes) in undo { try UndoTable.write(db, board: board, changes) }
                    let step = try journal.withLock { journal in try journal.copy(db, appended: rows.count) }
                    return (appended, step)
                }
            }
            journal.withLock { journal in
                journal.finish(step)
                for (board, row) in appended { journal.appended(board, row) }
            }
            return nil
        } catch {
            return error as? StoreError ?? StoreError(.io, "\(error)")
        }
    }

    private func writeSnapshot(board: String, snapshot: Snapshot, retainingLog: Int) -> StoreError? {
        guard let data = try? snapshot.jsonData() else {
            return StoreError(.invalidData, "The snapshot of \(board) at seq \(snapshot.seq) cannot be encoded.")
        }
        do {
            try writer.withLock { db in
                try transaction(db) {
                    let insert = try db.statement(
                        "INSERT OR REPLACE INTO snapshots (board, seq, data) VALUES (?, ?, ?)")
                    insert.bind(1, board)
                    insert.bind(2, snapshot.seq)
                    insert.bind(3, blob: Array(data))
                    try insert.step()
                    let older = try db.statement("DELETE FROM snapshots WHERE board = ? AND seq < ?")
                    older.bind(1, board)
                    older.bind(2, snapshot.seq)
                    try older.step()
                    for table in ["operations", "journal"] {
                        let compact = try db.statement("DELETE FROM \(table) WHERE board = ? AND seq <= ?")
                        compact.bind(1, board)
                        compact.bind(2, snapshot.seq - retainingLog)
                        try compact.step()
                    }
                }
            }
            journal.withLock { $0.removed(board, upTo: snapshot.seq - retainingLog) }
            return nil
        } catch {
            return error as? StoreError ?? StoreError(.io, "\(error)")
        }
    }
}

/// Runs `body` in a transaction (BEGIN IMMEDIATE for writers), rolling back when it throws.
func transaction<T>(_ db: SQLiteDatabase, immediate: Bool = true, _ body: () throws -> T) throws -> T {
    try db.execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN")
    do {
        let result = try body()
        db.resetStatements()  // so COMMIT ends the read transaction too
        try db.execute("COMMIT")
        return result
    } catch {
        db.resetStatements()
        try? db.execute("ROLLBACK")
        throw error
    }
}
