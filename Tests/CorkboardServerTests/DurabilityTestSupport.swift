import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Logging
import Testing

/// A demo-board room on board `d` with a `ManualStore`, driven event by event: Alice (conn 1)
/// and Bob (conn 2).
struct DurabilityRoom {
    let harness: RoomHarness
    let alice = ConnectionHandle(rawValue: 1)
    let bob = ConnectionHandle(rawValue: 2)

    var room: Room { harness.room }
    var store: ManualStore { harness.store! }
    var sink: RecordingSink { harness.sink }

    init(snapshotInterval: Int = 1_000, configuration: RoomConfiguration? = nil) throws {
        harness = RoomHarness(
            board: "d", keys: BoardKeys(edit: "edit", view: "view"),
            configuration: configuration ?? RoomConfiguration(snapshotInterval: snapshotInterval),
            clock: ManualClock(secondsSince1970: 1_790_000_000), store: ManualStore(),
            logger: Logger(label: "durability-tests"))
    }

    /// Alice and Bob join (nothing pending yet, so their welcomes go out at once) and the tick
    /// announces them.
    func joinBoth() async {
        await join(alice, "alice")
        await join(bob, "bob")
        await room.process([.tick])
        _ = sink.takeEvents(alice)
        _ = sink.takeEvents(bob)
    }

    /// Both joined, then Alice's move `a1` committed (append 0, seq 1) and durable; what it sent
    /// them is taken.
    func joinBothWithFirstMoveDurable() async {
        await joinBoth()
        await submitMove(from: alice, opId: "a1")
        await complete(0)
        _ = sink.takeEvents(alice)
        _ = sink.takeEvents(bob)
    }

    func join(_ handle: ConnectionHandle, _ client: String) async {
        await room.process([
            .join(handle, ClientMessage.Hello(board: "d", key: "edit", name: client, clientId: client))
        ])
    }

    /// A move of a demo card to the other collection, as one batch.
    func submitMove(from handle: ConnectionHandle, opId: String, card: Int = 1) async {
        let move = BoardOperation.move(
            .init(
                items: [ItemID("d-gc\(card)")],
                destination: Destination(collection: "d-found", section: "d-found", index: 0)))
        let head = await room.head
        await room.process([
            .message(handle, .submit(ClientMessage.Submit(ref: opId, opId: opId, base: head, op: move)))
        ])
    }

    func ping(from handle: ConnectionHandle, ref: String) async {
        await room.process([.message(handle, .ping(ClientMessage.Ping(ref: ref)))])
    }

    /// Handles what the store's completions posted to the room's inbox (and anything else queued).
    func deliverStoreEvents() async {
        let events = await harness.processQueuedEvents()
        #expect(events.contains { if case .durable = $0 { true } else { false } }, "a completion posted to the room")
    }

    /// Completes append `index` and lets the room handle it.
    func complete(_ index: Int, error: StoreError? = nil) async {
        store.complete(index, error: error)
        await deliverStoreEvents()
    }
}

/// The failure the tests inject.
let diskFull = StoreError(.full, "The disk is full (test); free space and retry.")

/// The ack in a message, if it is one.
func durabilityAck(_ message: ServerMessage) -> ServerMessage.Ack? {
    if case .ack(let ack) = message { return ack }
    return nil
}

/// The committed operation in an `op` message, if it is one.
func durabilityOp(_ message: ServerMessage) -> CommittedOperation? {
    if case .op(let op) = message { return op }
    return nil
}
