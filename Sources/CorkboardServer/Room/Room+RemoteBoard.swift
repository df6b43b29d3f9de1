import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// Drops on this board from a board another node of the cluster sequences (R6, R14), as
/// `RemoteBoards` asks for them: each request is an event of this room's inbox, and the state
/// answers it (`RoomState+MoveIn.swift`).
extension Room {
    /// The answer of a destination room to a move from another node.
    enum PreparedMove: Sendable {
        /// Nothing was sequenced: the insert's outcome says why.
        case refused(Outcome)
        /// The insert is sequenced and the room stays held until `finishMovedIn`: the outcome,
        /// and this board's part of the source's transaction.
        case prepared(Outcome, BoardAppend)
        /// Nothing was sequenced: this room is moving items to another node itself and yields to
        /// the move from a board that sorts after it; the source tries again.
        case busy
    }

    /// Sequences the insert half of move `move` from `source`, a board of another node, and holds
    /// this room until `finishMovedIn`, so nothing else is sequenced here before the move is decided.
    nonisolated func prepareMovedIn(_ movedIn: MovedIn, from source: String, move: String) async -> PreparedMove {
        await withCheckedContinuation { reply in
            let event = CrossBoardEvent(.prepareFromNode(MoveID(value: move), movedIn, source: source, reply: reply))
            if !inbox.post(.crossBoard(event)) {
                reply.resume(
                    returning: .refused(
                        .rejected(Rejection(.gone, "Board \(info.id) moved to another server; try again."))))
            }
        }
    }

    /// Ends move `move` prepared by `prepareMovedIn`: its insert goes out (`committed`), is undone
    /// (`false`), or, when the outcome could not be learned (`nil`), the room gives the board up so
    /// it is loaded again from the database.
    nonisolated func finishMovedIn(move: String, committed: Bool?) {
        inbox.post(.crossBoard(CrossBoardEvent(.finishFromNode(MoveID(value: move), committed: committed))))
    }
}
