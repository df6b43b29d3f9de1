import CorkboardModel
import CorkboardStorage
import Foundation
import NIOCore
import PostgresNIO

/// The undo histories of the appends one transaction writes (R13), in `corkboard_undo`: the
/// parts' deltas (`UndoHistory.Changes`) folded in the transaction's order into one net change per
/// board and client, then written with at most four multi-row statements: the boards replaced
/// whole, the clients forgotten, the entries dropped, the entries added.
struct PostgresUndoWrites {
    private struct Key: Hashable {
        var board: String
        var client: String
    }

    /// One client's net change: as `UndoHistory.Change`, with the recipes already encoded.
    private struct Net {
        var removesAll = false
        var removed: Set<Int> = []
        var added: [Int: (stack: String, data: ByteBuffer)] = [:]
    }

    private var replaced: [String] = []
    private var nets: [Key: Net] = [:]
    private var order: [Key] = []

    /// The entries of one part, encoded before the transaction.
    struct Encoded {
        var board: String
        var changes: UndoHistory.Changes
        var data: [[ByteBuffer]]
    }

    /// Encodes a part's changes (off the database's time).
    ///
    /// - Throws: `StoreError` when a recipe cannot be encoded.
    static func encode(_ part: BoardAppend) throws(StoreError) -> Encoded {
        var data: [[ByteBuffer]] = []
        for change in part.undo.clients {
            var encoded: [ByteBuffer] = []
            for entry in change.added { encoded.append(ByteBuffer(bytes: try UndoEntryCoding.encode(entry))) }
            data.append(encoded)
        }
        return Encoded(board: part.board, changes: part.undo, data: data)
    }

    var isEmpty: Bool { replaced.isEmpty && order.isEmpty }

    /// Folds a part's changes in after those added before (the transaction's order).
    mutating func add(_ part: Encoded) {
        if part.changes.replacesAll {
            if !replaced.contains(part.board) { replaced.append(part.board) }
            for key in order where key.board == part.board { nets[key] = nil }
            order.removeAll { $0.board == part.board }
        }
        for (change, data) in zip(part.changes.clients, part.data) {
            let key = Key(board: part.board, client: change.clientId)
            if nets[key] == nil { order.append(key) }
            var net = change.removesAll ? Net(removesAll: true) : nets[key] ?? Net()
            for seq in change.removed {
                net.added[seq] = nil
                net.removed.insert(seq)
            }
            for (entry, bytes) in zip(change.added, data) {
                net.removed.remove(entry.seq)
                net.added[entry.seq] = (entry.stack.rawValue, bytes)
            }
            nets[key] = net
        }
    }

    /// Runs the statements inside the writer's transaction; a statement with no rows is not sent.
    func write(_ session: PostgresSession) throws(StoreError) {
        guard !isEmpty else { return }
        var cleared = (boards: [String](), clients: [String]())
        var dropped = (boards: [String](), clients: [String](), seqs: [Int64]())
        var rows = (boards: [String](), clients: [String](), seqs: [Int64](), stacks: [String](), data: [ByteBuffer]())
        for key in order {
            guard let net = nets[key] else { continue }
            if net.removesAll {
                cleared.boards.append(key.board)
                cleared.clients.append(key.client)
            }
            for seq in net.removed.sorted() {
                dropped.boards.append(key.board)
                dropped.clients.append(key.client)
                dropped.seqs.append(Int64(seq))
            }
            for (seq, entry) in net.added.sorted(by: { $0.key < $1.key }) {
                rows.boards.append(key.board)
                rows.clients.append(key.client)
                rows.seqs.append(Int64(seq))
                rows.stacks.append(entry.stack)
                rows.data.append(entry.data)
            }
        }
        if !replaced.isEmpty {
            _ = try session.run(
                "DELETE FROM corkboard_undo WHERE board = ANY(\(replaced)::text[])",
                doing: "Replacing undo histories")
        }
        if !cleared.boards.isEmpty {
            _ = try session.run(
                """
                DELETE FROM corkboard_undo u USING unnest(\(cleared.boards)::text[], \(cleared.clients)::text[])
                    AS c(board, client)
                WHERE u.board = c.board AND u.client = c.client
                """, doing: "Deleting forgotten undo histories")
        }
        if !dropped.boards.isEmpty {
            _ = try session.run(
                """
                DELETE FROM corkboard_undo u
                USING unnest(\(dropped.boards)::text[], \(dropped.clients)::text[], \(dropped.seqs)::bigint[])
                    AS d(board, client, seq)
                WHERE u.board = d.board AND u.client = d.client AND u.seq = d.seq
                """, doing: "Deleting dropped undo entries")
        }
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
