public import CorkboardModel
public import CorkboardProtocol
import Synchronization

/// Operations (submitted at once to the replica's view, kept pending until acknowledged), edit
/// leases, undo and redo.
extension BoardConnection {
    /// Applies an operation to the replica's view at once, keeps it pending and sends it as
    /// `submit`; returns its opId at once.
    ///
    /// While the link is down the operation stays pending and is sent after the resume.
    /// - Parameters:
    ///   - op: The operation.
    ///   - opId: The operation id; `nil` generates one with ``makeOpID()``.
    ///   - session: A drag session the operation finishes (an insert or placeholder dropped from
    ///     outside the board).
    /// - Throws: ``BoardClientError/Code/notJoined`` before the first welcome.
    @discardableResult
    public func submit(_ op: BoardOperation, opId: String? = nil, session: String? = nil) throws(BoardClientError)
        -> String
    {
        try core.withLock { (core: inout Core) throws(BoardClientError) -> String in
            let id = opId ?? makeOpID(&core)
            try submitLocally(op, opID: id, session: session, &core)
            return id
        }
    }

    /// Submits an operation like ``submit(_:opId:session:)`` and waits for its outcome.
    ///
    /// The wait survives a lost link: after a resume the operation is resent and the server's
    /// first outcome answers it.
    /// - Returns: The outcome; a committed outcome has already been applied to the replica.
    /// - Throws: ``BoardClientError``: `notJoined`, `refused` (the server refused the message, e.g.
    ///   an insert naming ids), `timedOut`, `closed`.
    public func perform(
        _ op: BoardOperation, opId: String? = nil, session: String? = nil, timeout: Duration? = nil
    ) async throws(BoardClientError) -> Outcome {
        let id = opId ?? makeOpID()
        let answer = try await wait(
            for: "the ack of \(op.kind) \(id)", match: .answer(ref: nil, opID: id), keepsAcrossReconnect: true,
            timeout: timeout
        ) { (core: inout Core) throws(BoardClientError) in
            try self.submitLocally(op, opID: id, session: session, &core)
        }.get().message
        switch answer {
        case .ack(let ack): return ack.outcome
        case .error(let error): throw .refused(error, answering: "\(op.kind) \(id)")
        default: throw unexpected(answer, answering: "\(op.kind) \(id)")
        }
    }

    // MARK: Edits and undo

    /// Takes (or refreshes) the edit lease on an item (`editBegin`, R12) and waits for the answer:
    /// `editGranted` with the version to update on, or `editRefused` naming the editor.
    ///
    /// - Throws: ``BoardClientError`` as ``request(_:timeout:)``.
    public func beginEdit(item: ItemID, timeout: Duration? = nil) async throws(BoardClientError) -> ServerMessage {
        let answer = try await request(.editBegin(ClientMessage.EditBegin(item: item)), timeout: timeout)
        switch answer {
        case .editGranted, .editRefused: return answer
        default: throw unexpected(answer, answering: "editBegin")
        }
    }

    /// Gives an edit lease back without saving (`editEnd`).
    public func endEdit(item: ItemID) {
        _ = send(.editEnd(ClientMessage.EditEnd(item: item)))
    }

    /// Asks the room to undo this client's newest operation (R13) and waits for the outcome; a
    /// committed undo has been applied to the replica.
    ///
    /// - Throws: ``BoardClientError`` as ``request(_:timeout:)``.
    public func undo(opId: String? = nil, timeout: Duration? = nil) async throws(BoardClientError) -> Outcome {
        try await undoOrRedo(redo: false, opId: opId, timeout: timeout)
    }

    /// Asks the room to redo this client's newest undone operation (R13), as ``undo(opId:timeout:)``.
    public func redo(opId: String? = nil, timeout: Duration? = nil) async throws(BoardClientError) -> Outcome {
        try await undoOrRedo(redo: true, opId: opId, timeout: timeout)
    }

    private func undoOrRedo(redo: Bool, opId: String?, timeout: Duration?) async throws(BoardClientError) -> Outcome {
        let id = opId ?? makeOpID()
        let request = ClientMessage.UndoRequest(opId: id, base: state.replica.confirmedSeq)
        let answer = try await self.request(redo ? .redo(request) : .undo(request), timeout: timeout)
        switch answer {
        case .ack(let ack): return ack.outcome
        case .error(let error): throw .refused(error, answering: "\(redo ? "redo" : "undo") \(id)")
        default: throw unexpected(answer, answering: redo ? "redo" : "undo")
        }
    }
}
