import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// The moves between boards a room takes part in (R6, R14), each an explicit state that the
/// room's events advance: a value, with no await.
///
/// A move from this board goes `reserving` (its destination, a room of this server, is being
/// held), `inserting` (this board's `moveOut` is sequenced, held back, and the destination is
/// asked to insert the trees), then `storing` (both halves were handed to the store as one append;
/// the dragger's ack waits for it). A move to a board of another node skips `reserving` and, when
/// that node yields (`busy`), waits in `yielded` to try again.
struct CrossBoardMoves {
    /// Where a move from this board goes.
    enum Target {
        /// A room of this server, by board id.
        case room(String)
        /// A board of another node.
        case node(RemoteBoards)
    }

    /// How far a move from this board is.
    enum Phase {
        /// Waiting for the destination room to be held for the move.
        case reserving
        /// `moveOut` is sequenced here (neither sent nor recorded yet) and the destination is asked
        /// to insert; `before` is the sequencer as it was, to undo it exactly.
        case inserting(CommittedOperation, BoardOperation.Insert, before: Sequencer)
        /// Both halves went to the store as one append: the ack names `outcome` once `seq` (this
        /// board's `moveOut`) is durable.
        case storing(Outcome, seq: Int)
        /// The destination's node yielded to a move of its own; the move tries again (`.retry`).
        case yielded
    }

    /// A move from this board.
    struct Outgoing {
        var drop: CrossBoardDrop
        var target: Target
        var phase: Phase
        /// Attempts made at a move to another node (it backs off longer after each).
        var attempts = 0
        /// When a move to another node stops trying again after `busy` answers.
        var deadline: BoardTime
    }

    /// A move from another board holding this room: what its insert here left to settle.
    struct Incoming {
        var id: MoveID
        /// The seq of the insert, once sequenced.
        var insertedUpTo: Int?
    }

    /// A move from another node waiting to hold this room.
    struct WaitingPrepare {
        var id: MoveID
        var movedIn: MovedIn
        var source: String
        var reply: CheckedContinuation<Room.PreparedMove, Never>
    }

    /// What waits for an operation of this board to be durable.
    enum AfterDurable {
        /// A move from here: its ack.
        case moveStored(MoveID)
        /// Copies inserted for another board: their outcome.
        case copied(CheckedContinuation<Outcome, Never>, Outcome)
        /// Another board asking what this one remembers of an insert half: asked again then.
        case recall(opId: String, clientId: String, Destination, CheckedContinuation<Sequencer.Recall?, Never>)
    }

    /// Moves from this board, by id.
    var outgoing: [MoveID: Outgoing] = [:]
    /// The move from another board holding this room, if any.
    var incoming: Incoming?
    /// Moves from other nodes waiting to hold this room, in the order they came.
    var waitingPrepares: [WaitingPrepare] = []
    /// What waits for seqs of this board to be durable, in the order it came.
    var afterDurable: [(seq: Int, waiting: AfterDurable)] = []
    private var numbered = 0

    /// A new id for a move from `board`.
    mutating func newID(from board: String) -> MoveID {
        numbered += 1
        return MoveID(value: "\(board)#\(numbered)")
    }

    /// Moves from this board to other nodes in progress (holding this room or waiting for their
    /// destination's answer): while there are any, this room yields to moves from other nodes
    /// whose board sorts after its own.
    var attemptsOnNodes: Int {
        outgoing.values.count { move in
            guard case .node = move.target else { return false }
            if case .inserting = move.phase { return true }
            return false
        }
    }

    /// Takes what waits for seqs up to `seq`, in order.
    mutating func takeAfterDurable(upTo seq: Int) -> [AfterDurable] {
        var taken: [AfterDurable] = []
        afterDurable.removeAll { entry in
            guard entry.seq <= seq else { return false }
            taken.append(entry.waiting)
            return true
        }
        return taken
    }
}
