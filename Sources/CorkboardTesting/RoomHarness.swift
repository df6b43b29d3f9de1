public import CorkboardModel
public import CorkboardProtocol
public import CorkboardServer
public import CorkboardStorage
public import Logging
import Synchronization
public import Testing

/// One room over `BoardTemplate.demo` (or another template), driven directly with `process`,
/// with a `RecordingSink`, a `ManualClock` and, optionally, a `ManualStore`.
///
/// Nothing runs the room's inbox: the room's alarms (`RoomTimers`) wait on the manual clock, and
/// their events (`.tick`, `.sweep`, `.transfer`) happen only when the test processes them. Events the store's
/// completions post are handled by `processQueuedEvents()`.
public struct RoomHarness: Sendable {
    public let room: Room
    public let sink: RecordingSink
    public let clock: ManualClock
    public let store: ManualStore?
    public let board: String
    /// The demo template's ids on this board.
    public let ids: DemoIDs
    /// Resume tokens from welcomes, by client id, sent back when the same client joins again.
    private let resumeTokens: TokenBox
    /// The board the room started with (a restart replays the store's operations onto it).
    private let initial: Snapshot

    /// Creates a room for board `board`; pass a `registry` shared with another harness for
    /// cross-board drops (R6), a `store` to make operations wait for it, and the board's `people`
    /// with an `accessWriter` for admins' changes of them (issue 45).
    public init(
        board: String = "b", template: BoardTemplate = .demo, keys: BoardKeys = testKeys,
        configuration: RoomConfiguration = RoomConfiguration(), sink: RecordingSink = RecordingSink(),
        clock: ManualClock = ManualClock(), registry: RoomRegistry = RoomRegistry(), store: ManualStore? = nil,
        timers: RoomTimers? = nil, people: BoardPeople = BoardPeople(), accessWriter: (any BoardAccessWriter)? = nil,
        logger: Logger = quietLogger
    ) {
        let model = try! Board(collections: template.collections(board: board))
        self.room = Room(
            info: BoardInfo(id: board, title: "Board \(board)"), keys: keys,
            sequencer: Sequencer(board: model, configuration: configuration.sequencer), configuration: configuration,
            sink: sink, registry: registry, store: store, clock: clock, timers: timers, people: people,
            accessWriter: accessWriter, logger: logger)
        self.sink = sink
        self.clock = clock
        self.store = store
        self.board = board
        self.ids = DemoIDs(board: board)
        self.resumeTokens = TokenBox()
        self.initial = Snapshot(seq: 0, board: model)
        registry.insert(room)
    }

    /// The same board in a new room, as a server started again on the store would load it (R13):
    /// the starting board with the operations the store committed replayed onto it (so resends are
    /// answered from them), the undo histories the store kept (`ManualStore.undoEntries`), and the
    /// resume tokens clients got so far. The old room is left alone; use the new harness's
    /// connections.
    ///
    /// - Throws: the `Rejection` of an operation that does not replay.
    public func restarted(
        configuration: RoomConfiguration, store: ManualStore, logger: Logger = quietLogger
    ) throws -> RoomHarness {
        let sequencer = try Sequencer(
            snapshot: initial, replaying: store.committedOperations(board: board),
            configuration: configuration.sequencer)
        let room = Room(
            info: BoardInfo(id: board, title: "Board \(board)"), keys: self.room.keys, sequencer: sequencer,
            configuration: configuration, sink: sink, store: store, undoEntries: store.undoEntries(board: board),
            activity: store.activityRecords(board: board), clock: clock, logger: logger)
        return RoomHarness(
            room: room, sink: sink, clock: clock, store: store, board: board, tokens: resumeTokens, initial: initial)
    }

    private init(
        room: Room, sink: RecordingSink, clock: ManualClock, store: ManualStore?, board: String, tokens: TokenBox,
        initial: Snapshot
    ) {
        self.initial = initial
        self.room = room
        self.sink = sink
        self.clock = clock
        self.store = store
        self.board = board
        self.ids = DemoIDs(board: board)
        self.resumeTokens = tokens
    }

    // Demo board ids.
    public var caches: CollectionID { ids.caches }
    public var toFind: SectionID { ids.toFind }
    public var found: CollectionID { ids.found }
    public var foundSection: SectionID { ids.foundSection }
    public var inbox: CollectionID { ids.inbox }
    public var inboxSection: SectionID { ids.inboxSection }
    public func gc(_ number: Int) -> ItemID { ids.gc(number) }
    public var note: ItemID { ids.note }

    /// Handles events, as `run()` would handle one batch.
    public func process(_ events: RoomEvent...) async { await room.process(events) }

    /// Handles what was posted to the room's inbox (store completions, timer events), as one
    /// batch; returns those events.
    @discardableResult
    public func processQueuedEvents() async -> [RoomEvent] {
        let events = room.takeQueuedEvents()
        await room.process(events)
        return events
    }

    /// Waits for an alarm due on the manual clock to post its event (`RoomTimers` runs on its
    /// own task), then handles what was posted as one batch; returns those events.
    @discardableResult
    public func firedEvents() async -> [RoomEvent] {
        var events: [RoomEvent] = []
        _ = await eventually("an alarm posts its event") {
            events += room.takeQueuedEvents()
            return !events.isEmpty
        }
        await room.process(events)
        return events
    }

    /// Sends one message from a connection.
    public func send(_ handle: ConnectionHandle, _ message: ClientMessage) async {
        await room.process([.message(handle, message)])
    }

    /// Joins a connection and returns its welcome (recording an issue when there is none).
    @discardableResult
    public func join(
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

    /// Joins a connection as a person whose `hello` was resolved in the catalog (issue 45) and
    /// returns what it got (a welcome, or an error).
    @discardableResult
    public func join(
        _ handle: ConnectionHandle, as person: PersonJoin, name: String? = nil,
        device: String = "d-" + String(repeating: "0", count: 32)
    ) async -> [ServerMessage] {
        let hello = ClientMessage.Hello(
            board: board, key: nil, name: name ?? person.person.name, clientId: "client-\(handle.rawValue)",
            device: device)
        await room.process([.joinPerson(handle, hello, person)])
        return sink.take(handle)
    }

    /// The board at head.
    public var snapshot: Snapshot { get async { await room.snapshot } }

    /// The items of a section at head.
    public func items(_ section: SectionID) async -> [ItemID] { await room.snapshot.board.itemIDs(in: section) ?? [] }

    /// Begins a drag and returns the grant.
    @discardableResult
    public func dragBegin(
        _ handle: ConnectionHandle, _ session: String, _ items: [ItemID], external: [[String]]? = nil
    ) async -> ServerMessage.DragGranted? {
        await send(
            handle, .dragBegin(.init(ref: "begin-\(session)", session: session, items: items, external: external)))
        return sink.take(handle).compactMap(\.dragGranted).last
    }

    /// Drops a drag and returns the ack.
    @discardableResult
    public func drop(
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
    public func submit(
        _ handle: ConnectionHandle, _ op: BoardOperation, opId: String, session: String? = nil, base: Int? = nil
    ) async -> ServerMessage.Ack? {
        let base = await resolve(base)
        await send(handle, .submit(.init(ref: "ref-\(opId)", opId: opId, base: base, op: op, session: session)))
        return sink.take(handle).compactMap(\.ack).last
    }

    /// Sends `undo` (or `redo`) and returns the ack.
    @discardableResult
    public func undo(_ handle: ConnectionHandle, opId: String, redo: Bool = false, base: Int? = nil) async
        -> ServerMessage.Ack?
    {
        let request = ClientMessage.UndoRequest(ref: "ref-\(opId)", opId: opId, base: await resolve(base))
        await send(handle, redo ? .redo(request) : .undo(request))
        return sink.take(handle).compactMap(\.ack).last
    }

    /// Sends `editBegin` and returns everything the connection got back (`editGranted` or
    /// `editRefused`).
    public func editBegin(_ handle: ConnectionHandle, _ item: ItemID) async -> [ServerMessage] {
        await send(handle, .editBegin(.init(ref: "edit-\(item)", item: item)))
        return sink.take(handle)
    }

    private func resolve(_ base: Int?) async -> Int {
        if let base { return base }
        return await room.head
    }

    /// A destination in a section of the demo board.
    public func at(
        _ collection: CollectionID, _ section: SectionID, _ index: Int, after: ItemID? = nil, before: ItemID? = nil
    ) -> Destination {
        ids.at(collection, section, index, after: after, before: before)
    }
}

/// Resume tokens shared by copies of a harness.
private final class TokenBox: Sendable {
    private let tokens = Mutex<[String: String]>([:])

    func withLock<T>(_ body: (inout [String: String]) -> T) -> T { tokens.withLock { body(&$0) } }
}
