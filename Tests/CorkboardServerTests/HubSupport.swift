import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Testing

/// A hub over a directory with one demo board `b`, fed raw frames like the transport would.
///
/// The directory runs each room's `run()` loop, so room events arrive asynchronously: tests wait
/// (bounded) for recorded messages, woken by each delivery. Call `shutdown()` at the end.
struct HubHarness: Sendable {
    let sink = RecordingSink()
    let clock = ManualClock()
    let directory: BoardDirectory
    let hub: BoardHub
    /// The board list, which another process or node may change too.
    let catalog: MemoryBoardCatalog

    /// (No busy tick by default: the test process's own CPU use would stretch it at random.)
    init(configuration: RoomConfiguration = RoomConfiguration(tickPacing: .off)) throws {
        catalog = MemoryBoardCatalog()
        directory = try BoardDirectory(
            catalog: catalog, configuration: configuration, sink: sink, clock: clock, logger: quietLogger)
        try directory.create(id: "b", title: "Board b", template: .demo, keys: testKeys)
        hub = BoardHub(
            directory: directory, sink: sink, configuration: configuration, clock: clock, logger: quietLogger)
    }

    /// The room of board `b`.
    var room: Room { directory.room("b")! }

    /// Opens a connection and sends one raw frame on it.
    func send(_ handle: ConnectionHandle, _ text: String, isText: Bool = true) {
        hub.received(handle, bytes: Array(text.utf8), isText: isText)
    }

    /// Waits (at most 20 s) until a handle has `count` messages not yet taken, and takes them.
    func next(_ handle: ConnectionHandle, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async
        -> [ServerMessage]
    {
        let taken = await sink.next(handle, count: count)
        if taken.count < count {
            Issue.record("expected \(count) messages for \(handle), got \(taken)", sourceLocation: sourceLocation)
        }
        return taken
    }

    /// Connects, says hello and waits for the welcome.
    @discardableResult
    func join(_ handle: ConnectionHandle, key: String = "edit-key", sourceLocation: SourceLocation = #_sourceLocation)
        async -> ServerMessage.Welcome?
    {
        hub.connected(handle)
        send(handle, #"{"type":"hello","protocol":1,"board":"b","key":"\#(key)","name":"N\#(handle.rawValue)"}"#)
        return await next(handle, sourceLocation: sourceLocation).first?.welcome
    }

    /// Joins two members, `first` and `second`, and waits until each was told both are connected.
    func joinPair(
        _ first: ConnectionHandle, _ second: ConnectionHandle, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try #require(await join(first, sourceLocation: sourceLocation) != nil, sourceLocation: sourceLocation)
        try #require(await join(second, sourceLocation: sourceLocation) != nil, sourceLocation: sourceLocation)
        await announced(count: 2, to: first, second, sourceLocation: sourceLocation)
    }

    /// Moves the clock on a tick at a time (the room may not have asked for its tick yet) until
    /// each of `handles` got the `membersChanged` saying `count` members are connected; takes it.
    func announced(count: Int, to handles: ConnectionHandle..., sourceLocation: SourceLocation = #_sourceLocation)
        async
    {
        for handle in handles {
            var taken: [ServerMessage] = []
            var arrived = false
            for _ in 0..<200 where !arrived {
                clock.advance(by: .milliseconds(33))
                arrived = await sink.wait(timeout: .milliseconds(100)) {
                    taken += sink.take(handle)
                    return taken.contains { $0.membersChanged?.count == count }
                }
            }
            if !arrived {
                Issue.record("no membersChanged to \(count) for \(handle): \(taken)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Waits until the room has handled everything posted so far for `handle`, by a ping round trip,
    /// and returns the messages that arrived before the pong.
    func settle(_ handle: ConnectionHandle) async -> [ServerMessage] {
        send(handle, #"{"type":"ping","ref":"settle"}"#)
        var taken: [ServerMessage] = []
        let arrived = await sink.wait {
            taken += sink.take(handle)
            return taken.contains { $0.pong?.ref == "settle" }
        }
        if !arrived { Issue.record("no pong for \(handle)") }
        return taken.filter { $0.pong?.ref != "settle" }
    }

    func shutdown() { Task { [directory] in await directory.shutdown() } }
}
