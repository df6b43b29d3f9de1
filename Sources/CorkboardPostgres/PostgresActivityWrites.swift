import CorkboardStorage
import NIOCore
import PostgresNIO

/// The activity feeds of the appends one transaction writes (issue 43, R18), in
/// `corkboard_activity`: every part's new entries, then per board the entries below the highest
/// `keepFrom` of its parts deleted, with at most two multi-row statements. The entries go in
/// first, so a trim in a later part of the transaction also drops entries an earlier part added.
struct PostgresActivityWrites {
    private struct Key: Hashable {
        var board: String
        var seq: Int
    }

    private var added: [Key: ByteBuffer] = [:]
    private var order: [Key] = []
    private var keepFrom: [String: Int] = [:]

    var isEmpty: Bool { order.isEmpty && keepFrom.isEmpty }

    /// Folds a part's entries in after those added before (the transaction's order): an entry
    /// written again at the same seq (a room that rolled back and committed anew) replaces it.
    mutating func add(board: String, _ records: ActivityRecords) {
        for record in records.added {
            let key = Key(board: board, seq: record.seq)
            if added[key] == nil { order.append(key) }
            added[key] = ByteBuffer(bytes: record.json)
        }
        if let from = records.keepFrom { keepFrom[board] = max(keepFrom[board] ?? from, from) }
    }

    /// Runs the statements inside the writer's transaction; a statement with no rows is not sent.
    func write(_ session: PostgresSession) throws(StoreError) {
        if !order.isEmpty {
            var rows = (boards: [String](), seqs: [Int64](), data: [ByteBuffer]())
            for key in order {
                guard let data = added[key] else { continue }
                rows.boards.append(key.board)
                rows.seqs.append(Int64(key.seq))
                rows.data.append(data)
            }
            _ = try session.run(
                """
                INSERT INTO corkboard_activity (board, seq, data)
                SELECT * FROM unnest(\(rows.boards)::text[], \(rows.seqs)::bigint[], \(rows.data)::bytea[])
                ON CONFLICT (board, seq) DO UPDATE SET data = excluded.data
                """, doing: "Storing activity entries")
        }
        guard !keepFrom.isEmpty else { return }
        let trims = keepFrom.sorted { $0.key < $1.key }
        let boards = trims.map(\.key)
        let seqs = trims.map { Int64($0.value) }
        _ = try session.run(
            """
            DELETE FROM corkboard_activity a USING unnest(\(boards)::text[], \(seqs)::bigint[]) AS k(board, seq)
            WHERE a.board = k.board AND a.seq < k.seq
            """, doing: "Dropping activity entries no longer kept")
    }
}
