import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Testing

/// R18 at the room: snapshots are due by bytes as well as by count, the store keeps no more of the
/// log behind a snapshot than the resume log holds, and a client whose oldest undo steps the
/// board's budget forgot hears it in `undoable`.
struct ByteBoundsRoomTests {
    /// An item of `parts` representations of 64 KiB.
    static func fatItem(parts: Int) -> NewItem {
        NewItem(
            representations: (0..<parts).map {
                Representation(type: "public.plain-text", value: String(repeating: "y\($0)", count: 32 << 10))
            })
    }

    static func submit(_ r: DurabilityRoom, _ op: BoardOperation, from handle: ConnectionHandle, opId: String) async {
        let head = await r.room.head
        await r.room.process([
            .message(handle, .submit(ClientMessage.Submit(ref: opId, opId: opId, base: head, op: op)))
        ])
    }

    static let inbox = Destination(collection: "d-inbox", section: "d-inbox", index: 0)

    @Test("snapshots come every snapshotBytes of operations, keeping behind them only what the resume log holds")
    func snapshotsByBytes() async throws {
        let r = try DurabilityRoom(
            configuration: RoomConfiguration(
                snapshotInterval: 1_000, snapshotBytes: 2 << 20, sequencer: Sequencer.Configuration(logBytes: 1 << 20)))
        await r.joinBoth()
        for i in 0..<10 {
            // About 512 KiB each.
            let insert = BoardOperation.insert(.init(items: [Self.fatItem(parts: 8)], destination: Self.inbox))
            await Self.submit(r, insert, from: r.alice, opId: "f\(i)")
            await r.complete(i)
        }
        let saved = r.store.snapshots
        #expect(saved.map(\.snapshot.seq) == [4, 8], "2 MiB of 512 KiB operations: a snapshot every 4")
        // The resume log holds 1 MiB: the newest operation or two, and the store keeps no more.
        #expect(saved.allSatisfy { $0.retainingLog >= 1 && $0.retainingLog <= 2 }, "\(saved.map(\.retainingLog))")
    }

    @Test("undoable tells a client how many of its oldest steps the board's undo budget forgot")
    func undoableSaysForgotten() async throws {
        let r = try DurabilityRoom(
            configuration: RoomConfiguration(undoHistory: UndoHistory.Configuration(boardBytes: 1 << 20)))
        await r.joinBoth()
        var forgotten: [Int?] = []
        for i in 0..<3 {
            let insert = BoardOperation.insert(.init(items: [Self.fatItem(parts: 6)], destination: Self.inbox))
            await Self.submit(r, insert, from: r.alice, opId: "i\(i)")
            await r.complete(2 * i)
            let item = Board.derivedID(clientId: "alice", opId: "i\(i)", n: 0)
            let edit = BoardOperation.updateItem(
                .init(item: item, representations: [Representation(type: "public.plain-text", value: "x")]))
            await Self.submit(r, edit, from: r.alice, opId: "d\(i)")
            await r.complete(2 * i + 1)
            forgotten += r.sink.takeMessages(r.alice).compactMap(\.undoable).map(\.forgotten)
        }
        // Each edit's recipe holds the 384 KiB it replaced (a delete's holds only its Trash entry's
        // id, R15): the third pushes the board past 1 MiB, so the
        // oldest steps (the first insert and delete) go and Alice is told.
        let firstTold = try #require(forgotten.first, "the first insert made Undo available")
        #expect(firstTold == nil, "nothing forgotten yet")
        let last = try #require(forgotten.last ?? nil)
        #expect(last >= 1)
    }
}
