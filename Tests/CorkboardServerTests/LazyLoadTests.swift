import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Testing

/// R18: a server listens as soon as it has read its catalog; each board's room starts at the
/// board's first join, loaded off the transport's thread, and nothing its first members send
/// while it loads is lost or reordered.
@Suite("Lazy board loading")
struct LazyLoadTests {
    /// A hub over a directory of two boards, `b` and `c`, in a store whose loads the test holds.
    struct Lazy {
        let sink = RecordingSink()
        let store = ManualStore()
        let directory: BoardDirectory
        let hub: BoardHub

        init() throws {
            let clock = ManualClock()
            let configuration = RoomConfiguration(tickPacing: .off)
            let records = ["b", "c"].map {
                BoardRecord(id: $0, title: "Board \($0)", keys: testKeys, template: .demo, createdAt: 0)
            }
            directory = try BoardDirectory(
                catalog: MemoryBoardCatalog(records), store: store, configuration: configuration, sink: sink,
                clock: clock, logger: quietLogger)
            hub = BoardHub(
                directory: directory, sink: sink, configuration: configuration, clock: clock, logger: quietLogger)
        }

        func send(_ handle: ConnectionHandle, _ text: String) {
            hub.received(handle, bytes: Array(text.utf8), isText: true)
        }

        func hello(_ handle: ConnectionHandle, board: String = "b") {
            hub.connected(handle)
            send(handle, #"{"type":"hello","protocol":1,"board":"\#(board)","key":"edit-key","name":"N"}"#)
        }

        func ping(_ handle: ConnectionHandle, _ ref: String) {
            send(handle, #"{"type":"ping","ref":"\#(ref)"}"#)
        }
    }

    @Test("R18: no room starts when the directory opens; a board's first hello starts its room alone")
    func roomsStartAtTheirFirstJoin() async throws {
        let lazy = try Lazy()
        #expect(lazy.directory.registry.all.isEmpty)
        #expect(lazy.store.loadsStarted.isEmpty)
        #expect(lazy.directory.records.map(\.id) == ["b", "c"], "the catalog is read at once")

        lazy.hello(conn(1))
        let welcome = await lazy.sink.next(conn(1), count: 1, timeout: .seconds(60)).first?.welcome
        #expect(welcome?.board.id == "b")
        #expect(welcome?.snapshot?.board.collections.isEmpty == false)
        #expect(lazy.directory.registry.all.map(\.info.id) == ["b"])
        #expect(lazy.store.loadsStarted == ["b"])
        await lazy.directory.shutdown()
    }

    @Test("R18: messages sent before the welcome of a loading board reach the room after the join, in order")
    func messagesWaitForTheLoad() async throws {
        let lazy = try Lazy()
        lazy.store.holdLoads()
        lazy.hello(conn(1))
        lazy.hello(conn(2))
        for n in 1...5 { lazy.ping(conn(1), "p\(n)") }
        // Both hellos wait for the one load; nothing is answered until it finishes.
        try await waitUntil { lazy.store.loadsStarted == ["b"] }
        #expect(lazy.sink.take(conn(1)).isEmpty)
        lazy.store.releaseLoads()

        let messages = await lazy.sink.next(conn(1), count: 6, timeout: .seconds(60))
        #expect(messages.first?.welcome != nil)
        #expect(messages.dropFirst().map { $0.pong?.ref } == ["p1", "p2", "p3", "p4", "p5"])
        #expect(await lazy.sink.next(conn(2), count: 1, timeout: .seconds(60)).first?.welcome != nil)
        #expect(lazy.store.loadsStarted == ["b"], "two first joins load the board once")

        // Later messages go straight to the room.
        lazy.ping(conn(1), "after")
        #expect(await lazy.sink.next(conn(1), count: 1, timeout: .seconds(60)).first?.pong?.ref == "after")
        await lazy.directory.shutdown()
    }

    @Test("R18: past what a waiting connection may queue, messages are refused not-joined; the rest arrive")
    func queueIsBounded() async throws {
        let lazy = try Lazy()
        lazy.store.holdLoads()
        lazy.hello(conn(1))
        let limit = BoardHub.waitingLimit
        for n in 0..<(limit + 3) { lazy.ping(conn(1), "p\(n)") }
        // A second hello while the first waits is refused at once.
        lazy.send(conn(1), #"{"type":"hello","ref":"again","protocol":1,"board":"b","key":"edit-key","name":"N"}"#)
        let refused = await lazy.sink.next(conn(1), count: 4, timeout: .seconds(60))
        #expect(refused.map { $0.error?.code } == [.notJoined, .notJoined, .notJoined, .alreadyJoined])
        #expect(refused.first?.error?.message.contains("Wait for welcome") == true)
        #expect(refused.prefix(3).map { $0.error?.ref } == ["p\(limit)", "p\(limit + 1)", "p\(limit + 2)"])

        lazy.store.releaseLoads()
        let messages = await lazy.sink.next(conn(1), count: limit + 1, timeout: .seconds(60))
        #expect(messages.first?.welcome != nil)
        #expect(messages.dropFirst().map { $0.pong?.ref } == (0..<limit).map { "p\($0)" })
        await lazy.directory.shutdown()
    }

    @Test("an unknown board is refused bad-key after the catalog is read again; messages kept are dropped")
    func unknownBoardIsRefused() async throws {
        let lazy = try Lazy()
        lazy.hello(conn(1), board: "nope")
        lazy.ping(conn(1), "kept")
        let messages = await lazy.sink.next(conn(1), count: 1, timeout: .seconds(60))
        #expect(messages.first?.error?.code == .badKey)
        #expect(lazy.sink.closes(of: conn(1)).map(\.code) == [CloseCode.badKey])
        #expect(lazy.directory.registry.all.isEmpty)
        await lazy.directory.shutdown()
    }

    @Test("R6: a drop on a board whose room has not started starts it (the registry opens it)")
    func registryOpensBoards() async throws {
        let lazy = try Lazy()
        #expect(lazy.directory.registry.room("c") == nil)
        let room = try #require(lazy.directory.registry.open("c"))
        #expect(room.info.id == "c")
        #expect(lazy.directory.registry.open("c") === room)
        #expect(lazy.directory.registry.open("nope") == nil)
        await lazy.directory.shutdown()
    }

    /// Waits (at most 20 s) until `condition` holds.
    private func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not met within 20 s", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
