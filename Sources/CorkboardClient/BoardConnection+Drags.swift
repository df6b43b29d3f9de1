public import CorkboardModel
public import CorkboardProtocol
import Synchronization

/// Drags: begin, add, hover, drop or end, each waiting for the room's answer where there is one.
extension BoardConnection {
    /// Starts a drag (`dragBegin`) and waits for `dragGranted`.
    ///
    /// Editors lease the granted items (R9); refused items name their holder. The granted items
    /// are remembered for ``drop(session:destination:copy:board:key:opId:timeout:)``.
    /// - Throws: ``BoardClientError``: `refused` (e.g. a session id already live), `timedOut`, …
    public func beginDrag(
        session: String, items: [ItemID], external: [[String]]? = nil, timeout: Duration? = nil
    ) async throws(BoardClientError) -> ServerMessage.DragGranted {
        let answer = try await request(
            .dragBegin(ClientMessage.DragBegin(session: session, items: items, external: external)), timeout: timeout)
        guard case .dragGranted(let granted) = answer else { throw unexpected(answer, answering: "dragBegin") }
        return granted
    }

    /// Adds items to a live drag (`dragAdd`) and waits for `dragGranted`.
    public func addToDrag(
        session: String, items: [ItemID], timeout: Duration? = nil
    ) async throws(BoardClientError) -> ServerMessage.DragGranted {
        let answer = try await request(
            .dragAdd(ClientMessage.DragAdd(session: session, items: items)), timeout: timeout)
        guard case .dragGranted(let granted) = answer else { throw unexpected(answer, answering: "dragAdd") }
        return granted
    }

    /// Reports where a drag hovers (`dropUpdate`) and waits for the `proposal`.
    ///
    /// - Parameters:
    ///   - target: Where it hovers; set `target.board` for another board of the server.
    ///   - copy: The user asks to copy.
    ///   - key: The edit key of `target.board`.
    public func hover(
        session: String, target: DragTarget, copy: Bool? = nil, key: String? = nil, timeout: Duration? = nil
    ) async throws(BoardClientError) -> ServerMessage.ProposalMessage {
        let answer = try await request(
            .dropUpdate(ClientMessage.DropUpdate(session: session, target: target, copy: copy, key: key)),
            timeout: timeout)
        guard case .proposal(let proposal) = answer else { throw unexpected(answer, answering: "dropUpdate") }
        return proposal
    }

    /// Drops a live drag without waiting; returns the opId.
    ///
    /// On this board the drop is applied to the replica's view at once as a `move` (or `copy`) of
    /// the drag's granted items and stays pending until its ack; if the link is lost before the
    /// ack, it is resent as `submit` after the resume. A drop on another board (`board`, with that
    /// board's edit `key`, R6) changes this replica only through the `moveOut` the server
    /// broadcasts.
    /// - Throws: ``BoardClientError/Code/notJoined`` while the link is down (the drag ended with it).
    @discardableResult
    public func sendDrop(
        session: String, destination: Destination, copy: Bool = false, board: String? = nil, key: String? = nil,
        opId: String? = nil
    ) throws(BoardClientError) -> String {
        try core.withLock { (core: inout Core) throws(BoardClientError) -> String in
            let id = opId ?? makeOpID(&core)
            try dropLocally(
                session: session, destination: destination, copy: copy, board: board, key: key, opID: id, &core)
            return id
        }
    }

    /// Drops a live drag and waits for the `ack`.
    ///
    /// - Returns: The ack; `ack.board` names the other board for a cross-board drop.
    /// - Throws: ``BoardClientError``: `refused` (e.g. `unknown-session` after the drag expired),
    ///   `timedOut`, `closed`, `notJoined`.
    public func drop(
        session: String, destination: Destination, copy: Bool = false, board: String? = nil, key: String? = nil,
        opId: String? = nil, timeout: Duration? = nil
    ) async throws(BoardClientError) -> ServerMessage.Ack {
        let id = opId ?? makeOpID()
        let answer = try await wait(
            for: "the ack of drop \(id)", match: .answer(ref: nil, opID: id), keepsAcrossReconnect: true,
            timeout: timeout
        ) { (core: inout Core) throws(BoardClientError) in
            try self.dropLocally(
                session: session, destination: destination, copy: copy, board: board, key: key, opID: id, &core)
        }.get().message
        switch answer {
        case .ack(let ack): return ack
        case .error(let error): throw .refused(error, answering: "drop \(id)")
        default: throw unexpected(answer, answering: "drop \(id)")
        }
    }

    /// Ends a drag without dropping (`dragEnd`); peers see it cancelled.
    public func endDrag(session: String) {
        core.withLock { core in
            core.state.ownDrags[session] = nil
            if core.phase == .joined { transmit(.dragEnd(ClientMessage.DragEnd(session: session)), &core) }
        }
    }
}
