import CorkboardModel
import CorkboardProtocol
import Foundation
import Logging
import Synchronization
import Testing

@testable import CorkboardServer

/// A connection sink with no sockets: it decodes and records every message sent to each handle,
/// records closes, and lets a test set each handle's unsent byte count (R11).
final class RecordingSink: ConnectionSink {
    /// One recorded close.
    struct Close: Hashable, Sendable {
        var handle: ConnectionHandle
        var code: Int
        var reason: String
        /// Whether the room asked to close at once, dropping what the connection had not read.
        var discardingPending = false
    }

    /// One recorded delivery: the decoded message and whether the room marked it ephemeral.
    struct Delivery: Sendable {
        var message: ServerMessage
        var isEphemeral: Bool
    }

    private struct State {
        var deliveries: [ConnectionHandle: [Delivery]] = [:]
        var read: [ConnectionHandle: Int] = [:]
        var pending: [ConnectionHandle: Int] = [:]
        var closes: [Close] = []
        var undecodable: [String] = []
    }

    private let state = Mutex(State())
    /// Whether every message sent adds its size to the handle's unsent bytes, as a transport whose
    /// peer reads nothing would (tests then `read` bytes off).
    let accumulatesPending: Bool

    init(accumulatesPending: Bool = false) { self.accumulatesPending = accumulatesPending }

    func send(_ message: EncodedMessage, to handles: [ConnectionHandle]) {
        let decoded: ServerMessage
        do {
            decoded = try WireCodec.decodeServerMessage(message.bytes)
        } catch {
            state.withLock { $0.undecodable.append("\(message.text): \(error)") }
            return
        }
        state.withLock { state in
            for handle in handles {
                state.deliveries[handle, default: []].append(
                    Delivery(message: decoded, isEphemeral: message.isEphemeral))
                if accumulatesPending { state.pending[handle, default: 0] += message.bytes.count }
            }
        }
    }

    func pendingBytes(of handle: ConnectionHandle) -> Int { state.withLock { $0.pending[handle] ?? 0 } }

    func close(_ handle: ConnectionHandle, code: Int, reason: String, discardingPending: Bool) {
        state.withLock {
            $0.closes.append(Close(handle: handle, code: code, reason: reason, discardingPending: discardingPending))
        }
    }

    /// The peer reads `bytes` (all, by default) of what is unsent.
    func read(_ bytes: Int = .max, of handle: ConnectionHandle) {
        state.withLock { $0.pending[handle] = max(0, ($0.pending[handle] ?? 0) - bytes) }
    }

    /// Sets a handle's unsent byte count, as the transport would report it.
    func setPendingBytes(_ bytes: Int, of handle: ConnectionHandle) { state.withLock { $0.pending[handle] = bytes } }

    /// Every message sent to a handle, in order.
    func messages(to handle: ConnectionHandle) -> [ServerMessage] {
        state.withLock { ($0.deliveries[handle] ?? []).map(\.message) }
    }

    /// Every delivery to a handle, in order, with the ephemeral flag.
    func deliveries(to handle: ConnectionHandle) -> [Delivery] { state.withLock { $0.deliveries[handle] ?? [] } }

    /// The messages sent to a handle since the last `take` for it.
    func take(_ handle: ConnectionHandle) -> [ServerMessage] {
        state.withLock { state in
            let all = state.deliveries[handle] ?? []
            let start = state.read[handle] ?? 0
            state.read[handle] = all.count
            return all[start...].map(\.message)
        }
    }

    /// Every close, in order.
    var closes: [Close] { state.withLock { $0.closes } }

    /// The closes of one handle.
    func closes(of handle: ConnectionHandle) -> [Close] { closes.filter { $0.handle == handle } }

    /// Messages that did not decode as a `ServerMessage` (should stay empty).
    var undecodable: [String] { state.withLock { $0.undecodable } }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let time: Mutex<Double>

    /// A clock at `start` seconds.
    init(start: Double = 1_000_000) { time = Mutex(start) }

    /// The current reading.
    var now: Double { time.withLock { $0 } }

    /// Moves the clock forward.
    func advance(by seconds: Double) { time.withLock { $0 += seconds } }

    /// The clock as the rooms take it.
    var roomClock: RoomClock { RoomClock { [self] in self.now } }
}

/// A logger that discards everything, so test output stays readable.
let quietLogger = Logger(label: "corkboard.tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// The keys every test board uses unless a test says otherwise.
let testKeys = BoardKeys(edit: "edit-key", view: "view-key")

/// A connection handle.
func conn(_ number: UInt64) -> ConnectionHandle { ConnectionHandle(rawValue: number) }

/// One room over `BoardTemplate.demo` (or another template), driven directly with `process`.
///
/// The room's own tick timer may post `.tick` to its inbox, but nothing consumes the inbox: ticks
/// happen only when the test processes `.tick`.
struct RoomHarness: Sendable {
    let room: Room
    let sink: RecordingSink
    let clock: ManualClock
    let board: String
    /// Resume tokens from welcomes, by client id, sent back when the same client joins again.
    let resumeTokens = TokenBox()

    /// Creates a room for board `board`; pass a `registry` shared with another harness for
    /// cross-board drops (R6).
    init(
        board: String = "b", template: BoardTemplate = .demo, keys: BoardKeys = testKeys,
        configuration: RoomConfiguration = RoomConfiguration(), sink: RecordingSink = RecordingSink(),
        clock: ManualClock = ManualClock(), registry: RoomRegistry = RoomRegistry()
    ) {
        let collections = template.collections(board: board)
        let model = try! Board(collections: collections)
        self.room = Room(
            info: BoardInfo(id: board, title: "Board \(board)"), keys: keys,
            sequencer: Sequencer(board: model, configuration: configuration.sequencer), configuration: configuration,
            sink: sink, registry: registry, clock: clock.roomClock, logger: quietLogger)
        self.sink = sink
        self.clock = clock
        self.board = board
        registry.insert(room)
    }

    // Demo board ids.
    var caches: CollectionID { CollectionID("\(board)-caches") }
    var toFind: SectionID { SectionID("\(board)-to-find") }
    var found: CollectionID { CollectionID("\(board)-found") }
    var foundSection: SectionID { SectionID("\(board)-found") }
    var inbox: CollectionID { CollectionID("\(board)-inbox") }
    var inboxSection: SectionID { SectionID("\(board)-inbox") }
    func gc(_ number: Int) -> ItemID { ItemID("\(board)-gc\(number)") }
    var note: ItemID { ItemID("\(board)-note1") }

    /// Handles events, as `run()` would handle one batch.
    func process(_ events: RoomEvent...) async { await room.process(events) }

    /// Sends one message from a connection.
    func send(_ handle: ConnectionHandle, _ message: ClientMessage) async {
        await room.process([.message(handle, message)])
    }

    /// Joins a connection and returns its welcome (recording an issue when there is none).
    @discardableResult
    func join(
        _ handle: ConnectionHandle, name: String = "Ada", key: String? = "edit-key", clientId: String? = nil,
        lastSeq: Int? = nil, ref: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> ServerMessage.Welcome? {
        let clientId = clientId ?? "client-\(handle.rawValue)"
        let hello = ClientMessage.Hello(
            ref: ref, board: board, key: key, name: name, clientId: clientId, lastSeq: lastSeq,
            resumeToken: resumeTokens.withLock { $0[clientId] })
        await room.process([.join(handle, hello)])
        let welcome = sink.take(handle).compactMap(\.welcome).first
        if welcome == nil { Issue.record("no welcome for \(handle)", sourceLocation: sourceLocation) }
        if let welcome { resumeTokens.withLock { $0[clientId] = welcome.resumeToken } }
        return welcome
    }

    /// The board at head.
    var snapshot: Snapshot { get async { await room.snapshot } }

    /// The items of a section at head.
    func items(_ section: SectionID) async -> [ItemID] { await room.snapshot.board.itemIDs(in: section) ?? [] }

    /// Begins a drag and returns the grant.
    @discardableResult
    func dragBegin(
        _ handle: ConnectionHandle, _ session: String, _ items: [ItemID], external: [[String]]? = nil
    ) async -> ServerMessage.DragGranted? {
        await send(
            handle, .dragBegin(.init(ref: "begin-\(session)", session: session, items: items, external: external)))
        return sink.take(handle).compactMap(\.dragGranted).last
    }

    /// Drops a drag and returns the ack.
    @discardableResult
    func drop(
        _ handle: ConnectionHandle, _ session: String, opId: String, at destination: Destination, copy: Bool? = nil,
        base: Int? = nil
    ) async -> ServerMessage.Ack? {
        let base = await resolve(base)
        await send(
            handle,
            .drop(
                .init(
                    ref: "ref-\(opId)", session: session, opId: opId, base: base, destination: destination, copy: copy))
        )
        return sink.take(handle).compactMap(\.ack).last
    }

    /// Submits an operation and returns the ack.
    @discardableResult
    func submit(
        _ handle: ConnectionHandle, _ op: BoardOperation, opId: String, session: String? = nil, base: Int? = nil
    ) async -> ServerMessage.Ack? {
        let base = await resolve(base)
        await send(handle, .submit(.init(ref: "ref-\(opId)", opId: opId, base: base, op: op, session: session)))
        return sink.take(handle).compactMap(\.ack).last
    }

    private func resolve(_ base: Int?) async -> Int {
        if let base { return base }
        return await room.head
    }

    /// A destination in a section of the demo board.
    func at(_ collection: CollectionID, _ section: SectionID, _ index: Int, after: ItemID? = nil, before: ItemID? = nil)
        -> Destination
    {
        Destination(collection: collection, section: section, index: index, after: after, before: before)
    }
}

extension ServerMessage {
    var welcome: Welcome? {
        guard case .welcome(let m) = self else { return nil }
        return m
    }
    var ack: Ack? {
        guard case .ack(let m) = self else { return nil }
        return m
    }
    var op: CommittedOperation? {
        guard case .op(let m) = self else { return nil }
        return m
    }
    var dragGranted: DragGranted? {
        guard case .dragGranted(let m) = self else { return nil }
        return m
    }
    var proposal: ProposalMessage? {
        guard case .proposal(let m) = self else { return nil }
        return m
    }
    var dragStarted: DragState? {
        guard case .dragStarted(let m) = self else { return nil }
        return m
    }
    var dragItems: DragItems? {
        guard case .dragItems(let m) = self else { return nil }
        return m
    }
    var dragHover: DragHover? {
        guard case .dragHover(let m) = self else { return nil }
        return m
    }
    var dragEnded: DragEnded? {
        guard case .dragEnded(let m) = self else { return nil }
        return m
    }
    var memberJoined: Member? {
        guard case .memberJoined(let m) = self else { return nil }
        return m
    }
    var memberLeft: MemberLeft? {
        guard case .memberLeft(let m) = self else { return nil }
        return m
    }
    var cursor: CursorMessage? {
        guard case .cursor(let m) = self else { return nil }
        return m
    }
    var presence: PresenceMessage? {
        guard case .presence(let m) = self else { return nil }
        return m
    }
    var synced: Synced? {
        guard case .synced(let m) = self else { return nil }
        return m
    }
    var snapshotPart: SnapshotPart? {
        guard case .snapshotPart(let m) = self else { return nil }
        return m
    }
    var pong: Pong? {
        guard case .pong(let m) = self else { return nil }
        return m
    }
    var error: ProtocolError? {
        guard case .error(let m) = self else { return nil }
        return m
    }
}

extension Outcome {
    /// The rejection code, if rejected.
    var rejectCode: RejectCode? { rejection?.code }
}

/// Waits, polling every few milliseconds for at most `timeout` seconds, until `condition` holds;
/// returns whether it did. For work the room does in its own tasks (cross-board drops, `run()`).
func eventually(
    timeout: Double = 20, _ condition: () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return await condition()
}

/// Resume tokens shared by copies of a harness.
final class TokenBox: Sendable {
    private let tokens = Mutex<[String: String]>([:])

    func withLock<T>(_ body: (inout [String: String]) -> T) -> T { tokens.withLock { body(&$0) } }
}
