import CorkboardModel
import CorkboardServer
import CorkboardStorage

/// A stored board's size for `corkboard boards` (R14): its snapshot bytes as the server estimates
/// them against `--max-board-bytes`, at its latest seq.
enum BoardSize: CustomStringConvertible {
    /// The board at `seq` would encode to at most `bytes`.
    case bytes(Int, seq: Int)
    /// The board's stored state cannot be read (the reason says why).
    case unreadable(String)

    /// Loads the board (snapshot plus log) from the store, or its template when it was never saved.
    static func of(_ record: BoardRecord, in store: any BoardStore) -> BoardSize {
        do {
            if let stored = try store.load(board: record.id) {
                let sequencer = try Sequencer(snapshot: stored.snapshot, replaying: stored.log)
                return .bytes(sequencer.board.estimatedSnapshotBytes, seq: sequencer.head)
            }
            let board = try Board(collections: record.template.collections(board: record.id))
            return .bytes(board.estimatedSnapshotBytes, seq: 0)
        } catch {
            return .unreadable("\(error)")
        }
    }

    /// `1.5 MiB at seq 42`, or why it cannot be read.
    var description: String {
        switch self {
        case .bytes(let bytes, let seq): "\(SnapshotSize.describe(bytes)) at seq \(seq)"
        case .unreadable(let why): "size unknown: \(why)"
        }
    }
}
