import CorkboardModel
import CorkboardProtocol

/// Where a board another room sequences is: a room of this server, a room of another node of the
/// cluster, or nowhere.
enum OtherBoard {
    /// A room of this server (started if it was not yet).
    case local(Room)
    /// A board another node of the cluster sequences.
    case remote(RemoteBoards)
    /// No such board.
    case unknown
}

extension RoomRegistry {
    /// Where `board` is sequenced (R6): here (its room, started at need), on another node, or nowhere.
    func locate(_ board: String) -> OtherBoard {
        if let room = open(board) { return .local(room) }
        if let remote, remote.isKnown(board) { return .remote(remote) }
        return .unknown
    }
}

/// A drop on another board whose drag this room holds, on its way (R6, R14).
struct CrossBoardDrop: Sendable {
    var drop: ClientMessage.Drop
    var handle: ConnectionHandle
    var clientId: String
    /// The board dropped on.
    var board: String
    var key: SessionKey
    /// Whether it copies (asked, or a viewer's drag) rather than moves.
    var copy: Bool
}

/// What a room asks of the `Room` actor for a drag over or onto another board: the other board's
/// answer is awaited there, and comes back to the state as `RoomEvent.crossBoard`.
enum CrossBoardStep {
    /// Ask the other board for the proposal of a hover (`showForeignProposal` shows it).
    case hover(ClientMessage.DropUpdate, Drags.ForeignHover, OtherBoard)
    /// Move or copy the drag's items there (`dropOnOtherBoardEnded` ends it).
    case drop(CrossBoardDrop, OtherBoard)
    /// Answer a drop resent after a reconnect from what the other board remembers of it
    /// (`answerResentDrop`).
    case recall(ClientMessage.Drop, ConnectionHandle, clientId: String, board: String, OtherBoard)
}

/// What another board answered a `CrossBoardStep`: handed back to the state that asked, as the
/// event `RoomEvent.crossBoard`, in a batch of its own.
public struct CrossBoardAnswer: Sendable {
    enum Answer: Sendable {
        /// The other board's proposal for a hover.
        case proposal(Proposal, ClientMessage.DropUpdate, Drags.ForeignHover)
        /// What the other board remembers of a resent drop (`nil`: its node could not be reached).
        case recalled(Sequencer.Recall?, ClientMessage.Drop, ConnectionHandle, board: String)
        /// How a drop there ended: the destination's outcome and, for a committed move, the seq of
        /// its `moveOut` here.
        case dropEnded(CrossBoardDrop, Outcome, movedOut: Int?, sameServer: Bool)
    }

    let answer: Answer

    init(_ answer: Answer) { self.answer = answer }
}
