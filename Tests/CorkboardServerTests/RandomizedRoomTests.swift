import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// A small seeded generator (SplitMix64), so a failing seed replays exactly.
/// A fake member of the randomized test: its connections over time, its drags, and a replica fed
/// only from what the room sent it.
struct FakeMember {
    let clientId: String
    let key: String
    var handle: ConnectionHandle
    var connected = true
    var replica: ClientReplica?
    var resumeToken: String?
    var sessions: [String] = []
    var sentOps: [(opId: String, op: BoardOperation)] = []
    var counter = 0

    /// Feeds the replica the welcome, the acks of this board and the ops, in the order received.
    mutating func feed(_ messages: [ServerMessage]) throws {
        for message in messages {
            switch message {
            case .welcome(let welcome):
                resumeToken = welcome.resumeToken
                if let snapshot = welcome.snapshot {
                    replica = ClientReplica(clientId: clientId, board: snapshot.board, seq: snapshot.seq)
                }
                for op in welcome.ops ?? [] { try replica?.applyCommitted(op) }
            case .ack(let ack) where ack.board == nil:
                if let committed = ack.outcome.committed { try replica?.applyCommitted(committed) }
            case .op(let committed):
                try replica?.applyCommitted(committed)
            case .synced(let synced):
                if let snapshot = synced.snapshot {
                    replica?.reset(board: snapshot.board, seq: snapshot.seq)
                }
                for op in synced.ops ?? [] { try replica?.applyCommitted(op) }
            case .error(let error):
                #expect(error.code != .internalError, "\(error)")
            default:
                break
            }
        }
    }
}

@Suite("Randomized room histories")
struct RandomizedRoomTests {
    @Test(
        "members dragging, dropping, moving, editing, undoing, leaving and resuming at random all end with the room's board",
        arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomHistory(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        let configuration = RoomConfiguration(
            slowClientBytes: 1000, slowClientCloseBytes: 1_000_000, sequencer: .init(logRetention: 6))
        let h = RoomHarness(configuration: configuration)
        var nextHandle: UInt64 = 1
        var members: [FakeMember] = []
        for n in 0..<5 {
            let key = n == 4 ? "view-key" : "edit-key"
            members.append(FakeMember(clientId: "c\(n)", key: key, handle: conn(nextHandle)))
            nextHandle += 1
        }
        for index in members.indices {
            let m = members[index]
            await h.process(.join(m.handle, .init(board: "b", key: m.key, name: "M\(index)", clientId: m.clientId)))
        }

        var committed: [Int: CommittedOperation] = [:]
        func pull() throws {
            for index in members.indices where members[index].connected {
                let messages = h.sink.take(members[index].handle)
                for message in messages {
                    if let op = message.op ?? message.ack?.outcome.committed { committed[op.seq] = op }
                }
                try members[index].feed(messages)
            }
        }
        try pull()

        for _ in 0..<300 {
            var batch: [RoomEvent] = []
            let actions = Int.random(in: 1...3, using: &rng)
            for _ in 0..<actions {
                let index = Int.random(in: 0..<members.count, using: &rng)
                if let event = randomEvent(for: &members[index], h: h, nextHandle: &nextHandle, rng: &rng) {
                    batch.append(event)
                }
            }
            if Int.random(in: 0..<10, using: &rng) == 0 {
                h.clock.advance(by: .seconds(Double.random(in: 0...20, using: &rng)))
                batch.append(Bool.random(using: &rng) ? .sweep : .tick)
            }
            if Int.random(in: 0..<15, using: &rng) == 0 {
                // R11: a member falls behind or drains; ops must reach it either way.
                let index = Int.random(in: 0..<members.count, using: &rng)
                h.sink.setPendingBytes(Bool.random(using: &rng) ? 5000 : 0, of: members[index].handle)
            }
            let before = await h.snapshot
            await h.room.process(batch)
            try pull()
            let after = await h.snapshot
            let problems = after.board.checkInvariants()
            #expect(problems.isEmpty, "seed \(seed): \(problems)")
            if !problems.isEmpty { return }
            // No loss, no duplicate (R1, R13): items vanish only by a delete, appear only as created.
            let ops = (before.seq..<after.seq).compactMap { committed[$0 + 1] }
            #expect(ops.count == after.seq - before.seq, "seed \(seed): every committed operation reached someone")
            let (vanished, appeared) = conservation(before.board, after.board, ops)
            #expect(vanished.isEmpty && appeared.isEmpty, "seed \(seed): lost \(vanished), appeared \(appeared)")
        }

        // Everyone comes back and catches up.
        for index in members.indices {
            h.sink.setPendingBytes(0, of: members[index].handle)
            if !members[index].connected, let event = rejoin(&members[index], nextHandle: &nextHandle) {
                await h.room.process([event])
            }
        }
        await h.process(.tick)
        try pull()

        let snapshot = await h.snapshot
        #expect(snapshot.seq > 10, "seed \(seed): the history should commit something (head \(snapshot.seq))")
        for member in members {
            let replica = try #require(member.replica)
            #expect(replica.confirmedSeq == snapshot.seq, "seed \(seed) \(member.clientId)")
            #expect(replica.confirmed == snapshot.board, "seed \(seed) \(member.clientId) diverged")
        }
        #expect(snapshot.board.checkInvariants().isEmpty)
        #expect(h.sink.undecodable.isEmpty)
        #expect(h.sink.closes.allSatisfy { $0.code == CloseCode.replaced }, "\(h.sink.closes)")
    }

    /// Items that vanished without a delete naming them, and items that appeared without an
    /// operation creating them, between two boards and the operations committed between them.
    func conservation(_ before: Board, _ after: Board, _ ops: [CommittedOperation]) -> (Set<ItemID>, Set<ItemID>) {
        var mayVanish = Set<ItemID>()
        var mayAppear = Set<ItemID>()
        func allow(_ op: BoardOperation) {
            switch op {
            case .delete(let d), .moveOut(let d):
                for id in d.items { mayVanish.formUnion(before.item(id)?.allIDs ?? [id]) }
            case .deletePlaceholder(let d): mayVanish.insert(d.item)
            case .deleteSection(let d):
                for id in before.itemIDs(in: d.section) ?? [] { mayVanish.formUnion(before.item(id)?.allIDs ?? []) }
            case .batch(let b): for part in b.ops { allow(part) }
            default: break
            }
        }
        for op in ops {
            allow(op.op)
            for change in op.effect.changes where change.from == nil {
                mayAppear.formUnion(after.item(change.item)?.allIDs ?? [change.item])
            }
        }
        let old = Set(before.allItemIDs)
        let new = Set(after.allItemIDs)
        return (old.subtracting(new).subtracting(mayVanish), new.subtracting(old).subtracting(mayAppear))
    }

    func rejoin(_ member: inout FakeMember, nextHandle: inout UInt64) -> RoomEvent? {
        member.handle = conn(nextHandle)
        nextHandle += 1
        member.connected = true
        member.sessions = []
        return .join(
            member.handle,
            .init(
                board: "b", key: member.key, name: member.clientId, clientId: member.clientId,
                lastSeq: member.replica?.confirmedSeq, resumeToken: member.resumeToken))
    }

    /// One random thing a member does, chosen from what its replica shows.
    func randomEvent(
        for member: inout FakeMember, h: RoomHarness, nextHandle: inout UInt64, rng: inout SplitMix64
    ) -> RoomEvent? {
        guard member.connected else { return rejoin(&member, nextHandle: &nextHandle) }
        guard let replica = member.replica else { return nil }
        let board = replica.confirmed
        let items = board.allItemIDs.sorted()
        func someItems() -> [ItemID] {
            var chosen: [ItemID] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                if let item = items.randomElement(using: &rng), !chosen.contains(item) { chosen.append(item) }
            }
            if Int.random(in: 0..<10, using: &rng) == 0 { chosen.append("ghost") }
            return chosen
        }
        func destination() -> Destination {
            let collection = board.collectionIDs.randomElement(using: &rng) ?? "b-caches"
            let sections = board.sectionIDs(in: collection) ?? []
            let section = sections.randomElement(using: &rng) ?? "b-to-find"
            let list = board.itemIDs(in: section) ?? []
            let roll = Int.random(in: 0..<10, using: &rng)
            if roll == 0, let target = list.randomElement(using: &rng) {
                return .into(target, collection: collection, section: section)
            }
            return Destination(
                collection: collection, section: section, index: Int.random(in: 0...(list.count + 1), using: &rng),
                after: Bool.random(using: &rng) ? list.randomElement(using: &rng) : nil,
                before: Bool.random(using: &rng) ? list.randomElement(using: &rng) : nil,
                intent: roll == 1 ? .unspecified : .insertAtDestinationIndexPath)
        }
        func newOpId() -> String {
            member.counter += 1
            return "\(member.clientId)-op\(member.counter)"
        }
        func submit(_ op: BoardOperation) -> RoomEvent {
            let opId = newOpId()
            member.sentOps.append((opId, op))
            return .message(member.handle, .submit(.init(opId: opId, base: replica.confirmedSeq, op: op)))
        }
        let h = member.handle
        if Int.random(in: 0..<100, using: &rng) < 14 {
            // R12 and R13: edits under leases, versioned updates, undo and redo.
            let item = items.randomElement(using: &rng) ?? "ghost"
            switch Int.random(in: 0..<6, using: &rng) {
            case 0:
                return .message(h, .editBegin(.init(item: item)))
            case 1:
                return .message(h, .editEnd(.init(item: item)))
            case 2:
                let card = [Representation(type: "corkboard.card", value: #"{"name":"\#(member.counter)"}"#)]
                return submit(.updateItem(.init(item: item, representations: card, version: board.item(item)?.version)))
            case 3, 4:
                return .message(h, .undo(.init(opId: newOpId(), base: replica.confirmedSeq)))
            default:
                return .message(h, .redo(.init(opId: newOpId(), base: replica.confirmedSeq)))
            }
        }
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<20:
            member.counter += 1
            let session = "s\(member.counter)"
            member.sessions.append(session)
            return .message(h, .dragBegin(.init(session: session, items: someItems())))
        case 20..<28:
            guard let session = member.sessions.randomElement(using: &rng) else { return nil }
            return .message(h, .dragAdd(.init(session: session, items: someItems())))
        case 28..<42:
            guard let session = member.sessions.randomElement(using: &rng) else { return nil }
            let d = destination()
            let target = DragTarget(collection: d.collection, section: d.section, index: d.index, intent: d.intent)
            return .message(
                h, .dropUpdate(.init(session: session, target: target, copy: Int.random(in: 0..<5, using: &rng) == 0)))
        case 42..<62:
            guard let session = member.sessions.randomElement(using: &rng) else { return nil }
            member.sessions.removeAll { $0 == session }
            return .message(
                h,
                .drop(
                    .init(
                        session: session, opId: newOpId(), base: replica.confirmedSeq, destination: destination(),
                        copy: Int.random(in: 0..<5, using: &rng) == 0)))
        case 62..<66:
            guard let session = member.sessions.randomElement(using: &rng) else { return nil }
            member.sessions.removeAll { $0 == session }
            return .message(h, .dragEnd(.init(session: session)))
        case 66..<76:
            return submit(.move(.init(items: someItems(), destination: destination())))
        case 76..<80:
            let text = [Representation(type: "public.plain-text", value: "t\(member.counter)")]
            return submit(.insert(.init(items: [NewItem(representations: text)], destination: destination())))
        case 80..<84:
            var d = destination()
            d.intent = .insertAtDestinationIndexPath
            return submit(.insertPlaceholder(.init(destination: d)))
        case 84..<88:
            guard let placeholder = board.placeholders(ownedBy: member.clientId).randomElement(using: &rng) else {
                return nil
            }
            if Bool.random(using: &rng) {
                let card = [Representation(type: "corkboard.card", value: "{}")]
                return submit(.commitPlaceholder(.init(item: placeholder, representations: card)))
            }
            return submit(.deletePlaceholder(.init(item: placeholder)))
        case 88..<91:
            return submit(.delete(.init(items: someItems())))
        case 91..<94:
            guard let (opId, op) = member.sentOps.randomElement(using: &rng) else { return nil }
            return .message(h, .submit(.init(opId: opId, base: 0, op: op)))
        case 94..<96:
            member.counter += 1
            let collection = board.collectionIDs.randomElement(using: &rng) ?? "b-caches"
            return submit(
                .createSection(.init(collection: collection, id: SectionID("\(member.clientId)-sec\(member.counter)"))))
        case 96..<98:
            member.connected = false
            return .leave(h)
        default:
            return .message(h, .sync(.init(lastSeq: replica.confirmedSeq)))
        }
    }
}
