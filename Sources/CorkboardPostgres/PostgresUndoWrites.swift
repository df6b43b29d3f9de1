import CorkboardModel
import CorkboardStorage
import Foundation
import NIOCore
import PostgresNIO

/// The undo histories of the appends one transaction writes (R13), in `corkboard_undo`: per
/// (board, client), the last change of the transaction says which entries stay; the entries added
/// on the way that are among them are inserted.
struct PostgresUndoWrites {
    private struct Key: Hashable {
        var board: String
        var client: String
    }

    private var kept: [Key: [Int]] = [:]
    private var added: [Key: [Int: (stack: String, data: ByteBuffer)]] = [:]
    private var order: [Key] = []

    /// The entries of one part, encoded before the transaction.
    struct Encoded {
        var board: String
        var changes: [(change: UndoHistory.Change, data: [ByteBuffer])]
    }

    /// Encodes a part's changes (off the database's time).
    ///
    /// - Throws: `StoreError` when a recipe cannot be encoded.
    static func encode(_ part: BoardAppend) throws(StoreError) -> Encoded {
        var changes: [(UndoHistory.Change, [ByteBuffer])] = []
        for change in part.undo {
            var data: [ByteBuffer] = []
            for entry in change.added { data.append(ByteBuffer(bytes: try UndoEntryCoding.encode(entry))) }
            changes.append((change, data))
        }
        return Encoded(board: part.board, changes: changes)
    }

    var isEmpty: Bool { order.isEmpty }

    /// Adds a part's changes after those added before (the transaction's order).
    mutating func add(_ part: Encoded) {
        for (change, data) in part.changes {
            let key = Key(board: part.board, client: change.clientId)
            if kept[key] == nil { order.append(key) }
            kept[key] = change.kept
            for (entry, bytes) in zip(change.added, data) {
                added[key, default: [:]][entry.seq] = (entry.stack.rawValue, bytes)
            }
        }
    }

    /// Runs the statements inside the writer's transaction.
    func write(_ session: PostgresSession) throws(StoreError) {
        guard !order.isEmpty else { return }
        var boards: [String] = []
        var clients: [String] = []
        var keptBoards: [String] = []
        var keptClients: [String] = []
        var keptSeqs: [Int64] = []
        var rows = (boards: [String](), clients: [String](), seqs: [Int64](), stacks: [String](), data: [ByteBuffer]())
        for key in order {
            boards.append(key.board)
            clients.append(key.client)
            let seqs = kept[key] ?? []
            keptBoards += Array(repeating: key.board, count: seqs.count)
            keptClients += Array(repeating: key.client, count: seqs.count)
            keptSeqs += seqs.map(Int64.init)
            let live = Set(seqs)
            for (seq, entry) in (added[key] ?? [:]).sorted(by: { $0.key < $1.key }) where live.contains(seq) {
                rows.boards.append(key.board)
                rows.clients.append(key.client)
                rows.seqs.append(Int64(seq))
                rows.stacks.append(entry.stack)
                rows.data.append(entry.data)
            }
        }
        _ = try session.run(
            """
            DELETE FROM corkboard_undo u USING unnest(\(boards)::text[], \(clients)::text[]) AS c(board, client)
            WHERE u.board = c.board AND u.client = c.client AND NOT EXISTS (
                SELECT 1 FROM unnest(\(keptBoards)::text[], \(keptClients)::text[], \(keptSeqs)::bigint[])
                    AS k(board, client, seq)
                WHERE k.board = u.board AND k.client = u.client AND k.seq = u.seq)
            """, doing: "Pruning undo histories")
        guard !rows.boards.isEmpty else { return }
        _ = try session.run(
            """
            INSERT INTO corkboard_undo (board, client, seq, stack, data)
            SELECT * FROM unnest(\(rows.boards)::text[], \(rows.clients)::text[], \(rows.seqs)::bigint[],
                                 \(rows.stacks)::text[], \(rows.data)::bytea[])
            ON CONFLICT (board, client, seq) DO UPDATE SET stack = excluded.stack, data = excluded.data
            """, doing: "Storing undo histories")
    }

    /// Every stored entry of a board.
    static func load(_ session: PostgresSession, board: String) throws(StoreError) -> [UndoHistory.StoredEntry] {
        let rows = try session.run(
            "SELECT client, seq, stack, data FROM corkboard_undo WHERE board = \(board)",
            doing: "Loading the undo histories of \(board)")
        var entries: [UndoHistory.StoredEntry] = []
        for row in rows {
            let (client, seq, stack, data) = try decodeRow(row, as: (String, Int64, String, ByteBuffer).self)
            entries.append(
                try UndoEntryCoding.decode(
                    board: board, clientId: client, stack: stack, seq: Int(seq), data: Data(buffer: data)))
        }
        return entries
    }
}
