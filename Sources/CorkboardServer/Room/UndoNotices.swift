import CorkboardModel
import CorkboardProtocol

/// The room's side of per-client undo (R13): every client's history (the model's `UndoHistory`,
/// keyed by client id, so it outlives connections and survives a resume) and what each client was
/// last told of its Undo and Redo (`undoable`), so it hears again only when that changes.
///
/// A value, like the room's other parts.
struct UndoNotices {
    /// Every client's undo and redo stacks.
    var history: UndoHistory
    /// The last `undoable` sent to each client.
    private var sent: [String: ServerMessage.Undoable] = [:]

    init(boardTitle: String, configuration: UndoHistory.Configuration) {
        history = UndoHistory(boardTitle: boardTitle, configuration: configuration)
    }

    /// What a client may do now, as `undoable` says it.
    func state(of clientId: String) -> ServerMessage.Undoable {
        let state = history.state(of: clientId)
        return ServerMessage.Undoable(
            undo: state.undo, redo: state.redo, forgotten: state.forgotten > 0 ? state.forgotten : nil)
    }

    /// The state a welcome tells a client; it is then what the client knows.
    mutating func welcomed(_ clientId: String) -> ServerMessage.Undoable {
        let state = state(of: clientId)
        sent[clientId] = state
        return state
    }

    /// Tells a client's connection its state when it changed since it was last told.
    mutating func notify(_ clientId: String, on handle: ConnectionHandle, outbox: inout RoomOutbox) {
        let state = state(of: clientId)
        guard sent[clientId] != state else { return }
        sent[clientId] = state
        // Dropped by a rollback, which tells every member its state again (`notifyAll`).
        outbox.send(WireCodec.encode(.undoable(state)), to: [handle], onRollback: .discard)
    }

    /// Tells the members whose oldest steps the history forgot for lack of bytes (R18) their new
    /// state; the acting client is told by `notify` as usual.
    mutating func notifyTrimmed(_ members: Members, outbox: inout RoomOutbox) {
        let trimmed = history.takeTrimmed()
        guard !trimmed.isEmpty else { return }
        for handle in members.handles {
            guard let member = members.member(on: handle), trimmed.contains(member.clientId) else { continue }
            notify(member.clientId, on: handle, outbox: &outbox)
        }
    }

    /// Forgets a client the room no longer remembers (``ClientTokens``): its history and what it
    /// was last told.
    mutating func forget(_ clientId: String) {
        history.forget(client: clientId)
        sent[clientId] = nil
    }

    /// Tells every member its state where it changed (after a rollback forgot entries).
    mutating func notifyAll(_ members: Members, outbox: inout RoomOutbox) {
        for handle in members.handles {
            guard let member = members.member(on: handle), member.role.may(.undo) else { continue }
            notify(member.clientId, on: handle, outbox: &outbox)
        }
    }
}
