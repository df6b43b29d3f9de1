import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

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

/// Names one move between boards (R14) while it holds rooms: the source's board and a number of
/// the source's, or the token a node of the cluster gave it.
struct MoveID: Hashable, Sendable, CustomStringConvertible {
    let value: String

    var description: String { value }
}

/// The insert half of a move or a copy, as the destination sequences it.
struct MovedIn: Sendable {
    var insert: BoardOperation.Insert
    /// The half's own identity (`CrossBoardIdentity.movedIn`).
    var opId: String
    var clientId: String
    /// The dragger's key for the destination board.
    var key: String?
}

/// What a room's state asks of the `Room` actor for a drag over or onto another board: the actor
/// asks, and the answer comes back to the state as a `RoomEvent.crossBoard` in the inbox. No step
/// changes the room's state after an await: each either posts an event to another room's inbox
/// (which answers by posting to this one) or awaits another node and posts what it answered.
enum CrossBoardStep {
    /// Ask the other board for the proposal of a hover (`showForeignProposal` shows it).
    case hover(ClientMessage.DropUpdate, Drags.ForeignHover, OtherBoard)
    /// Insert copies of the drag's items there (`dropOnOtherBoardEnded` ends it).
    case copy(CrossBoardDrop, MovedIn, OtherBoard)
    /// Answer a drop resent after a reconnect from what the other board remembers of it
    /// (`answerResentDrop`).
    case recall(ClientMessage.Drop, ConnectionHandle, clientId: String, board: String, OtherBoard)
    /// Post a move's event (`.reserve`, `.moveIn`, `.release`) to a room of this server; if that
    /// room has stopped, `ifGone` comes back to this room instead.
    case post(CrossBoardEvent, to: String, ifGone: CrossBoardEvent?)
    /// Answer the source room of the move holding this room with the insert's outcome and this
    /// board's part of the append (made into a `BoardAppend` by the actor).
    case answerMovedIn(MoveID, Outcome, RoomState.StoreWrite?, to: String)
    /// Ask the destination's node to sequence a move's insert half and hold its room
    /// (`RoomState.preparedOnNode` takes the answer).
    case prepareOnNode(MoveID, CrossBoardDrop, MovedIn, RemoteBoards)
    /// Answer a move from another node that now holds this room: the insert's outcome and this
    /// board's part, which the source's node writes in its transaction.
    case answerPrepared(CheckedContinuation<Room.PreparedMove, Never>, Outcome, RoomState.StoreWrite)
    /// Post `event` back to this room after `delay` (a move that yielded tries again).
    case retry(CrossBoardEvent, after: Duration)
    /// Hand the store both halves of a move as one atomic append: this board's part and the
    /// destination's (`RemoteBoards` tells the destination's node how it ended, for a move to
    /// another node).
    case appendMove(RoomState.StoreWrite?, OtherHalf)
    /// Tell the destination's node that a move it prepared did not happen.
    case abandonOnNode(move: String, node: String, RemoteBoards)

    /// The destination's half of a move's append.
    enum OtherHalf {
        /// The room of `board` on this server made its part (`nil` without a store); its store
        /// writes both when this room has none.
        case local(BoardAppend?, board: String)
        /// A room of another node sequenced these operations under its lease `epoch`, with these
        /// activity entries (issue 43).
        case remote(
            board: String, epoch: Int?, operations: [CommittedOperation], activity: ActivityRecords, move: String,
            node: String, RemoteBoards)
    }
}

/// A reply a task outside the room waits for, resumed by the room once the state decided it.
enum CrossBoardReply: Sendable {
    /// The outcome of copies inserted here, once durable.
    case outcome(CheckedContinuation<Outcome, Never>, Outcome)
    /// What this board remembers of a drop from another board's half.
    case recall(CheckedContinuation<Sequencer.Recall?, Never>, Sequencer.Recall?)
    /// The answer to a move from another node.
    case prepared(CheckedContinuation<Room.PreparedMove, Never>, Room.PreparedMove)
}

/// A step of a drop between boards, as an event of the room's inbox: another board's answer to a
/// step this room asked for, or another board's request of this one (R6, R14).
public struct CrossBoardEvent: Sendable {
    indirect enum Event: Sendable {
        // Answers to the source.

        /// The other board's proposal for a hover.
        case proposal(Proposal, ClientMessage.DropUpdate, Drags.ForeignHover)
        /// What the other board remembers of a resent drop (`nil`: its node could not be reached).
        case recalled(Sequencer.Recall?, ClientMessage.Drop, ConnectionHandle, board: String)
        /// How a copy there ended: the destination's outcome.
        case copied(CrossBoardDrop, Outcome, sameServer: Bool)
        /// The destination `by` is held for the move (`refusal`: it could not be, nothing changed).
        case reserved(MoveID, by: String, refusal: Rejection?)
        /// The destination sequenced the move's insert (or refused it): its outcome, and its part
        /// of the append (`nil` without a store, or when refused).
        case movedIn(MoveID, Outcome, BoardAppend?, by: String)
        /// The destination's node answered the attempt `token` at a move (`nil`: not in time).
        case preparedOnNode(MoveID, ClusterMessage.Body?, node: String?, token: String)
        /// A move that yielded to another tries again.
        case retry(MoveID)

        // Requests of the destination.

        /// Hold this board for the move from `source`, and say so (`reserved`) once it is.
        case reserve(MoveID, from: String)
        /// Sequence the insert half of the move holding this board, and answer `movedIn`.
        case moveIn(MoveID, MovedIn, from: String)
        /// The move holding this board is over: `appended` says whether the source handed this
        /// board's part of the insert to the store (`false`: undo it), `nil` when none was made.
        case release(MoveID, appended: Bool?)
        /// Insert copies from another board and answer once they are durable.
        case copyIn(MovedIn, reply: CheckedContinuation<Outcome, Never>)
        /// What this board remembers of the insert half `opId` of a drop from another board,
        /// answered once that insert is durable.
        case recall(opId: String, clientId: String, Destination, reply: CheckedContinuation<Sequencer.Recall?, Never>)
        /// Sequence the insert half of a move from a board of another node, and hold this board
        /// until `finishOnNode`.
        case prepareFromNode(MoveID, MovedIn, source: String, reply: CheckedContinuation<Room.PreparedMove, Never>)
        /// How the move from another node holding this board ended (`nil`: unknown).
        case finishFromNode(MoveID, committed: Bool?)
    }

    let event: Event

    init(_ event: Event) { self.event = event }

    /// The move this event belongs to, when it may reach a room its move holds; every other event
    /// waits while a move holds the room (`BoardHold`).
    var move: MoveID? {
        switch event {
        case .reserved(let id, _, _), .movedIn(let id, _, _, _), .preparedOnNode(let id, _, _, _),
            .moveIn(let id, _, _), .release(let id, _), .finishFromNode(let id, _):
            id
        case .proposal, .recalled, .copied, .retry, .reserve, .copyIn, .recall, .prepareFromNode:
            nil
        }
    }
}
