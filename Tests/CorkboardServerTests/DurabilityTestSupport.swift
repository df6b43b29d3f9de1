import CorkboardModel
import CorkboardProtocol
import Logging
import Synchronization
import Testing

@testable import CorkboardServer

/// A `BoardStore` that records what rooms hand it and completes appends only when the test says.
final class DurabilityFakeStore: BoardStore {
    /// One `append` call: one part, or the parts of a move between boards that commit together.
    struct Append {
        var parts: [BoardAppend]
        var completed = false
        /// Every part's operations, in order.
        var operations: [CommittedOperation] { parts.flatMap(\.operations) }
    }

    /// One `saveSnapshot` call.
    struct SavedSnapshot: Equatable {
        var board: String
        var snapshot: Snapshot
        var retainingLog: Int
    }

    private struct State {
        var appends: [Append] = []
        var snapshots: [SavedSnapshot] = []
        var failure: StoreError?
    }

    private let state = Mutex(State())

    func load() throws -> [BoardRecord] { [] }
    func save(_ records: [BoardRecord]) throws {}
    func load(board: String) throws(StoreError) -> StoredBoard? { nil }
    func drain() {}
    var lastFailure: StoreError? { state.withLock { $0.failure } }

    func append(atomically parts: [BoardAppend]) {
        state.withLock { $0.appends.append(Append(parts: parts)) }
    }

    func saveSnapshot(board: String, snapshot: Snapshot, retainingLog: Int) {
        state.withLock {
            $0.snapshots.append(SavedSnapshot(board: board, snapshot: snapshot, retainingLog: retainingLog))
        }
    }

    /// The seqs of each append so far, in call order.
    var appendedSeqs: [[Int]] { state.withLock { $0.appends.map { $0.operations.map(\.seq) } } }

    /// The boards of each append's parts, in call order.
    var appendedBoards: [[String]] { state.withLock { $0.appends.map { $0.parts.map(\.board) } } }

    /// The snapshots saved so far.
    var snapshots: [SavedSnapshot] { state.withLock { $0.snapshots } }

    /// Completes every append not completed yet, in order; returns how many.
    @discardableResult
    func completePending(error: StoreError? = nil) -> Int {
        let open = state.withLock { state in state.appends.indices.filter { !state.appends[$0].completed } }
        for index in open { complete(index, error: error) }
        return open.count
    }

    /// Runs the completions of append number `index` (0-based), every part, as the store's writer
    /// would.
    func complete(_ index: Int, error: StoreError? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let parts = state.withLock { state -> [BoardAppend]? in
            guard index < state.appends.count, !state.appends[index].completed else { return nil }
            state.appends[index].completed = true
            state.failure = error
            return state.appends[index].parts
        }
        guard let parts else {
            Issue.record("append \(index) does not exist or was already completed", sourceLocation: sourceLocation)
            return
        }
        for part in parts { part.completion(error) }
    }
}

/// A sink that records every message and close, decoded, per connection.
final class DurabilitySink: ConnectionSink {
    /// What a connection was sent, in order.
    enum Delivery: Equatable {
        case message(ServerMessage)
        case closed(code: Int)
    }

    private let deliveries = Mutex<[ConnectionHandle: [Delivery]]>([:])

    func send(_ message: EncodedMessage, to handles: [ConnectionHandle]) {
        let decoded: ServerMessage
        do {
            decoded = try WireCodec.decodeServerMessage(message.bytes)
        } catch {
            Issue.record("the room sent undecodable JSON: \(message.text)")
            return
        }
        deliveries.withLock { all in for handle in handles { all[handle, default: []].append(.message(decoded)) } }
    }

    func pendingBytes(of handle: ConnectionHandle) -> Int { 0 }

    func close(_ handle: ConnectionHandle, code: Int, reason: String, discardingPending: Bool) {
        deliveries.withLock { $0[handle, default: []].append(.closed(code: code)) }
    }

    /// Takes (and forgets) what a connection was sent since the last call.
    func take(_ handle: ConnectionHandle) -> [Delivery] {
        deliveries.withLock { all in
            defer { all[handle] = [] }
            return all[handle] ?? []
        }
    }

    /// Takes the messages a connection was sent, failing on closes.
    func messages(_ handle: ConnectionHandle, sourceLocation: SourceLocation = #_sourceLocation) -> [ServerMessage] {
        take(handle).compactMap { delivery in
            switch delivery {
            case .message(let message): return message
            case .closed(let code):
                Issue.record("connection \(handle) was closed \(code)", sourceLocation: sourceLocation)
                return nil
            }
        }
    }
}

/// A demo-board room with a fake store, driven event by event.
struct DurabilityRoom {
    let room: Room
    let store = DurabilityFakeStore()
    let sink = DurabilitySink()
    let alice = ConnectionHandle(rawValue: 1)
    let bob = ConnectionHandle(rawValue: 2)

    init(snapshotInterval: Int = 1_000) throws {
        let board = try Board(collections: BoardTemplate.demo.collections(board: "d"))
        room = Room(
            info: BoardInfo(id: "d", title: "Durable"), keys: BoardKeys(edit: "edit", view: "view"),
            sequencer: Sequencer(board: board), configuration: RoomConfiguration(snapshotInterval: snapshotInterval),
            sink: sink, store: store, clock: RoomClock { 1_790_000_000 }, logger: Logger(label: "durability-tests"))
    }

    /// Alice and Bob join (nothing pending yet, so their welcomes go out at once).
    func joinBoth() async {
        await join(alice, "alice")
        await join(bob, "bob")
        _ = sink.take(alice)
        _ = sink.take(bob)
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
        let events = await room.inbox.next()
        #expect(events.contains { if case .durable = $0 { true } else { false } }, "a completion posted to the room")
        await room.process(events)
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
