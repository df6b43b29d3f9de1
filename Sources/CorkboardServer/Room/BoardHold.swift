/// Whether a move between boards holds the room (R14), and the events that wait for it.
///
/// A move between boards commits on two rooms as one step: the source takes the items out, the
/// destination puts them in, nothing else is sequenced on either board in between, and both
/// operations go to the store in one transaction. A move holds both rooms while it commits: each
/// room's state takes the move's own events (`CrossBoardEvent.move`) and keeps every other event
/// here, in order, for when the move lets the room go. Moves between rooms of this server take
/// their two rooms in board-id order, so two moves in opposite directions cannot wait on each
/// other; moves to other nodes yield instead (`RoomState+MoveToNode.swift`). Holding never spans
/// waiting for the store.
struct BoardHold {
    /// The move holding the room, if any.
    private(set) var holder: MoveID?
    /// The events that came while the room was held, in order.
    private var waiting: [RoomEvent] = []

    /// Whether a move holds the room.
    var isHeld: Bool { holder != nil }

    /// Whether `event` is handled now: always when the room is free; while a move holds it, only
    /// the move's own events and requests from other nodes (which must be able to answer `busy`
    /// while a move of this room waits for theirs).
    func admits(_ event: RoomEvent) -> Bool {
        guard let holder else { return true }
        guard case .crossBoard(let step) = event else { return false }
        if case .prepareFromNode = step.event { return true }
        return step.move == holder
    }

    /// Keeps an event for when the room is let go.
    mutating func keep(_ event: consuming RoomEvent) { waiting.append(event) }

    /// The move takes the room; it must be free.
    mutating func take(_ move: MoveID) {
        precondition(holder == nil, "a move took a room held by \(holder.map(String.init(describing:)) ?? "-")")
        holder = move
    }

    /// The move lets the room go; returns the events that waited, to be handled now in order.
    mutating func release(_ move: MoveID) -> [RoomEvent] {
        guard holder == move else { return [] }
        holder = nil
        defer { waiting = [] }
        return waiting
    }
}
