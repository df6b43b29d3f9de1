import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// Drops between two boards (R6, R14): what the actor performs for its state.
///
/// The state decides (`RoomState+CrossBoard.swift`, `+MoveOut`, `+MoveIn`); the actor posts its
/// events to the other board's room, or asks a node of the cluster (`RemoteBoards`), and posts
/// the answer back to this room's inbox as a `RoomEvent.crossBoard`. No task here touches the
/// room's state: each awaits another room or node and posts what it answered.
extension Room {
    /// Performs a step the state asked for.
    func start(_ step: CrossBoardStep) {
        switch step {
        case .hover(let update, let foreign, let other):
            Task { [inbox] in
                let proposal: Proposal
                switch other {
                case .local(let room):
                    proposal = await room.foreignProposal(
                        types: foreign.types, at: update.target.hover, key: update.key)
                case .remote(let remote):
                    proposal = await remote.proposal(
                        board: foreign.board, types: foreign.types, hover: update.target.hover, key: update.key)
                case .unknown:
                    return
                }
                inbox.post(.crossBoard(CrossBoardEvent(.proposal(proposal, update, foreign))))
            }
        case .recall(let drop, let handle, let clientId, let board, let other):
            let opId = CrossBoardIdentity.movedIn(drop.opId, from: info.id)
            Task { [inbox] in
                let recall: Sequencer.Recall?
                switch other {
                case .local(let room):
                    recall = await room.recallMovedIn(opId, clientId: clientId, destination: drop.destination)
                case .remote(let remote):
                    recall = await remote.recall(
                        board: board, opId: opId, clientId: clientId, destination: drop.destination)
                case .unknown:
                    return
                }
                inbox.post(.crossBoard(CrossBoardEvent(.recalled(recall, drop, handle, board: board))))
            }
        case .copy(let drop, let copies, let other):
            Task { [inbox] in
                let outcome: Outcome
                switch other {
                case .local(let room):
                    outcome = await room.insertCopies(copies)
                case .remote(let remote):
                    outcome = await remote.copy(
                        board: drop.board, insert: copies.insert, opId: copies.opId, clientId: copies.clientId,
                        key: copies.key)
                case .unknown:
                    return
                }
                let sameServer = if case .local = other { true } else { false }
                inbox.post(.crossBoard(CrossBoardEvent(.copied(drop, outcome, sameServer: sameServer))))
            }
        case .post(let event, let board, let ifGone):
            post(event, to: board, ifGone: ifGone)
        case .answerMovedIn(let id, let outcome, let part, let source):
            post(
                CrossBoardEvent(.movedIn(id, outcome, part.map(append), by: info.id)), to: source,
                ifGone: CrossBoardEvent(.release(id, appended: part == nil ? nil : false)))
        case .prepareOnNode(let id, let drop, let movedIn, let remote):
            let token = RandomToken.make(prefix: "mv-", bytes: 12)
            let source = info.id
            Task { [inbox] in
                let (answer, node) = await remote.prepareMove(
                    board: drop.board, source: source, insert: movedIn.insert, opId: movedIn.opId,
                    clientId: movedIn.clientId, key: movedIn.key, move: token)
                inbox.post(.crossBoard(CrossBoardEvent(.preparedOnNode(id, answer, node: node, token: token))))
            }
        case .answerPrepared(let reply, let outcome, let part):
            reply.resume(returning: .prepared(outcome, append(part)))
        case .retry(let event, let delay):
            Task { [inbox] in
                try? await Task.sleep(for: delay)
                inbox.post(.crossBoard(event))
            }
        case .appendMove(let mine, let other):
            appendMove(mine, other)
        case .abandonOnNode(let move, let node, let remote):
            Task { await remote.decided(move: move, committed: false, node: node) }
        }
    }

    /// Posts an event to the room of `board`; `ifGone` comes back to this room if it has stopped.
    private func post(_ event: CrossBoardEvent, to board: String, ifGone: CrossBoardEvent?) {
        if let room = registry.room(board), room.inbox.post(.crossBoard(event)) { return }
        if let ifGone { inbox.post(.crossBoard(ifGone)) }
    }

    /// Hands both halves of a move to the store as one atomic append (R14).
    private func appendMove(_ mine: RoomState.StoreWrite?, _ other: CrossBoardStep.OtherHalf) {
        switch other {
        case .local(let theirs, let board):
            let parts = [mine.map(append), theirs].compactMap { $0 }
            if !parts.isEmpty, let store = store ?? registry.room(board)?.store { store.append(atomically: parts) }
        case .remote(let board, let epoch, let operations, let activity, let move, let node, let remote):
            guard let store else { return }
            var parts: [BoardAppend] = []
            if let mine {
                var part = append(mine)
                part.moveID = move
                parts.append(part)
            }
            var theirs = BoardAppend(board: board, operations: operations, epoch: epoch) { error in
                Task { await remote.decided(move: move, committed: error == nil, node: node) }
            }
            theirs.activity = activity
            parts.append(theirs)
            store.append(atomically: parts)
        }
    }

    // MARK: The destination's side, for other rooms and nodes

    /// The proposal for content from another board hovering here.
    func foreignProposal(types: [[String]], at hover: HoverTarget, key: String?) -> Proposal {
        state.foreignProposal(types: types, at: hover, key: key)
    }

    /// Sequences copies coming from another board and returns once they are durable.
    nonisolated func insertCopies(_ copies: MovedIn) async -> Outcome {
        await withCheckedContinuation { reply in
            if !inbox.post(.crossBoard(CrossBoardEvent(.copyIn(copies, reply: reply)))) {
                reply.resume(returning: .rejected(Rejection(.gone, "Board \(info.id) moved to another server.")))
            }
        }
    }

    /// What this board remembers of the insert half of a drop from another board, matched by its
    /// destination (a resent drop no longer carries its items), once that insert is durable;
    /// `nil` when this room gave the board up (stopped, or moving to another node) and cannot tell.
    nonisolated func recallMovedIn(_ opId: String, clientId: String, destination: Destination) async
        -> Sequencer.Recall?
    {
        await withCheckedContinuation { reply in
            let event = CrossBoardEvent(.recall(opId: opId, clientId: clientId, destination, reply: reply))
            if !inbox.post(.crossBoard(event)) { reply.resume(returning: nil) }
        }
    }
}

extension CrossBoardReply {
    /// Resumes the task that waits for this reply.
    func resume() {
        switch self {
        case .outcome(let continuation, let outcome): continuation.resume(returning: outcome)
        case .recall(let continuation, let recall): continuation.resume(returning: recall)
        case .prepared(let continuation, let prepared): continuation.resume(returning: prepared)
        }
    }
}
