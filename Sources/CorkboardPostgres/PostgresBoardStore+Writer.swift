import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Foundation
import NIOCore
import PostgresNIO
import Synchronization

/// The writer: group commit, contiguity, fencing, and what an append's completion learns.
extension PostgresBoardStore {
    func enqueue(_ job: Job) {
        let start = jobs.withLock { jobs -> Bool in
            jobs.pending.append(job)
            guard !jobs.draining else { return false }
            jobs.draining = true
            return true
        }
        if start { queue.async { self.writeQueuedJobs() } }
    }

    /// Writes everything queued, one transaction per round of appends, until nothing is queued.
    private func writeQueuedJobs() {
        while true {
            let batch = jobs.withLock { jobs -> [Job] in
                defer { jobs.pending.removeAll(keepingCapacity: true) }
                if jobs.pending.isEmpty { jobs.draining = false }
                return jobs.pending
            }
            if batch.isEmpty { return }
            // In queue order: consecutive appends share one transaction; a snapshot is written after
            // the appends queued before it and before those queued after it.
            var appends: [[BoardAppend]] = []
            for job in batch {
                switch job {
                case .append(let parts):
                    appends.append(parts)
                case .snapshot(let board, let snapshot, let retaining, let epoch):
                    if !appends.isEmpty { writeAppends(appends) }
                    appends.removeAll()
                    writeSnapshot(board: board, snapshot: snapshot, retainingLog: retaining, epoch: epoch)
                }
            }
            if !appends.isEmpty { writeAppends(appends) }
        }
    }

    /// Writes appends in one transaction.
    ///
    /// An append fails alone, every part of it, when a part does not continue its board's stored
    /// seq, when a part's epoch is no longer its board's (`fenced`), or when its move between
    /// nodes was already given up; the others commit together.
    private func writeAppends(_ appends: [[BoardAppend]]) {
        var refusals: [StoreError?] = Array(repeating: nil, count: appends.count)
        var next: [String: Int] = [:]
        var candidates: [Int] = []
        for (index, parts) in appends.enumerated() {
            var partsNext = next
            for part in parts {
                guard let first = part.operations.first?.seq, let last = part.operations.last?.seq else { continue }
                do throws(StoreError) {
                    let stored: Int
                    if let known = partsNext[part.board] {
                        stored = known
                    } else {
                        stored = try lastStoredSeq(part.board, expecting: first - 1)
                    }
                    if first != stored + 1 {
                        refusals[index] = StoreError(
                            part.epoch != nil && stored >= first ? .fenced : .io,
                            "Operations of \(part.board) from seq \(first) do not follow the stored seq \(stored) "
                                + (stored >= first
                                    ? "(the database is ahead of this node's copy of the board); they were not stored."
                                    : "(an earlier write failed); they were not stored."))
                        break
                    }
                } catch {
                    refusals[index] = error
                    break
                }
                partsNext[part.board] = last
            }
            if refusals[index] == nil {
                next = partsNext
                candidates.append(index)
            }
        }
        let writing = candidates.filter { appends[$0].contains(where: \.writes) }
        if !writing.isEmpty {
            var written: [Int] = []
            let started = ContinuousClock.now
            let error = transaction(appends, writing, refusals: &refusals, written: &written)
            if error == nil, written.contains(where: { appends[$0].contains { !$0.operations.isEmpty } }) {
                // As the SQLite store: one committed transaction, its operations and room batches.
                metrics.recordCommit(
                    operations: written.reduce(0) { sum, index in
                        sum + appends[index].reduce(0) { $0 + $1.operations.count }
                    },
                    appends: written.count, elapsed: .now - started)
            }
            failure.withLock { $0 = error }
            if let error {
                // Nothing of the transaction was written: every append that went into it fails.
                for index in writing where refusals[index] == nil { refusals[index] = error }
            } else {
                storedSeq.withLock { stored in
                    for index in written {
                        for part in appends[index] {
                            if let last = part.operations.last?.seq { stored[part.board] = last }
                        }
                    }
                }
            }
            // Boards of appends refused inside the transaction are read again before their next append.
            let refusedBoards = writing.filter { !written.contains($0) }.flatMap { appends[$0].map(\.board) }
            if !refusedBoards.isEmpty { storedSeq.withLock { for board in refusedBoards { $0[board] = nil } } }
        }
        // Completions run in append order (rooms rely on it to tell stale completions apart).
        for (parts, refusal) in zip(appends, refusals) {
            for part in parts { part.completion(refusal) }
        }
    }

    /// One transaction: lock and check the fences, record moves, insert the operations.
    ///
    /// - Parameters:
    ///   - writing: The appends that may go in (in order).
    ///   - refusals: Set for appends refused inside the transaction (fenced, move given up, or
    ///     behind one of those on the same board).
    ///   - written: The appends the transaction wrote, when it commits.
    /// - Returns: The transaction's error (then nothing was written), or `nil`.
    private func transaction(
        _ appends: [[BoardAppend]], _ writing: [Int], refusals: inout [StoreError?], written: inout [Int]
    ) -> StoreError? {
        struct Rows {
            var boards: [String] = []
            var seqs: [Int64] = []
            var epochs: [Int64] = []
            var data: [ByteBuffer] = []
        }
        var encoded: [Int: Rows] = [:]
        var encodedUndo: [Int: [PostgresUndoWrites.Encoded]] = [:]
        for index in writing {
            var rows = Rows()
            for part in appends[index] where !part.undo.isEmpty {
                do throws(StoreError) {
                    encodedUndo[index, default: []].append(try PostgresUndoWrites.encode(part))
                } catch {
                    refusals[index] = error
                }
            }
            for part in appends[index] {
                for operation in part.operations {
                    guard let bytes = WireCodec.encode(operation) else {
                        refusals[index] = StoreError(
                            .invalidData, "Operation \(operation.seq) of \(part.board) cannot be encoded.")
                        break
                    }
                    rows.boards.append(part.board)
                    rows.seqs.append(Int64(operation.seq))
                    rows.epochs.append(Int64(part.epoch ?? 0))
                    rows.data.append(ByteBuffer(bytes: bytes))
                }
            }
            if refusals[index] == nil { encoded[index] = rows }
        }
        var fenceBoards: [String] = []
        var fenceEpochs: [Int64] = []
        var seen = Set<String>()
        for index in writing where encoded[index] != nil {
            for part in appends[index] {
                guard let epoch = part.epoch, seen.insert("\(part.board)#\(epoch)").inserted else { continue }
                fenceBoards.append(part.board)
                fenceEpochs.append(Int64(epoch))
            }
        }
        var outcome: [Int] = []
        var inTransaction: [Int: StoreError] = [:]
        do {
            try writer.transaction(doing: "Storing operations") { () throws(StoreError) in
                inTransaction = [:]
                var valid = Set<String>()
                if !fenceBoards.isEmpty {
                    // FOR SHARE: no claim can change these leases until this transaction ends.
                    let rows = try writer.run(
                        """
                        SELECT l.board, l.epoch FROM corkboard_leases l
                        JOIN unnest(\(fenceBoards)::text[], \(fenceEpochs)::bigint[]) AS f(board, epoch)
                          ON l.board = f.board AND l.epoch = f.epoch
                        FOR SHARE OF l
                        """, doing: "Checking the leases")
                    for row in rows {
                        let (board, epoch) = try decodeRow(row, as: (String, Int64).self)
                        valid.insert("\(board)#\(epoch)")
                    }
                }
                var moves: [String] = []
                for index in writing where encoded[index] != nil {
                    let lost = appends[index].first { part in
                        guard let epoch = part.epoch else { return false }
                        return !valid.contains("\(part.board)#\(epoch)")
                    }
                    if let part = lost {
                        inTransaction[index] = StoreError(
                            .fenced,
                            "Board \(part.board) is now held by another node (its lease epoch is no longer "
                                + "\(part.epoch ?? 0)); nothing was stored.")
                    } else {
                        moves += appends[index].compactMap(\.moveID)
                    }
                }
                if !moves.isEmpty {
                    let rows = try writer.run(
                        """
                        INSERT INTO corkboard_moves (id, outcome) SELECT unnest(\(moves)::text[]), 'committed'
                        ON CONFLICT (id) DO NOTHING RETURNING id
                        """, doing: "Recording moves between nodes")
                    var recorded = Set<String>()
                    for row in rows { recorded.insert(try decodeRow(row, as: String.self)) }
                    for index in writing where encoded[index] != nil && inTransaction[index] == nil {
                        if let move = appends[index].compactMap(\.moveID).first(where: { !recorded.contains($0) }) {
                            inTransaction[index] = StoreError(
                                .io, "The move \(move) between nodes was already given up; nothing moved.")
                        }
                    }
                }
                // An append behind a refused one on the same board would leave a gap: refused too.
                var broken = Set<String>()
                var rows = Rows()
                outcome = []
                for index in writing {
                    guard let encodedRows = encoded[index] else {
                        broken.formUnion(appends[index].map(\.board))
                        continue
                    }
                    if inTransaction[index] == nil,
                        let board = appends[index].first(where: { broken.contains($0.board) })?.board
                    {
                        inTransaction[index] = StoreError(
                            .io, "Operations of \(board) follow operations that were not stored; they were not stored.")
                    }
                    if inTransaction[index] != nil {
                        broken.formUnion(appends[index].map(\.board))
                        continue
                    }
                    rows.boards += encodedRows.boards
                    rows.seqs += encodedRows.seqs
                    rows.epochs += encodedRows.epochs
                    rows.data += encodedRows.data
                    outcome.append(index)
                }
                if !rows.boards.isEmpty {
                    _ = try writer.run(
                        """
                        INSERT INTO corkboard_operations (board, seq, epoch, data)
                        SELECT * FROM unnest(\(rows.boards)::text[], \(rows.seqs)::bigint[], \(rows.epochs)::bigint[],
                                             \(rows.data)::bytea[])
                        """, doing: "Storing operations")
                }
                // The undo histories that changed with them (R13), in the same transaction.
                var undo = PostgresUndoWrites()
                for index in outcome { for part in encodedUndo[index] ?? [] { undo.add(part) } }
                try undo.write(writer)
            }
            for (index, error) in inTransaction { refusals[index] = error }
            written = outcome
            return nil
        } catch {
            written = outcome
            // (An append of undo histories alone has no seq to look for: the next one with operations.)
            guard error.message.hasSuffix(PostgresSession.ambiguityNote),
                let part = outcome.lazy.compactMap({ appends[$0].first { !$0.operations.isEmpty } }).first,
                let last = part.operations.last?.seq
            else { return error }
            // The connection broke while COMMIT was on its way: ask the database what happened.
            do {
                let rows = try writer.run(
                    "SELECT count(*) FROM corkboard_operations WHERE board = \(part.board) AND seq = \(last)",
                    doing: "Checking whether the last transaction committed")
                let count: Int64? = try rows.first.map { row throws(StoreError) -> Int64 in
                    try decodeRow(row, as: Int64.self)
                }
                if count == 1 {
                    logger.notice("the connection broke during COMMIT; the transaction had committed")
                    for (index, error) in inTransaction { refusals[index] = error }
                    return nil
                }
                return StoreError(error.kind, error.message + " It had not committed.")
            } catch {
                return StoreError(error.kind, error.message + " Whether it committed is not known yet.")
            }
        }
    }

    /// The highest seq stored for a board, in operations or snapshots (0 for none); read from the
    /// database when not known or when the known one is not `expecting`.
    private func lastStoredSeq(_ board: String, expecting: Int) throws(StoreError) -> Int {
        if let known = storedSeq.withLock({ $0[board] }), known == expecting { return known }
        let rows = try writer.run(
            """
            SELECT greatest(
                coalesce((SELECT max(seq) FROM corkboard_operations WHERE board = \(board)), 0),
                coalesce((SELECT max(seq) FROM corkboard_snapshots WHERE board = \(board)), 0))
            """, doing: "Reading the stored seq of \(board)")
        let stored: Int64? = try rows.first.map { row throws(StoreError) -> Int64 in try decodeRow(row, as: Int64.self)
        }
        let seq = Int(stored ?? 0)
        storedSeq.withLock { $0[board] = seq }
        return seq
    }

    /// Writes a snapshot and compacts the log behind it, if `epoch` (when given) is still the board's.
    private func writeSnapshot(board: String, snapshot: Snapshot, retainingLog: Int, epoch: Int?) {
        guard let data = try? snapshot.jsonData() else {
            failure.withLock {
                $0 = StoreError(.invalidData, "The snapshot of \(board) at seq \(snapshot.seq) cannot be encoded.")
            }
            return
        }
        var fenced = false
        let started = ContinuousClock.now
        do {
            try writer.transaction(doing: "Saving a snapshot of \(board)") { () throws(StoreError) in
                if let epoch {
                    let rows = try writer.run(
                        """
                        SELECT 1 FROM corkboard_leases WHERE board = \(board) AND epoch = \(Int64(epoch)) FOR SHARE
                        """, doing: "Checking the lease of \(board)")
                    guard rows.count == 1 else {
                        fenced = true
                        return
                    }
                }
                let seq = Int64(snapshot.seq)
                _ = try writer.run(
                    """
                    INSERT INTO corkboard_snapshots (board, seq, data) VALUES (\(board), \(seq), \(ByteBuffer(bytes: Array(data))))
                    ON CONFLICT (board, seq) DO UPDATE SET data = excluded.data
                    """, doing: "Saving a snapshot of \(board)")
                _ = try writer.run(
                    "DELETE FROM corkboard_snapshots WHERE board = \(board) AND seq < \(seq)",
                    doing: "Dropping older snapshots of \(board)")
                _ = try writer.run(
                    "DELETE FROM corkboard_operations WHERE board = \(board) AND seq <= \(seq - Int64(retainingLog))",
                    doing: "Compacting the log of \(board)")
            }
            storedSeq.withLock { $0[board] = nil }
            if fenced {
                logger.notice(
                    "a snapshot was not saved: another node holds the board now", metadata: ["board": "\(board)"])
            } else {
                metrics.recordSnapshot(elapsed: .now - started)
                failure.withLock { $0 = nil }
            }
        } catch {
            failure.withLock { $0 = error }
        }
    }
}
