import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// The room's decisions driven synchronously: events in, actions out, with no actor, no `await`,
/// no socket and no store.
@Suite("Room state")
struct RoomStateTests {
    static let t0 = BoardTime(secondsSince1970: 1_000_000)
    static let ids = DemoIDs(board: "b")

    /// Connections that have read everything.
    struct Drained: ConnectionBacklogs {
        func pendingBytes(of handle: ConnectionHandle) -> Int { 0 }
        func pendingBytes(of handles: [ConnectionHandle]) -> [Int] { handles.map { _ in 0 } }
    }

    static func state(board: String = "b", hasStore: Bool = false, registry: RoomRegistry = RoomRegistry()) throws
        -> RoomState
    {
        RoomState(
            info: BoardInfo(id: board, title: "Board \(board)"), keys: testKeys,
            sequencer: Sequencer(board: try Board(collections: BoardTemplate.demo.collections(board: board))),
            configuration: RoomConfiguration(), hasStore: hasStore, history: "h-test", epoch: nil, undoEntries: [],
            backlogs: Drained(), registry: registry, now: t0, logger: quietLogger)
    }

    /// A sent message, decoded, with its recipients.
    struct Sent {
        var message: ServerMessage
        var to: [ConnectionHandle]
    }

    /// The messages the actions send, in order.
    static func sent(_ actions: [RoomAction]) throws -> [Sent] {
        var sent: [Sent] = []
        for case .outputs(let outputs) in actions {
            for output in outputs {
                switch output {
                case .send(let message, let handles, _), .sendTimed(let message, let handles, _):
                    sent.append(Sent(message: try WireCodec.decodeServerMessage(message.bytes), to: handles))
                case .close, .startTransfer:
                    break
                }
            }
        }
        return sent
    }

    static func join(_ state: inout RoomState, _ number: UInt64) throws -> ServerMessage.Welcome {
        let hello = ClientMessage.Hello(
            board: state.info.id, key: "edit-key", name: "N\(number)", clientId: "c\(number)")
        let sent = try Self.sent(state.handle(.join(conn(number), hello), now: t0))
        guard case .welcome(let welcome)? = sent.first(where: { $0.to == [conn(number)] })?.message else {
            throw Rejection(.invalid, "no welcome for conn \(number)")
        }
        return welcome
    }

    static func beginDrag(_ state: inout RoomState, on number: UInt64, items: [ItemID]) throws {
        let sent = try Self.sent(
            state.handle(.message(conn(number), .dragBegin(.init(session: "d1", items: items))), now: t0))
        #expect(sent.contains { if case .dragGranted = $0.message { $0.to == [conn(number)] } else { false } })
    }

    /// Board `b`'s state with `members` joined, conn 1 dragging card 1, and a room of board `b2`
    /// in the same registry.
    static func draggingNextToBoardB2(members: UInt64) throws -> (RoomState, RoomHarness) {
        let registry = RoomRegistry()
        let other = RoomHarness(board: "b2", registry: registry)
        var state = try Self.state(registry: registry)
        for number in 1...members { _ = try Self.join(&state, number) }
        try Self.beginDrag(&state, on: 1, items: [Self.ids.gc(1)])
        return (state, other)
    }

    @Test("A join: the joiner gets its welcome at once; peers learn of it with the tick, which the room asks for")
    func join() throws {
        var state = try Self.state()
        let hello = ClientMessage.Hello(board: "b", key: "edit-key", name: "Ada", clientId: "c1")
        let first = state.handle(.join(conn(1), hello), now: Self.t0)
        guard case .welcome(let welcome)? = try Self.sent(first).first?.message else {
            Issue.record("no welcome")
            return
        }
        #expect(welcome.member.id == "m1" && welcome.head == 0 && welcome.history == "h-test")
        #expect(first.contains { if case .armTick = $0 { true } else { false } }, "the roster waits for the tick")
        let actions = state.handle(
            .join(conn(2), ClientMessage.Hello(board: "b", key: "edit-key", name: "Bo", clientId: "c2")), now: Self.t0)
        #expect(try Self.sent(actions).map(\.to) == [[conn(2)]], "nobody else hears of it before the tick")
        #expect(state.members.count == 2)
        let tick = try Self.sent(state.handle(.tick, now: Self.t0.advanced(by: .milliseconds(33))))
        #expect(tick.contains { if case .membersChanged = $0.message { $0.to.contains(conn(1)) } else { false } })
    }

    @Test("A drop commits: the dropper's ack and the peers' op, encoded once each; nothing to store without a store")
    func dropCommitted() throws {
        var state = try Self.state()
        _ = try Self.join(&state, 1)
        _ = try Self.join(&state, 2)
        try Self.beginDrag(&state, on: 1, items: [Self.ids.gc(1)])
        #expect(state.leases.drags.lease(of: Self.ids.gc(1)) != nil, "the room holds the drag lease")
        let drop = ClientMessage.Drop(
            ref: "r1", session: "d1", opId: "o1", base: 0,
            destination: Self.ids.at(Self.ids.found, Self.ids.foundSection, 0))
        let actions = state.handle(.message(conn(1), .drop(drop)), now: Self.t0)
        #expect(!actions.contains { if case .store = $0 { true } else { false } })
        let sent = try Self.sent(actions)
        guard case .ack(let ack)? = sent.first(where: { $0.to == [conn(1)] })?.message else {
            Issue.record("no ack for the dropper: \(sent)")
            return
        }
        #expect(ack.outcome.committed?.seq == 1 && ack.ref == "r1")
        #expect(sent.contains { if case .op(let op) = $0.message { op.seq == 1 && $0.to == [conn(2)] } else { false } })
        #expect(state.sequencer.head == 1)
        #expect(state.leases.drags.isEmpty, "the drop ends the drag and its lease")
        // The batch's counts come back as one action for the actor to report.
        #expect(
            actions.contains { if case .count(let counts) = $0 { counts == RoomCounts(committed: 1) } else { false } })
    }

    @Test("With a store, a drop waits for it; the store's success sends it, its failure rolls the board back")
    func storeSuccessAndFailure() throws {
        var state = try Self.state(hasStore: true)
        _ = try Self.join(&state, 1)
        _ = try Self.join(&state, 2)
        let destination = Self.ids.at(Self.ids.found, Self.ids.foundSection, 0)
        func drop(_ opId: String, _ item: ItemID) throws -> [RoomAction] {
            try Self.beginDrag(&state, on: 1, items: [item])
            return state.handle(
                .message(
                    conn(1),
                    .drop(.init(session: "d1", opId: opId, base: state.sequencer.head, destination: destination))),
                now: Self.t0)
        }
        let first = try drop("o1", Self.ids.gc(1))
        let writes = first.compactMap { if case .store(let write) = $0 { write } else { nil } }
        #expect(writes.map(\.upTo) == [1] && writes.first?.operations.map(\.seq) == [1])
        #expect(try Self.sent(first).allSatisfy { if case .ack = $0.message { false } else { true } }, "no ack yet")
        // Commit and announce once: the store writes the record the broadcast was made from.
        let write = try #require(writes.first)
        #expect(write.records.count == 1 && write.records.first == write.operations.first.flatMap(WireCodec.encode))

        let stored = try Self.sent(state.handle(.durable(1, nil), now: Self.t0))
        #expect(
            stored.contains { if case .ack(let ack) = $0.message { ack.outcome.committed?.seq == 1 } else { false } })
        #expect(stored.contains { if case .op = $0.message { $0.to == [conn(2)] } else { false } })
        #expect(state.durableHead == 1)

        _ = try drop("o2", Self.ids.gc(2))
        #expect(state.sequencer.head == 2)
        let failedActions = state.handle(.durable(2, StoreError(.io, "disk full")), now: Self.t0)
        let failed = try Self.sent(failedActions)
        #expect(
            failed.contains {
                if case .ack(let ack) = $0.message { ack.outcome.rejection?.code == .storeFailed } else { false }
            })
        #expect(!failed.contains { if case .op = $0.message { true } else { false } }, "peers never see it")
        #expect(
            failedActions.contains {
                if case .count(let counts) = $0 { counts == RoomCounts(rejected: [.storeFailed: 1]) } else { false }
            }, "the refusal is counted with its batch")
        let later = state.handle(.tick, now: Self.t0)
        #expect(!later.contains { if case .count = $0 { true } else { false } }, "and only once")
        #expect(state.sequencer.head == 1, "back to the last durable seq")
    }

    /// The cross-board events the actions post to other rooms, with the board each goes to.
    static func posted(_ actions: [RoomAction]) -> [(CrossBoardEvent.Event, String)] {
        actions.compactMap {
            if case .crossBoard(.post(let event, let board, _)) = $0 { (event.event, board) } else { nil }
        }
    }

    @Test("A move to another board of the server: explicit states, both rooms held, decided without an await")
    func crossBoardMoveSteps() throws {
        let (started, other) = try Self.draggingNextToBoardB2(members: 2)
        var source = started
        var target = try Self.state(board: "b2")
        let destination = other.at(other.found, other.foundSection, 0)
        let drop = ClientMessage.Drop(
            ref: "r1", session: "d1", opId: "o1", base: 0, destination: destination, board: "b2", key: "edit-key")
        // The drop asks the destination to be held; "b" sorts first, so the source is held already.
        let asked = Self.posted(source.handle(.message(conn(1), .drop(drop)), now: Self.t0))
        guard case (.reserve(let id, "b"), "b2")? = asked.first else {
            Issue.record("no reservation asked: \(asked)")
            return
        }
        #expect(source.hold.holder == id && source.drags[SessionKey(member: "m1", session: "d1")]?.dropping == true)
        // While held, the room keeps other events for later.
        let kept = source.handle(.message(conn(2), .ping(ClientMessage.Ping(ref: "p1"))), now: Self.t0)
        #expect(try Self.sent(kept).isEmpty, "nothing is answered while a move holds the room")

        // The destination is held and says so; the source takes the items out and asks it to insert.
        let reserved = Self.posted(target.handle(.crossBoard(CrossBoardEvent(.reserve(id, from: "b"))), now: Self.t0))
        #expect(target.hold.holder == id)
        guard case (.reserved(id, "b2", nil), "b")? = reserved.first else {
            Issue.record("no answer to the reservation: \(reserved)")
            return
        }
        let reservedEvent = CrossBoardEvent(.reserved(id, by: "b2", refusal: nil))
        let insertAsked = Self.posted(source.handle(.crossBoard(reservedEvent), now: Self.t0))
        #expect(source.sequencer.head == 1, "moveOut is sequenced, held back")
        guard case (.moveIn(id, let movedIn, "b"), "b2")? = insertAsked.first else {
            Issue.record("no insert asked: \(insertAsked)")
            return
        }
        // A refusal would undo the moveOut exactly and let both rooms go.
        var refused = source
        let refusal = Rejection(.readOnly, "no")
        let undone = refused.handle(
            .crossBoard(CrossBoardEvent(.movedIn(id, .rejected(refusal), nil, by: "b2"))), now: Self.t0)
        #expect(refused.sequencer.head == 0 && refused.sequencer.board.contains(Self.ids.gc(1)))
        #expect(
            !refused.hold.isHeld
                && Self.posted(undone).contains { if case .release(id, nil) = $0.0 { true } else { false } })

        // The destination inserts and answers with its part (none without a store).
        let inserted = target.handle(.crossBoard(CrossBoardEvent(.moveIn(id, movedIn, from: "b"))), now: Self.t0)
        let answers = inserted.compactMap {
            if case .crossBoard(.answerMovedIn(id, let outcome, let part, "b")) = $0 { (outcome, part) } else { nil }
        }
        let (placed, part) = try #require(answers.first)
        #expect(placed.committed?.seq == 1 && part == nil && target.sequencer.board.contains(Self.ids.gc(1)))

        // Back at the source: moveOut goes to everyone, the ack names the destination's outcome, the
        // destination is released after the (empty) append, and the kept event is handled.
        let ended = source.handle(.crossBoard(CrossBoardEvent(.movedIn(id, placed, nil, by: "b2"))), now: Self.t0)
        let sent = try Self.sent(ended)
        #expect(
            sent.contains {
                if case .op(let op) = $0.message { op.seq == 1 && $0.to == [conn(1), conn(2)] } else { false }
            },
            "the dropper follows this board too")
        #expect(
            sent.contains {
                if case .ack(let ack) = $0.message {
                    ack.board == "b2" && ack.outcome.committed?.seq == 1
                } else {
                    false
                }
            })
        #expect(sent.contains { if case .pong = $0.message { $0.to == [conn(2)] } else { false } }, "the kept ping")
        let appendAt = ended.firstIndex { if case .crossBoard(.appendMove) = $0 { true } else { false } }
        let releaseAt = ended.firstIndex {
            if case .crossBoard(.post(let event, "b2", _)) = $0, case .release(id, true) = event.event {
                true
            } else {
                false
            }
        }
        #expect(try #require(appendAt) < (try #require(releaseAt)), "the destination is let go after the append")
        #expect(!source.hold.isHeld && source.moves.outgoing.isEmpty && source.drags.isEmpty)
        #expect(!source.sequencer.board.contains(Self.ids.gc(1)))
        _ = target.handle(.crossBoard(CrossBoardEvent(.release(id, appended: true))), now: Self.t0)
        #expect(!target.hold.isHeld && target.sequencer.head == 1)
    }

    @Test("An answer for a move the room no longer knows lets the destination go, undoing an insert it made")
    func unknownMoveReleasesDestination() throws {
        var state = try Self.state()
        let id = MoveID(value: "b#9")
        let placed = Outcome.rejected(Rejection(.gone, "gone"))
        let released = Self.posted(
            state.handle(.crossBoard(CrossBoardEvent(.movedIn(id, placed, nil, by: "b2"))), now: Self.t0))
        #expect(released.contains { if case (.release(id, nil), "b2") = $0 { true } else { false } })
        let stale = Self.posted(
            state.handle(.crossBoard(CrossBoardEvent(.reserved(id, by: "b2", refusal: nil))), now: Self.t0))
        #expect(stale.contains { if case (.release(id, nil), "b2") = $0 { true } else { false } })
        #expect(!state.hold.isHeld)
    }

    @Test("A hover over another board: asked of it, answered when it replies, unless a newer hover came first")
    func hoverOverOtherBoard() throws {
        let (started, other) = try Self.draggingNextToBoardB2(members: 1)
        var state = started
        func hover(_ ref: String) throws -> (ClientMessage.DropUpdate, Drags.ForeignHover) {
            let target = DragTarget(board: "b2", collection: other.found, section: other.foundSection, index: 0)
            let update = ClientMessage.DropUpdate(ref: ref, session: "d1", target: target, key: "edit-key")
            let asked = state.handle(.message(conn(1), .dropUpdate(update)), now: Self.t0)
            #expect(try Self.sent(asked).isEmpty, "nothing is answered before the other board replies")
            let hovers = asked.compactMap {
                if case .crossBoard(.hover(_, let foreign, _)) = $0 { foreign } else { nil }
            }
            return (update, try #require(hovers.first))
        }
        let (first, older) = try hover("u1")
        let (second, newer) = try hover("u2")
        let copy = Proposal(operation: .copy, intent: .insertAtDestinationIndexPath)
        let stale = state.handle(.crossBoard(CrossBoardEvent(.proposal(copy, first, older))), now: Self.t0)
        #expect(try Self.sent(stale).isEmpty, "an answer to an older hover is dropped")
        let fresh = try Self.sent(
            state.handle(.crossBoard(CrossBoardEvent(.proposal(copy, second, newer))), now: Self.t0))
        guard case .proposal(let answer)? = fresh.first?.message else {
            Issue.record("no proposal: \(fresh)")
            return
        }
        #expect(answer.ref == "u2" && answer.proposal.operation == .move, "an editor's drag of cards moves")
    }

    @Test("A drop on a board nobody serves is refused at once, and the drag stays")
    func dropOnUnknownBoard() throws {
        var state = try Self.state()
        _ = try Self.join(&state, 1)
        try Self.beginDrag(&state, on: 1, items: [Self.ids.gc(1)])
        let drop = ClientMessage.Drop(
            ref: "r1", session: "d1", opId: "o1", base: 0,
            destination: Self.ids.at(Self.ids.found, Self.ids.foundSection, 0), board: "nowhere")
        let actions = state.handle(.message(conn(1), .drop(drop)), now: Self.t0)
        #expect(!actions.contains { if case .crossBoard = $0 { true } else { false } })
        guard case .error(let error)? = try Self.sent(actions).first?.message else {
            Issue.record("no error")
            return
        }
        #expect(error.code == .unknownBoard)
        #expect(state.drags[SessionKey(member: "m1", session: "d1")]?.dropping == false)
    }
}
