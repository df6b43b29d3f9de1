import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The PostgreSQL store's transactions, for its `GroupCommitWriter` (which decides what goes into
/// each one): fencing, moves between nodes, the operations, the undo histories and the activity
/// feeds.
///
/// Each transaction first locks the leases of the boards it writes `FOR SHARE` and checks their
/// fencing epochs: an append sequenced under an epoch that is no longer its board's (another node
/// took the board over) is refused `fenced` and writes nothing, and no claim can slip in between
/// the check and the commit. An append whose move between nodes was already given up is refused
/// too. A commit whose answer was lost (the connection broke during `COMMIT`) is looked up.
final class PostgresWriteBackend: GroupCommitBackend {
    /// The writer's session.
    let session: PostgresSession
    let logger: Logger

    /// One append's rows, as the multi-row statements take them, its undo histories and its
    /// activity entries.
    struct Rows {
        var boards: [String] = []
        var seqs: [Int64] = []
        var epochs: [Int64] = []
        var data: [ByteBuffer] = []
        var undo: [PostgresUndoWrites.Encoded] = []
        var activity: [(board: String, records: ActivityRecords)] = []
    }

    /// Transactions on the writer's session.
    init(session: PostgresSession, logger: Logger) {
        self.session = session
        self.logger = logger
    }

    /// The highest seq stored for a board, in operations or snapshots (0 for none).
    func storedSeq(of board: String) throws(StoreError) -> Int {
        let rows = try session.run(
            """
            SELECT greatest(
                coalesce((SELECT max(seq) FROM corkboard_operations WHERE board = \(board)), 0),
                coalesce((SELECT max(seq) FROM corkboard_snapshots WHERE board = \(board)), 0))
            """, doing: "Reading the stored seq of \(board)")
        let stored: Int64? = try rows.first.map { row throws(StoreError) -> Int64 in try decodeRow(row, as: Int64.self)
        }
        return Int(stored ?? 0)
    }

    /// The append's operations in their wire form (the records the room encoded, else
    /// `WireCodec`'s), each with its writer's epoch, its undo changes and its activity entries.
    func encode(_ parts: [BoardAppend]) throws(StoreError) -> Rows {
        var rows = Rows()
        for part in parts where !part.undo.isEmpty { rows.undo.append(try PostgresUndoWrites.encode(part)) }
        for part in parts where !part.activity.isEmpty { rows.activity.append((part.board, part.activity)) }
        for part in parts {
            for (index, operation) in part.operations.enumerated() {
                guard let bytes = part.record(at: index, encode: WireCodec.encode) else {
                    throw StoreError(.invalidData, "Operation \(operation.seq) of \(part.board) cannot be encoded.")
                }
                rows.boards.append(part.board)
                rows.seqs.append(Int64(operation.seq))
                rows.epochs.append(Int64(part.epoch ?? 0))
                rows.data.append(ByteBuffer(bytes: bytes))
            }
        }
        return rows
    }

    /// One transaction: lock and check the fences, record moves, insert the operations, the undo
    /// histories and the activity entries of the appends admitted.
    func write(_ round: inout GroupCommitTransaction<Rows>) throws(StoreError) {
        let entries = round.entries
        var fenceBoards: [String] = []
        var fenceEpochs: [Int64] = []
        var seen = Set<String>()
        for part in entries.flatMap(\.parts) {
            guard let epoch = part.epoch, seen.insert("\(part.board)#\(epoch)").inserted else { continue }
            fenceBoards.append(part.board)
            fenceEpochs.append(Int64(epoch))
        }
        var admitted: [GroupCommitTransaction<Rows>.Entry] = []
        do throws(StoreError) {
            try session.transaction(doing: "Storing operations") { () throws(StoreError) in
                let valid = try validLeases(fenceBoards, fenceEpochs)
                var moves: [String] = []
                for entry in entries {
                    let lost = entry.parts.first { part in
                        guard let epoch = part.epoch else { return false }
                        return !valid.contains("\(part.board)#\(epoch)")
                    }
                    if let part = lost {
                        round.refuse(
                            entry.id,
                            StoreError(
                                .fenced,
                                "Board \(part.board) is now held by another node (its lease epoch is no longer "
                                    + "\(part.epoch ?? 0)); nothing was stored."))
                    } else {
                        moves += entry.parts.compactMap(\.moveID)
                    }
                }
                if !moves.isEmpty {
                    let recorded = try record(moves)
                    for entry in entries {
                        if let move = entry.parts.compactMap(\.moveID).first(where: { !recorded.contains($0) }) {
                            round.refuse(
                                entry.id,
                                StoreError(.io, "The move \(move) between nodes was already given up; nothing moved."))
                        }
                    }
                }
                admitted = round.admit()
                try insert(admitted.map(\.rows))
            }
        } catch {
            // (An append of undo histories alone has no seq to look for: the next one with operations.)
            guard error.message.hasSuffix(PostgresSession.ambiguityNote),
                let part = admitted.lazy.compactMap({ $0.parts.first { !$0.operations.isEmpty } }).first,
                let last = part.operations.last?.seq
            else { throw error }
            try confirmCommitted(error, board: part.board, seq: last)
        }
    }

    /// Locks the leases of `boards` at `epochs` for share (no claim can change them until the
    /// transaction ends); returns the `board#epoch` pairs that are still current.
    private func validLeases(_ boards: [String], _ epochs: [Int64]) throws(StoreError) -> Set<String> {
        guard !boards.isEmpty else { return [] }
        let rows = try session.run(
            """
            SELECT l.board, l.epoch FROM corkboard_leases l
            JOIN unnest(\(boards)::text[], \(epochs)::bigint[]) AS f(board, epoch)
              ON l.board = f.board AND l.epoch = f.epoch
            FOR SHARE OF l
            """, doing: "Checking the leases")
        var valid = Set<String>()
        for row in rows {
            let (board, epoch) = try decodeRow(row, as: (String, Int64).self)
            valid.insert("\(board)#\(epoch)")
        }
        return valid
    }

    /// Records moves between nodes as committed; returns those recorded (not given up before).
    private func record(_ moves: [String]) throws(StoreError) -> Set<String> {
        let rows = try session.run(
            """
            INSERT INTO corkboard_moves (id, outcome) SELECT unnest(\(moves)::text[]), 'committed'
            ON CONFLICT (id) DO NOTHING RETURNING id
            """, doing: "Recording moves between nodes")
        var recorded = Set<String>()
        for row in rows { recorded.insert(try decodeRow(row, as: String.self)) }
        return recorded
    }

    /// Inserts the operations of the appends written, then the undo histories that changed with
    /// them (R13), folded into at most four statements, then their activity entries and trims
    /// (issue 43), in at most two.
    private func insert(_ written: [Rows]) throws(StoreError) {
        let boards = written.flatMap(\.boards)
        if !boards.isEmpty {
            let (seqs, epochs, data) = (written.flatMap(\.seqs), written.flatMap(\.epochs), written.flatMap(\.data))
            _ = try session.run(
                """
                INSERT INTO corkboard_operations (board, seq, epoch, data)
                SELECT * FROM unnest(\(boards)::text[], \(seqs)::bigint[], \(epochs)::bigint[], \(data)::bytea[])
                """, doing: "Storing operations")
        }
        var undo = PostgresUndoWrites()
        for part in written.flatMap(\.undo) { undo.add(part) }
        try undo.write(session)
        var activity = PostgresActivityWrites()
        for (board, records) in written.flatMap(\.activity) { activity.add(board: board, records) }
        try activity.write(session)
    }

    /// The connection broke while COMMIT was on its way: asks the database whether the operation at
    /// `seq` of `board` (the transaction wrote it) is there, and returns when it is.
    ///
    /// - Throws: The commit's error, saying it had not committed or that this is not known yet.
    private func confirmCommitted(_ failure: StoreError, board: String, seq: Int) throws(StoreError) {
        let count: Int64?
        do throws(StoreError) {
            let rows = try session.run(
                "SELECT count(*) FROM corkboard_operations WHERE board = \(board) AND seq = \(seq)",
                doing: "Checking whether the last transaction committed")
            count = try rows.first.map { row throws(StoreError) -> Int64 in try decodeRow(row, as: Int64.self) }
        } catch {
            throw StoreError(error.kind, error.message + " Whether it committed is not known yet.")
        }
        guard count == 1 else { throw StoreError(failure.kind, failure.message + " It had not committed.") }
        logger.notice("the connection broke during COMMIT; the transaction had committed")
    }

    /// Writes a snapshot and compacts the log behind it, if `epoch` (when given) is still the board's.
    func writeSnapshot(_ write: SnapshotWrite) -> SnapshotOutcome {
        let (board, snapshot, epoch) = (write.board, write.snapshot, write.epoch)
        guard let data = try? snapshot.jsonData() else {
            return .failed(
                StoreError(.invalidData, "The snapshot of \(board) at seq \(snapshot.seq) cannot be encoded."))
        }
        var fenced = false
        do throws(StoreError) {
            try session.transaction(doing: "Saving a snapshot of \(board)") { () throws(StoreError) in
                if let epoch {
                    let rows = try session.run(
                        """
                        SELECT 1 FROM corkboard_leases WHERE board = \(board) AND epoch = \(Int64(epoch)) FOR SHARE
                        """, doing: "Checking the lease of \(board)")
                    guard rows.count == 1 else {
                        fenced = true
                        return
                    }
                }
                let seq = Int64(snapshot.seq)
                _ = try session.run(
                    """
                    INSERT INTO corkboard_snapshots (board, seq, data) VALUES (\(board), \(seq), \(ByteBuffer(bytes: Array(data))))
                    ON CONFLICT (board, seq) DO UPDATE SET data = excluded.data
                    """, doing: "Saving a snapshot of \(board)")
                _ = try session.run(
                    "DELETE FROM corkboard_snapshots WHERE board = \(board) AND seq < \(seq)",
                    doing: "Dropping older snapshots of \(board)")
                _ = try session.run(
                    "DELETE FROM corkboard_operations WHERE board = \(board) AND seq <= \(seq - Int64(write.retainingLog))",
                    doing: "Compacting the log of \(board)")
            }
        } catch {
            return .failed(error)
        }
        guard !fenced else {
            logger.notice("a snapshot was not saved: another node holds the board now", metadata: ["board": "\(board)"])
            return .fenced
        }
        return .written
    }

    /// A one-row write: it commits once the database is back.
    func probe() throws(StoreError) {
        _ = try session.run(
            "UPDATE corkboard_meta SET value = value WHERE key = 'schema'", doing: "Probing the database")
    }
}
