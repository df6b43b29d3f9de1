import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// R14 in the room: big boards reach joiners in parts under flow control; R11 still sheds a member
/// that stops reading.
@Suite("R14 snapshots in parts")
struct SnapshotTransferTests {
    /// Small parts and window so a board of ~100 KiB takes many of them.
    static let configuration = RoomConfiguration(
        slowClientBytes: 4 << 10, slowClientCloseBytes: 24 << 10, inlineSnapshotBytes: 4 << 10,
        snapshotPartBytes: 2 << 10, snapshotWindowBytes: 8 << 10, snapshotStallTimeout: .seconds(5))

    /// A room whose board holds `items` cards of `bytes` each in the inbox, made by `conn(1)`.
    static func bigRoom(items: Int = 40, bytes: Int = 2_500) async throws -> RoomHarness {
        let h = RoomHarness(
            configuration: configuration, sink: RecordingSink(accumulatesPending: true))
        try #require(await h.join(conn(1)) != nil)
        for n in 0..<items {
            let text = String(repeating: Character(UnicodeScalar(UInt8(97 + n % 26))), count: bytes)
            let insert = BoardOperation.insert(
                .init(
                    items: [NewItem(representations: [.init(type: "public.plain-text", value: text)])],
                    destination: h.at(h.inbox, h.inboxSection, 0)))
            let ack = await h.submit(conn(1), insert, opId: "fill-\(n)")
            try #require(ack?.outcome.committed != nil)
        }
        h.sink.read(of: conn(1))
        return h
    }

    /// Reads everything the joiner has, lets the room pump, until the transfer is done; checks the
    /// window held at every step. Returns the messages received after the welcome.
    static func drain(
        _ h: RoomHarness, _ handle: ConnectionHandle, between: () async -> Void = {}
    ) async -> [ServerMessage] {
        var received: [ServerMessage] = []
        for _ in 0..<1000 {
            #expect(
                h.sink.pendingBytes(of: handle) <= configuration.snapshotWindowBytes + 4 << 10,
                "more than a window and a part unsent")
            received += h.sink.take(handle)
            h.sink.read(of: handle)
            await between()
            await h.process(.transfer)
            if await h.room.transfers.isEmpty {
                received += h.sink.take(handle)
                break
            }
        }
        return received
    }

    static func assemble(_ descriptor: ServerMessage.SnapshotParts, _ messages: [ServerMessage]) throws -> Snapshot {
        var assembler = SnapshotAssembler(descriptor)
        for part in messages.compactMap(\.snapshotPart) { try assembler.add(part) }
        return try assembler.snapshot()
    }

    @Test("A big board's welcome announces parts; parts go out only while the joiner's window has room")
    func partsUnderWindow() async throws {
        let h = try await Self.bigRoom()
        await h.join(conn(2), name: "Grace")
        let welcome = try #require(h.sink.messages(to: conn(2)).first?.welcome)
        #expect(welcome.snapshot == nil && welcome.ops == nil)
        let descriptor = try #require(welcome.snapshotParts)
        #expect(descriptor.seq == welcome.head)
        #expect(descriptor.parts > 20)

        // Nothing read: the first window's parts went out with the welcome, and no more follow.
        let first = h.sink.messages(to: conn(2)).compactMap(\.snapshotPart)
        #expect(!first.isEmpty && first.count < descriptor.parts)
        await h.process(.transfer)
        await h.process(.tick)
        #expect(h.sink.messages(to: conn(2)).compactMap(\.snapshotPart).count == first.count)

        let rest = await Self.drain(h, conn(2))
        let all = h.sink.messages(to: conn(2))
        #expect(all.compactMap(\.snapshotPart).map(\.part) == Array(0..<descriptor.parts))
        #expect(try Self.assemble(descriptor, all) == (await h.snapshot))
        #expect(!rest.isEmpty)
        #expect(h.sink.closes.isEmpty, "a member reading under flow control is never closed")
        #expect(h.sink.undecodable.isEmpty)
    }

    @Test("Operations committed during a transfer reach the joiner in order after the snapshot's seq")
    func opsDuringTransfer() async throws {
        let h = try await Self.bigRoom()
        await h.join(conn(2), name: "Grace")
        let descriptor = try #require(h.sink.messages(to: conn(2)).first?.welcome?.snapshotParts)
        var moves = 0
        _ = await Self.drain(h, conn(2)) {
            guard moves < 6 else { return }
            moves += 1
            let move = BoardOperation.move(
                .init(items: [h.gc(moves)], destination: h.at(h.found, h.foundSection, 0)))
            _ = await h.submit(conn(1), move, opId: "during-\(moves)")
            h.sink.read(of: conn(1))
        }
        #expect(moves == 6)
        let messages = h.sink.messages(to: conn(2))
        let ops = messages.compactMap(\.op)
        #expect(ops.map(\.seq) == Array((descriptor.seq + 1)...(descriptor.seq + 6)))
        // Some operations arrived while parts were still on their way: the client keeps them.
        let lastPart = try #require(messages.lastIndex { $0.snapshotPart != nil })
        #expect(messages.firstIndex { $0.op != nil }! < lastPart)
        var board = try Self.assemble(descriptor, messages)
        board = try board.replaying(ops)
        #expect(board == (await h.snapshot))
    }

    @Test("A joiner that stops reading is closed like a slow client after the stall timeout, not before")
    func stalledJoiner() async throws {
        let h = try await Self.bigRoom()
        await h.join(conn(2), name: "Grace")
        await h.process(.tick)  // peers hear of the join
        let member = try #require(h.sink.messages(to: conn(2)).first?.welcome?.member)
        h.clock.advance(by: .seconds(4))
        await h.process(.transfer)
        await h.process(.sweep)
        #expect(h.sink.closes(of: conn(2)).isEmpty)
        h.clock.advance(by: .seconds(2))
        await h.process(.transfer)
        let close = try #require(h.sink.closes(of: conn(2)).first)
        #expect(close.code == CloseCode.policyViolation)
        #expect(close.discardingPending)
        #expect(close.reason.contains("too slow"))
        await h.process(.tick)
        #expect(h.sink.take(conn(1)).compactMap(\.membersChanged).flatMap(\.left) == [member.id])
        #expect(await h.room.memberCount == 1)
        #expect(await h.room.transfers.isEmpty)
    }

    @Test("A joiner that reads slowly but steadily is never closed")
    func slowSteadyReader() async throws {
        let h = try await Self.bigRoom()
        await h.join(conn(2), name: "Grace")
        var rounds = 0
        while !(await h.room.transfers.isEmpty), rounds < 2000 {
            rounds += 1
            h.clock.advance(by: .seconds(1))  // a long time per round, but never 5 s without reading
            h.sink.read(1500, of: conn(2))
            await h.process(.transfer)
            if rounds % 3 == 0 { await h.process(.sweep) }
        }
        #expect(await h.room.transfers.isEmpty)
        #expect(rounds > 30)
        #expect(h.sink.closes.isEmpty)
    }

    @Test("Two joiners at the same seq share one encoding of the snapshot")
    func sharedEncoding() async throws {
        let h = try await Self.bigRoom()
        await h.join(conn(2), name: "Grace")
        await h.join(conn(3), name: "Linus")
        let transfers = await h.room.transfers
        let a = try #require(transfers.active[conn(2)]?.encoding.parts)
        let b = try #require(transfers.active[conn(3)]?.encoding.parts)
        a[0].bytes.withUnsafeBufferPointer { x in
            b[0].bytes.withUnsafeBufferPointer { y in #expect(x.baseAddress == y.baseAddress) }
        }
        #expect(transfers.shared?.seq == (await h.room.head))
        _ = await Self.drain(h, conn(2))
        _ = await Self.drain(h, conn(3))
        #expect(await h.room.transfers.shared != nil, "the encoding stays for the next joiners a while")
        let snapshot = await h.snapshot
        for handle in [conn(2), conn(3)] {
            let messages = h.sink.messages(to: handle)
            let descriptor = try #require(messages.first?.welcome?.snapshotParts)
            #expect(try Self.assemble(descriptor, messages) == snapshot)
        }
    }

    @Test("A joiner after a few changes gets the shared encoding and then the changes: the board is not encoded again")
    func joinAfterChangesReusesTheEncoding() async throws {
        let h = try await Self.bigRoom()
        await h.join(conn(2), name: "Grace")
        let first = try #require(await h.room.transfers.active[conn(2)]?.encoding)
        for n in 1...2 {
            let move = BoardOperation.move(.init(items: [h.gc(n)], destination: h.at(h.found, h.foundSection, 0)))
            #expect(await h.submit(conn(1), move, opId: "after-\(n)")?.outcome.committed != nil)
        }
        let head = await h.room.head
        await h.join(conn(3), name: "Linus")
        let reused = try #require(await h.room.transfers.active[conn(3)]?.encoding)
        first.parts[0].bytes.withUnsafeBufferPointer { x in
            reused.parts[0].bytes.withUnsafeBufferPointer { y in #expect(x.baseAddress == y.baseAddress) }
        }
        let announced = h.sink.messages(to: conn(3))
        let welcome = try #require(announced.first?.welcome)
        #expect(welcome.head == head)
        #expect(welcome.snapshotParts?.seq == head - 2)
        #expect(announced.dropFirst().prefix(2).compactMap(\.op).map(\.seq) == [head - 1, head], "the changes follow")
        _ = await Self.drain(h, conn(3))
        let messages = h.sink.messages(to: conn(3))
        let board = try Self.assemble(try #require(welcome.snapshotParts), messages)
        #expect(try board.replaying(messages.compactMap(\.op)) == (await h.snapshot))

        // Changes worth more than an eighth of the encoding: the next joiner gets the board anew.
        let big = String(repeating: "z", count: first.bytes / 8 + 1)
        let insert = BoardOperation.insert(
            .init(
                items: [NewItem(representations: [.init(type: "public.plain-text", value: big)])],
                destination: h.at(h.inbox, h.inboxSection, 0)))
        #expect(await h.submit(conn(1), insert, opId: "big")?.outcome.committed != nil)
        await h.join(conn(4), name: "Ada")
        let fresh = try #require(h.sink.messages(to: conn(4)).first?.welcome)
        #expect(fresh.snapshotParts?.seq == fresh.head)
    }

    @Test(
        "R14: a joiner after the last transfer ended still gets the kept encoding and the changes since; the sweep lets it go once unused for the retention"
    )
    func keptEncodingOutlivesItsTransfers() async throws {
        let h = try await Self.bigRoom()
        let retention = await h.room.configuration.sharedPartsRetention
        await h.join(conn(2), name: "Grace")
        let first = try #require(await h.room.transfers.active[conn(2)]?.encoding)
        _ = await Self.drain(h, conn(2))
        #expect(await h.room.transfers.isEmpty)
        let move = BoardOperation.move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0)))
        #expect(await h.submit(conn(1), move, opId: "after-end")?.outcome.committed != nil)
        h.clock.advance(by: retention / 2)
        await h.process(.sweep)
        await h.join(conn(3), name: "Linus")
        let reused = try #require(await h.room.transfers.active[conn(3)]?.encoding)
        first.parts[0].bytes.withUnsafeBufferPointer { x in
            reused.parts[0].bytes.withUnsafeBufferPointer { y in #expect(x.baseAddress == y.baseAddress) }
        }
        let welcome = try #require(h.sink.messages(to: conn(3)).first?.welcome)
        #expect(welcome.snapshotParts?.seq == welcome.head - 1, "the kept encoding, then the one change")
        _ = await Self.drain(h, conn(3))
        let messages = h.sink.messages(to: conn(3))
        let board = try Self.assemble(try #require(welcome.snapshotParts), messages)
        #expect(try board.replaying(messages.compactMap(\.op)) == (await h.snapshot))

        // Unused for the retention since Linus's transfer began: the sweep lets it go, and the
        // room asked for that sweep itself.
        let expiry = try #require(await h.room.transfers.partsExpiry(retention: retention))
        #expect(await h.room.nextSweep(now: h.clock.now).map { $0 <= expiry } == true)
        h.clock.advance(by: retention)
        await h.process(.sweep)
        #expect(await h.room.transfers.shared == nil, "an idle room holds no copy of its board")
        await h.join(conn(4), name: "Ada")
        let fresh = try #require(h.sink.messages(to: conn(4)).first?.welcome)
        #expect(fresh.snapshotParts?.seq == fresh.head, "encoded anew at the head")
    }

    @Test("A sync that needs the board gets it in parts, replacing a transfer in progress")
    func syncInParts() async throws {
        let h = try await Self.bigRoom()
        await h.join(conn(2), name: "Grace")
        _ = await Self.drain(h, conn(2))
        _ = h.sink.take(conn(2))
        await h.send(conn(2), .sync(.init(ref: "s1", lastSeq: 10_000)))
        let synced = try #require(h.sink.messages(to: conn(2)).last { $0.synced != nil }?.synced)
        #expect(synced.ref == "s1" && synced.snapshot == nil && synced.ops == nil)
        let descriptor = try #require(synced.snapshotParts)
        // A second sync replaces the first transfer.
        await h.send(conn(2), .sync(.init(ref: "s2", lastSeq: 10_000)))
        _ = await Self.drain(h, conn(2))
        let messages = h.sink.messages(to: conn(2))
        let second = try #require(messages.lastIndex { $0.synced?.ref == "s2" })
        let after = Array(messages[(second + 1)...])
        #expect(after.compactMap(\.snapshotPart).first?.part == 0)
        #expect(try Self.assemble(descriptor, after) == (await h.snapshot))
    }

    @Test("Small boards keep the inline snapshot; a resume with few operations keeps them")
    func smallStaysInline() async throws {
        let h = RoomHarness(configuration: Self.configuration)
        let welcome = try #require(await h.join(conn(1)))
        #expect(welcome.snapshot != nil && welcome.snapshotParts == nil)
        let move = BoardOperation.move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0)))
        _ = await h.submit(conn(1), move, opId: "m1")
        let resumed = try #require(await h.join(conn(2), clientId: "client-1", lastSeq: 0))
        #expect(resumed.ops?.count == 1 && resumed.snapshot == nil && resumed.snapshotParts == nil)
    }

    @Test("An insert past the board's limit is refused too-large and nothing is broadcast")
    func tooLargeInRoom() async throws {
        var configuration = Self.configuration
        configuration.sequencer.maxSnapshotBytes = 16 << 10
        let h = RoomHarness(configuration: configuration)
        try #require(await h.join(conn(1)) != nil)
        try #require(await h.join(conn(2), name: "Grace") != nil)
        _ = h.sink.take(conn(1))
        let insert = BoardOperation.insert(
            .init(
                items: [
                    NewItem(representations: [
                        .init(type: "public.plain-text", value: String(repeating: "x", count: 20_000))
                    ])
                ],
                destination: h.at(h.inbox, h.inboxSection, 0)))
        let head = await h.room.head
        let ack = try #require(await h.submit(conn(1), insert, opId: "big"))
        let rejection = try #require(ack.outcome.rejection)
        #expect(rejection.code == .tooLarge)
        #expect(rejection.message.contains("16 KiB"))
        #expect(await h.room.head == head)
        #expect(h.sink.take(conn(2)).compactMap(\.op).isEmpty)
    }

    @Test("The registry knows each board's size for /healthz")
    func sizesReported() async throws {
        let h = try await Self.bigRoom(items: 10)
        let size = await h.room.snapshot.board.estimatedSnapshotBytes
        let registry = h.room.registry
        #expect(registry.sizes.all[h.board] == size)
        #expect(size > 25_000)
    }
}
