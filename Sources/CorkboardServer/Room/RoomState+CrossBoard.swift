import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// Drops between two boards (R6, R14): hovers, copies and resent drops, and the dispatch of the
/// events other boards post; moves are `RoomState+MoveOut.swift` (this board's side) and
/// `RoomState+MoveIn.swift` (the destination's). The actor only asks other boards and posts their
/// answers (`Room+CrossBoard.swift`).
///
/// Each half has its own identity, derived from the drop's opId with the character clients may
/// not use (`ProtocolLimits.reservedOpIdCharacter`), so no other operation can be mistaken for it
/// and a resend is answered only from the half of the same drop.
extension RoomState {
    /// A step of a drop between boards: another board's answer, or its request of this one.
    mutating func handleCrossBoard(_ step: CrossBoardEvent, now: BoardTime) {
        switch step.event {
        case .proposal(let proposal, let update, let foreign):
            showForeignProposal(proposal, for: update, foreign)
        case .recalled(let recall, let drop, let handle, let board):
            answerResentDrop(drop, to: handle, board: board, recall: recall, now: now)
        case .copied(let drop, let outcome, let sameServer):
            dropOnOtherBoardEnded(drop, outcome: outcome, movedOut: nil, sameServer: sameServer)
        case .reserved(let id, let board, let refusal):
            reserved(id, by: board, refusal: refusal, now: now)
        case .movedIn(let id, let outcome, let part, let board):
            movedIn(id, outcome: outcome, part: part, by: board)
        case .preparedOnNode(let id, let answer, let node, let token):
            preparedOnNode(id, answer: answer, node: node, token: token, now: now)
        case .retry(let id):
            retryMove(id, now: now)
        case .reserve(let id, let source):
            reserve(for: id, from: source)
        case .moveIn(let id, let movedIn, let source):
            moveIn(id, movedIn, from: source, now: now)
        case .release(let id, let appended):
            release(id, appended: appended)
        case .copyIn(let movedIn, let reply):
            copyIn(movedIn, reply: reply, now: now)
        case .recall(let opId, let clientId, let destination, let reply):
            answerRecall(opId: opId, clientId: clientId, destination: destination, reply: reply)
        case .prepareFromNode(let id, let movedIn, let source, let reply):
            prepareFromNode(id, movedIn, source: source, reply: reply, now: now)
        case .finishFromNode(let id, let committed):
            finishFromNode(id, committed: committed)
        }
    }

    /// A hover over another board: that board's room proposes (the actor asks it).
    mutating func hoverOtherBoard(_ update: ClientMessage.DropUpdate, _ foreign: Drags.ForeignHover) {
        let other = registry.locate(foreign.board)
        guard case .unknown = other else {
            actions.append(.crossBoard(.hover(update, foreign, other)))
            return
        }
        drags.show(
            foreign.key, version: foreign.version, target: update.target,
            proposal: Proposal(
                operation: .cancel, intent: update.target.intent, reason: "Board \(foreign.board) does not exist."),
            ref: update.ref, outbox: &outbox)
    }

    /// The other board's proposal for a hover: shown unless a newer hover came first.
    mutating func showForeignProposal(
        _ proposal: Proposal, for update: ClientMessage.DropUpdate, _ foreign: Drags.ForeignHover
    ) {
        var proposal = proposal
        if proposal.operation == .copy, foreign.movable { proposal.operation = .move }
        drags.show(
            foreign.key, version: foreign.version, target: update.target, proposal: proposal, ref: update.ref,
            outbox: &outbox)
    }

    /// A drop on another board: a move or a copy of the live drag's items, or the answer to a
    /// resent drop whose drag ended with the old connection.
    mutating func dropOnOtherBoard(
        _ drop: ClientMessage.Drop, from handle: ConnectionHandle, member: Member, board: String, now: BoardTime
    ) throws(ProtocolError) {
        let other = registry.locate(board)
        if case .unknown = other {
            throw ProtocolError(.unknownBoard, "Board \(board) does not exist.", field: "board", ref: drop.ref)
        }
        let key = SessionKey(member: member.id, session: drop.session)
        guard let drag = drags[key], !drag.dropping else {
            actions.append(.crossBoard(.recall(drop, handle, clientId: member.clientId, board: board, other)))
            return
        }
        guard !drag.items.isEmpty else {
            throw ProtocolError(
                .invalidField, "This drag carries only content from outside; drop it with submit on that board.",
                field: "session", ref: drop.ref)
        }
        _ = drags.beginDropping(key)
        let step = CrossBoardDrop(
            drop: drop, handle: handle, clientId: member.clientId, board: board, key: key,
            copy: drop.copy == true || !member.role.may(.edit))
        guard !step.copy else {
            let trees = drag.items.compactMap { sequencer.board.item($0) }
            let copies = MovedIn(
                insert: BoardOperation.Insert(
                    items: trees.map { NewItem(copying: $0) }, destination: drop.destination,
                    labels: sequencer.board.labelDefinitions(for: trees).nilIfEmpty),
                opId: CrossBoardIdentity.movedIn(drop.opId, from: info.id), clientId: member.clientId, key: drop.key)
            actions.append(.crossBoard(.copy(step, copies, other)))
            return
        }
        switch other {
        case .local: startMove(step, to: .room(board), now: now)
        case .remote(let remote): startMove(step, to: .node(remote), now: now)
        case .unknown: break
        }
    }

    /// A drop on another board ended (`movedOut`: the seq of its `moveOut` here, for a move that
    /// committed): the dragger's ack names the destination's outcome, and the drag ends. A drop on
    /// a board of this server (`sameServer`) also counts its refusal and notes a committed drop in
    /// the dragger's history, which cannot undo it from here (R13).
    mutating func dropOnOtherBoardEnded(
        _ step: CrossBoardDrop, outcome: Outcome, movedOut: Int?, sameServer: Bool
    ) {
        if sameServer, case .rejected(let rejection) = outcome { countRejected(rejection.code) }
        outbox.reply(
            step.handle,
            .ack(ServerMessage.Ack(ref: step.drop.ref, opId: step.drop.opId, board: step.board, outcome: outcome)))
        if sameServer, outcome.committed != nil {
            recordOtherBoardDrop(
                clientId: step.clientId, seq: movedOut ?? sequencer.head, copy: step.copy, on: step.handle)
        }
        drags.end(
            step.key, reason: .dropped, seq: movedOut, leases: &leases.drags, members: &members, outbox: &outbox)
    }

    /// Answers a drop resent after a reconnect from what the destination remembers of its half
    /// (`nil`: the destination's node could not be reached).
    mutating func answerResentDrop(
        _ drop: ClientMessage.Drop, to handle: ConnectionHandle, board: String, recall: Sequencer.Recall?,
        now: BoardTime
    ) {
        switch recall {
        case .resend(let first)?:
            outbox.reply(handle, .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: first)))
        case .conflict(let rejection)?:
            outbox.reply(
                handle,
                .ack(ServerMessage.Ack(ref: drop.ref, opId: drop.opId, board: board, outcome: .rejected(rejection))))
        case .fresh?:
            refuse(handle, Drags.unknownSession(drop.session, ref: drop.ref), now: now)
        case nil:
            refuse(
                handle,
                ProtocolError(
                    .internalError,
                    "The server of \(board) could not be reached to tell how this drop ended; resend it in a moment.",
                    ref: drop.ref), now: now)
        }
    }

    /// The proposal for content from another board hovering here.
    func foreignProposal(types: [[String]], at hover: HoverTarget, key: String?) -> Proposal {
        guard keys.role(for: key)?.may(.edit) == true else {
            return Proposal(
                operation: .forbidden, intent: hover.intent,
                reason: "You cannot edit \(info.title); ask for its edit link.")
        }
        return sequencer.board.proposal(items: [], foreignTypes: types, at: hover)
    }
}

/// The identities of the two halves of a drop across boards (R14): derived from the drop's opId
/// with the character no client opId contains, so neither half can be confused with another
/// operation.
enum CrossBoardIdentity {
    /// The `moveOut` half on the source board.
    static func movedOut(_ opId: String, to board: String) -> String {
        "\(opId)\(ProtocolLimits.reservedOpIdCharacter)to:\(board)"
    }

    /// The insert half on the destination board (a move's trees, or a copy's new items).
    static func movedIn(_ opId: String, from board: String) -> String {
        "\(opId)\(ProtocolLimits.reservedOpIdCharacter)from:\(board)"
    }
}

extension NewItem {
    /// A copy of a tree with every id left to be derived from the copying operation (R6 copy).
    init(copying item: Item) {
        self.init(
            representations: item.representations, children: item.children.map { $0.map(NewItem.init(copying:)) },
            details: item.details)
    }
}

extension Array {
    /// `nil` for an empty array, which optional wire fields leave out.
    var nilIfEmpty: [Element]? { isEmpty ? nil : self }
}
