import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// The room's value-type parts, driven directly: no actor, no `await`.
@Suite("Room parts")
struct RoomPartsTests {
    static let t0 = BoardTime(secondsSince1970: 1_000_000)
    static let ids = DemoIDs(board: "b")

    static func sequencer() throws -> Sequencer {
        Sequencer(board: try Board(collections: BoardTemplate.demo.collections(board: "b")))
    }

    static func hello(_ client: String?, token: String? = nil) -> ClientMessage.Hello {
        ClientMessage.Hello(board: "b", key: "edit-key", name: client ?? "Anon", clientId: client, resumeToken: token)
    }

    /// What an outbox holds, decoded: (message, recipients, rollback policy), closes as `nil` messages.
    static func sent(_ outbox: inout RoomOutbox) throws -> [(ServerMessage?, [ConnectionHandle], RollbackPolicy?)] {
        try outbox.take().map { output in
            switch output {
            case .send(let message, let handles, let policy):
                (try WireCodec.decodeServerMessage(message.bytes), handles, policy)
            case .sendTimed(let message, let handles, _):
                (try WireCodec.decodeServerMessage(message.bytes), handles, .discard)
            case .close(let handle, _, _, _): (nil, [handle], nil)
            case .startTransfer(let handle): (nil, [handle], nil)
            }
        }
    }

    /// Three members joined in order: conn 1, 2, 3.
    static func threeMembers() -> Members {
        var members = Members()
        for n in 1...3 {
            guard
                case .admitted(let client, _, let role, _) = members.admit(
                    hello("c\(n)"), on: conn(UInt64(n)), role: .editor, board: BoardInfo(id: "b", title: "B"))
            else {
                Issue.record("c\(n) was not admitted")
                continue
            }
            _ = members.add(conn(UInt64(n)), clientId: client, name: "N\(n)", role: role)
        }
        return members
    }

    // MARK: Members

    @Test("Members: join order, ids and colors; a bad key, the reserved id and a missing resume token are refused")
    func membersAdmit() throws {
        var members = Self.threeMembers()
        #expect(members.handles == [conn(1), conn(2), conn(3)])
        #expect(members.handles.compactMap { members[$0]?.member.id } == ["m1", "m2", "m3"])
        #expect(members.handles.compactMap { members[$0]?.member.color } == Array(Members.palette.prefix(3)))
        let board = BoardInfo(id: "b", title: "B")
        guard
            case .refused(let badKey, let close) = members.admit(Self.hello("x"), on: conn(9), role: nil, board: board)
        else {
            Issue.record("a key that opens nothing was admitted")
            return
        }
        #expect(badKey.code == .badKey)
        #expect(close?.code == CloseCode.badKey)
        guard
            case .refused(let reserved, _) = members.admit(
                Self.hello(ClientIdentity.system), on: conn(9), role: .editor, board: board)
        else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(reserved.field == "clientId")
        guard case .refused(let noToken, _) = members.admit(Self.hello("c1"), on: conn(9), role: .editor, board: board)
        else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(noToken.field == "resumeToken")
        guard
            case .refused(let again, let none) = members.admit(
                Self.hello("c9"), on: conn(2), role: .editor, board: board)
        else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(again.code == .alreadyJoined && none == nil)
    }

    @Test("Members: the holder of a client's resume token replaces its lingering connection")
    func membersResume() throws {
        var members = Members()
        let board = BoardInfo(id: "b", title: "B")
        guard
            case .admitted(_, let token, _, nil) = members.admit(
                Self.hello("ada"), on: conn(1), role: .editor, board: board)
        else {
            Issue.record("unexpected outcome")
            return
        }
        _ = members.add(conn(1), clientId: "ada", name: "Ada", role: .editor)
        guard
            case .admitted(let client, let same, .viewer, let replacing) = members.admit(
                Self.hello("ada", token: token), on: conn(2), role: .viewer, board: board)
        else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(client == "ada" && same == token && replacing == conn(1))
    }

    @Test("Members: an ephemeral broadcast skips slow members, notes what they missed, and hands it back once drained")
    func membersShedding() throws {
        var members = Self.threeMembers()
        let configuration = RoomConfiguration(slowClientBytes: 100, slowClientCloseBytes: 1000)
        #expect(members.updateBacklog(of: conn(3), pendingBytes: 101, configuration) == .unchanged)
        #expect(members[conn(3)]?.isSlow == true)
        var outbox = RoomOutbox()
        let key = SessionKey(member: "m1", session: "d1")
        let drag = DragState(session: "d1", member: "m1", items: [Self.ids.gc(1)])
        members.broadcastEphemeral(.dragStarted(drag), aboutDrag: key, except: conn(1), into: &outbox)
        members.broadcastEphemeral(
            .cursor(.init(member: "m1", x: 1, y: 2)), aboutMember: conn(1), missed: \.cursors, into: &outbox)
        members.broadcast(.membersChanged(.init(count: 3, joined: [], left: ["m9"])), into: &outbox)
        let sent = try Self.sent(&outbox)
        #expect(
            sent.map(\.1) == [[conn(2)], [conn(2)], [conn(1), conn(2), conn(3)]], "member lists reach slow members")
        #expect(sent.map(\.2) == [.keep, .keep, .keep])
        guard case .drained(let missed) = members.updateBacklog(of: conn(3), pendingBytes: 0, configuration) else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(missed.drags.map(\.key) == [key])
        #expect(Array(missed.cursors) == [conn(1)])
        #expect(members[conn(3)]?.isSlow == false)
        #expect(members.updateBacklog(of: conn(2), pendingBytes: 1001, configuration) == .tooSlow)
    }

    @Test("Members: owners who left with placeholders are due after the grace period, in client-id order")
    func membersDepartures() {
        var members = Members()
        members.noteDeparture(of: "zed", at: Self.t0)
        members.noteDeparture(of: "ada", at: Self.t0.advanced(by: .seconds(5)))
        #expect(members.departures(before: Self.t0).isEmpty)
        #expect(members.departures(before: Self.t0.advanced(by: .seconds(6))) == ["ada", "zed"])
        #expect(members.departed.isEmpty)
    }

    // MARK: Drags

    /// The parts a drag touches, driven directly: three members joined (conn 1, 2, 3), Ada (conn 1)
    /// the dragger, everything at `t0`.
    struct DragParts {
        var sequencer: Sequencer
        var leases = LeaseTable()
        var members: Members
        var drags = Drags()
        var outbox = RoomOutbox()
        let ada: Member

        init() throws {
            sequencer = try RoomPartsTests.sequencer()
            let members = RoomPartsTests.threeMembers()
            ada = try #require(members[conn(1)]?.member)
            self.members = members
        }

        /// Ada begins drag `session` with `items` (while the room is `busy`, its start waits for the tick).
        mutating func begin(_ session: String, _ items: [ItemID], ref: String? = nil, busy: Bool = false) throws {
            try drags.begin(
                .init(ref: ref, session: session, items: items), by: ada, on: conn(1), now: RoomPartsTests.t0,
                busy: busy, leases: &leases, board: sequencer.board, members: &members, outbox: &outbox)
        }

        /// Ada adds `items` to her drag `session`.
        mutating func add(_ session: String, _ items: [ItemID]) throws {
            try drags.add(
                .init(session: session, items: items), by: ada, on: conn(1), now: RoomPartsTests.t0,
                leases: &leases, board: sequencer.board, members: &members, outbox: &outbox)
        }

        /// Ada's drag `session` hovers over `target`.
        mutating func hover(
            _ session: String, over target: DragTarget, ref: String? = nil, busy: Bool = false
        ) throws -> Drags.ForeignHover? {
            try drags.hover(
                .init(ref: ref, session: session, target: target), by: ada, now: RoomPartsTests.t0,
                sequencer: &sequencer, boardID: "b", busy: busy, outbox: &outbox)
        }

        /// Ada cancels her drag `session` (`dragEnd`).
        mutating func cancel(_ session: String) throws {
            try drags.cancel(.init(session: session), by: ada, leases: &leases, members: &members, outbox: &outbox)
        }

        /// Ends the drag `key` for `reason`.
        mutating func end(_ key: SessionKey, reason: ServerMessage.DragEndReason) {
            drags.end(key, reason: reason, leases: &leases, members: &members, outbox: &outbox)
        }

        /// Sends the hovers (and starts) due at the tick.
        mutating func sendHovers() {
            drags.sendHovers(members: &members, outbox: &outbox, now: RoomPartsTests.t0, tick: .milliseconds(33))
        }

        /// What the outbox holds, taken and decoded (`RoomPartsTests.sent`).
        mutating func sent() throws -> [(ServerMessage?, [ConnectionHandle], RollbackPolicy?)] {
            try RoomPartsTests.sent(&outbox)
        }
    }

    @Test("Drags: begin leases the items and shows peers; a second begin of the session is refused; end releases")
    func dragsLifecycle() throws {
        var parts = try DragParts()
        try parts.begin("d1", [Self.ids.gc(1), Self.ids.gc(1), Self.ids.gc(2)], ref: "b1")
        let key = SessionKey(member: parts.ada.id, session: "d1")
        #expect(parts.drags[key]?.items == [Self.ids.gc(1), Self.ids.gc(2)], "an item named twice is dragged once")
        #expect(parts.leases.lease(of: Self.ids.gc(1))?.session == key.leaseID)
        let begun = try parts.sent()
        #expect(begun.map { $0.0?.type } == ["dragGranted", "dragStarted"])
        #expect(begun.map(\.1) == [[conn(1)], [conn(2), conn(3)]])
        #expect(throws: ProtocolError.self) { try parts.begin("d1", [Self.ids.gc(3)]) }
        #expect(parts.outbox.isEmpty, "a refusal changes nothing and sends nothing")
        #expect(parts.drags.quiet(at: Self.t0.advanced(by: .seconds(16)), quietPeriod: .seconds(15)) == [key])
        parts.end(key, reason: .cancelled)
        #expect(parts.drags[key] == nil)
        #expect(parts.leases.isEmpty)
        let ended = try parts.sent()
        #expect(ended.map { $0.0?.type } == ["dragEnded"])
        #expect(ended.map(\.1) == [[conn(2), conn(3)]], "the dragger caused the end itself")
    }

    @Test("Drags: a hover answers the dragger at once and waits for the tick; a drop plans a move in drag order")
    func dragsHoverAndDrop() throws {
        var parts = try DragParts()
        let ada = parts.ada
        try parts.begin("d1", [Self.ids.gc(2)])
        try parts.add("d1", [Self.ids.gc(1)])
        _ = parts.outbox.take()
        let target = DragTarget(collection: Self.ids.found, section: Self.ids.foundSection, index: 0)
        let foreign = try parts.hover("d1", over: target, ref: "u1")
        #expect(foreign == nil)
        #expect(try parts.sent().map { $0.0?.type } == ["proposal"])
        #expect(Array(parts.drags.pendingHovers) == [SessionKey(member: ada.id, session: "d1")])
        parts.sendHovers()
        #expect(try parts.sent().map(\.1) == [[conn(2), conn(3)]])
        #expect(parts.drags.pendingHovers.isEmpty)

        let drop = ClientMessage.Drop(
            session: "d1", opId: "o1", base: 0, destination: Self.ids.at(Self.ids.found, Self.ids.foundSection, 0))
        guard case .sequence(let envelope, _)? = try parts.drags.planDrop(drop, by: ada),
            case .move(let move) = envelope.op
        else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(move.items == [Self.ids.gc(2), Self.ids.gc(1)])
        #expect(move.session == "\(ada.id)/d1")
        let stranger = ClientMessage.Drop(session: "nope", opId: "o2", base: 0, destination: drop.destination)
        // No live drag: `planDrop` leaves it to the sequencer's memory, which has no such drop.
        #expect(try parts.drags.planDrop(stranger, by: ada) == nil)
        #expect(throws: ProtocolError.self) { try Drags.recallDrop(stranger, by: ada, in: parts.sequencer) }
    }

    @Test("Drags: while busy a drag's start waits for the tick, carries items added and the latest hover")
    func dragsBusyStartWaitsForTheTick() throws {
        var parts = try DragParts()
        try parts.begin("d1", [Self.ids.gc(2)], busy: true)
        try parts.add("d1", [Self.ids.gc(1)])
        // The dragger is answered at once; peers hear nothing yet, not even the added items.
        let early = try parts.sent()
        #expect(early.map { $0.0?.type } == ["dragGranted", "dragGranted"])
        #expect(early.allSatisfy { $0.1 == [conn(1)] })
        #expect(parts.drags.waitsForTick)
        let target = DragTarget(collection: Self.ids.found, section: Self.ids.foundSection, index: 0)
        _ = try parts.hover("d1", over: target, busy: true)
        #expect(try parts.sent().isEmpty, "a ref-less answer goes with the tick while busy")

        parts.sendHovers()
        let tick = try parts.sent()
        // The start (its state holding both items and the hover) to the peers, the answer to the
        // dragger, and no separate hover for a drag whose start carried it.
        #expect(tick.compactMap { $0.0?.type }.sorted() == ["dragStarted", "proposal"])
        let started = try #require(tick.first { $0.0?.type == "dragStarted" })
        #expect(started.1 == [conn(2), conn(3)])
        guard case .dragStarted(let state)? = started.0 else {
            Issue.record("no dragStarted")
            return
        }
        #expect(state.items == [Self.ids.gc(2), Self.ids.gc(1)])
        #expect(state.target == target)
        #expect(!parts.drags.waitsForTick)
    }

    @Test("Drags: a busy drag that ends before the tick is never shown to peers; an expiry still tells the dragger")
    func dragsBusyStartEndedBeforeTheTick() throws {
        var parts = try DragParts()
        try parts.begin("d1", [Self.ids.gc(1)], busy: true)
        try parts.begin("d2", [Self.ids.gc(2)], busy: true)
        _ = parts.outbox.take()
        try parts.cancel("d1")
        #expect(try parts.sent().isEmpty, "peers never saw d1 start")
        parts.end(SessionKey(member: parts.ada.id, session: "d2"), reason: .expired)
        let expired = try parts.sent()
        #expect(expired.map { $0.0?.type } == ["dragEnded"])
        #expect(expired.map(\.1) == [[conn(1)]])
        #expect(parts.leases.isEmpty, "both leases released")
        parts.sendHovers()
        #expect(try parts.sent().isEmpty)
        #expect(!parts.drags.waitsForTick)
    }

    // MARK: Ephemeral updates

    @Test("EphemeralUpdates: the latest cursor per member and changed presence go out once per tick")
    func ephemeral() throws {
        var members = Self.threeMembers()
        let ada = try #require(members[conn(1)]?.member)
        var ephemeral = EphemeralUpdates()
        var outbox = RoomOutbox()
        ephemeral.moveCursor(.init(x: 1, y: 1), of: ada, on: conn(1))
        ephemeral.moveCursor(.init(x: 5, y: 6), of: ada, on: conn(1))
        ephemeral.changePresence(.active, of: conn(2))
        let first = ephemeral.needsTick(alsoPending: false)
        let second = ephemeral.needsTick(alsoPending: true)
        #expect(first)
        #expect(!second, "one tick at a time")
        ephemeral.tickStarted()
        ephemeral.send(members: &members, outbox: &outbox)
        let sent = try Self.sent(&outbox)
        #expect(sent.compactMap { $0.0?.cursor } == [.init(member: ada.id, x: 5, y: 6)])
        #expect(sent.map(\.1) == [[conn(2), conn(3)]], "an unchanged presence is not sent")
        let nothingLeft = !ephemeral.needsTick(alsoPending: false)
        #expect(nothingLeft)
    }

    // MARK: Durability

    static func committed(_ seq: Int) -> CommittedOperation {
        CommittedOperation(
            seq: seq, opId: "o\(seq)", clientId: "c",
            op: .move(.init(items: [ids.gc(seq)], destination: ids.at(ids.found, ids.foundSection, 0))),
            effect: Effect())
    }

    static func send(_ type: ServerMessage, _ policy: RollbackPolicy) -> RoomOutput {
        .send(WireCodec.encode(type), [conn(1)], policy)
    }

    @Test("Durability: outputs wait for their batch's append and for earlier batches, then go out in order")
    func durabilityOrder() throws {
        var durability = Durability(sequencer: try Self.sequencer(), hasStore: true)
        let pong = Self.send(.pong(.init(ref: "p", head: 0)), .keep)
        let record = WireCodec.encode(Self.committed(1))
        durability.record(
            Self.committed(1), encoded: record, sender: OperationSender(handle: conn(1), ref: nil, opId: "o1"))
        guard case .store(1, let operations, let records) = durability.endBatch([pong]) else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(operations.map(\.seq) == [1])
        #expect(records == [record].compactMap { $0 } && records.count == 1, "the store gets the announced record")
        guard case .held = durability.endBatch([pong]) else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(durability.isPending(1))
        guard
            case .durable(let outputs) = durability.completed(
                upTo: 1, failed: false, replayFailed: { _, _ in })
        else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(outputs.count == 2)
        #expect(durability.durableHead == 1)
        guard case .perform(let now) = durability.endBatch([pong]) else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(now.count == 1, "nothing pending: at once")
        #expect(durability.snapshotDue(every: 1)?.seq == 1)
    }

    @Test("Durability: a batch hands the store its records only when every operation has one")
    func durabilityRecordsAllOrNone() throws {
        var durability = Durability(sequencer: try Self.sequencer(), hasStore: true)
        for (seq, record) in [
            (1, WireCodec.encode(Self.committed(1))), (2, nil), (3, WireCodec.encode(Self.committed(3))),
        ] {
            durability.record(Self.committed(seq), encoded: record, sender: nil)
        }
        guard case .store(3, let operations, let records) = durability.endBatch([]) else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(operations.map(\.seq) == [1, 2, 3])
        #expect(records.isEmpty, "one missing record: the store encodes the whole batch itself")
        durability.record(Self.committed(4), encoded: [1], sender: nil)
        guard case .store(4, _, let next) = durability.endBatch([]) else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(next == [[1]], "the next batch starts afresh")
    }

    @Test("Durability: a rollback applies each output's policy and refuses the senders through the same outputs")
    func durabilityRollback() throws {
        var durability = Durability(sequencer: try Self.sequencer(), hasStore: true)
        durability.record(
            Self.committed(1), encoded: nil, sender: OperationSender(handle: conn(1), ref: "r1", opId: "o1"))
        let outputs: [RoomOutput] = [
            Self.send(.pong(.init(ref: "p", head: 1)), .keep),
            Self.send(.op(Self.committed(1)), .discard),
            Self.send(.pong(.init(ref: "w", head: 1)), .closeRecipients),
        ]
        guard case .store(1, _, let records) = durability.endBatch(outputs) else {
            Issue.record("unexpected outcome")
            return
        }
        #expect(records.isEmpty, "without its record, the store encodes the operation itself")
        durability.record(
            Self.committed(2), encoded: [1], sender: OperationSender(handle: conn(2), ref: nil, opId: "o2"))
        _ = durability.endBatch([])
        guard case .failed = durability.completed(upTo: 1, failed: true, replayFailed: { _, _ in }) else {
            Issue.record("unexpected outcome")
            return
        }
        let rollBack = durability.rollBack(
            failedUpTo: 1, rejection: .storeFailed(StoreError(.full, "full")), isMember: { $0 != conn(2) })
        #expect(rollBack.durable.seq == 0)
        var outbox = RoomOutbox()
        outbox.append(contentsOf: rollBack.outputs)
        let sent = try Self.sent(&outbox)
        #expect(sent.map { $0.0?.type } == ["pong", nil, "ack"], "kept, closed instead, refused; o2's sender left")
        #expect(sent.last?.0?.ack?.outcome.rejectCode == .storeFailed)
        // The dropped append's completion comes later and is ignored.
        guard case .ignored = durability.completed(upTo: 2, failed: true, replayFailed: { _, _ in }) else {
            Issue.record("unexpected outcome")
            return
        }
    }

    // MARK: Outbox

    @Test("RoomOutbox: a committed ack is discarded by a rollback, anything else kept; take empties it")
    func outboxPolicies() {
        var outbox = RoomOutbox()
        outbox.reply(conn(1), .ack(.init(ref: nil, opId: "o1", outcome: .committed(Self.committed(1)))))
        outbox.reply(conn(1), .ack(.init(ref: nil, opId: "o2", outcome: .rejected(.readOnly))))
        outbox.close(conn(1), code: 1008, reason: "r")
        let outputs = outbox.take()
        #expect(outbox.isEmpty)
        let policies = outputs.map { output -> RollbackPolicy? in
            if case .send(_, _, let policy) = output { policy } else { nil }
        }
        #expect(policies == [.discard, .keep, nil])
    }
}

extension Members.Backlog: Equatable {
    static func == (a: Members.Backlog, b: Members.Backlog) -> Bool {
        switch (a, b) {
        case (.unchanged, .unchanged), (.tooSlow, .tooSlow), (.drained, .drained): true
        default: false
        }
    }
}
