import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// Something `RoomState` decided and the `Room` actor performs, in order: the one way the room's
/// decisions reach its connections, its store, its alarms and the server.
enum RoomAction {
    /// Send, close, or start snapshot transfers (`RoomOutput`), in order.
    case outputs([RoomOutput])
    /// Hand the store this board's part of an append (`RoomState.StoreWrite`), on its own.
    case store(RoomState.StoreWrite)
    /// Hand the store a snapshot of the durable board; it keeps `retainingLog` operations behind it.
    indirect case saveSnapshot(Snapshot, retainingLog: Int)
    /// Ask for the tick's alarm: the shell picks its deadline from the server's pace
    /// (`RoomTimers.tickDeadline`), and hovers that may wait for it stop waking the room.
    case armTick(after: BoardTime)
    /// Ask for an alarm posting `event` (`.sweep`, `.transfer`) at `deadline`.
    case arm(RoomEvent, at: BoardTime)
    /// Report what the batch counted to the server's metrics.
    case count(RoomCounts)
    /// Tell the registry the board's estimated snapshot size (for `/healthz`).
    case reportSize(Int)
    /// Resume a task outside the room that waits for the state's answer (another board, another node).
    case reply(CrossBoardReply)
    /// The share keys changed: publish them to `Room.keys`.
    case publishKeys(BoardKeys)
    /// The board's people changed: publish them to `Room.people`.
    case publishPeople(BoardPeople)
    /// Save an admin's change of the board's people in the catalog; the saved record (or the
    /// refusal) comes back to the room as `RoomEvent.accessChanged` (or `.peopleRefused`).
    case changePeople(PeopleChange, PeopleAnswer)
    /// The room gave its board up: leave the registry and stop taking events.
    case stop
    /// Ask another board about a drag over or onto it (R6, R14); its answer comes back to the state.
    indirect case crossBoard(CrossBoardStep)
}

extension RoomState {
    /// This board's part of a store append, as the state decides it; the `Room` makes the
    /// `BoardAppend` (whose completion posts back to the room's inbox) from it.
    struct StoreWrite {
        /// The committed operations, in seq order (none for a write of undo histories alone).
        var operations: [CommittedOperation]
        /// Their records as the room encoded them when it announced them (`BoardAppend.records`).
        var records: [[UInt8]]
        /// The undo histories that changed with them (R13).
        var undo: UndoHistory.Changes
        /// What the completion tells the room: `.durable(upTo, error)` for operations, else
        /// `.undoWriteFailed` on a failure only.
        var upTo: Int?
        /// The activity entries of the operations (issue 43), in the same transaction.
        var activity = ActivityRecords()
    }
}
