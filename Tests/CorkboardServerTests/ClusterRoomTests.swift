import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Testing

/// A room on a node of a cluster: it gives its board up to another node (redirecting its members),
/// steps down when its writes are fenced, and accepts resume tokens another node gave (R10).
struct ClusterRoomTests {
    @Test("a room that gives its board up redirects every member (4005), sends nothing pending, and redirects joiners")
    func relinquish() async {
        let store = ManualStore()
        let harness = RoomHarness(store: store)
        let (ada, bob, cy) = (
            ConnectionHandle(rawValue: 1), ConnectionHandle(rawValue: 2), ConnectionHandle(rawValue: 3)
        )
        await harness.join(ada)
        store.completePending()
        await harness.processQueuedEvents()
        await harness.join(bob, name: "Bob")
        store.completePending()
        await harness.processQueuedEvents()
        _ = harness.sink.take(ada)
        // A move waits for the store when the board goes to another node.
        let ack = await harness.submit(
            ada, .move(.init(items: [harness.gc(1)], destination: harness.at(harness.found, harness.foundSection, 0))),
            opId: "m1")
        #expect(ack == nil, "nothing is acknowledged before the store commits")
        await harness.process(.relinquish(RoomHandoff(url: "ws://node-b/ws", reason: "moved to node b")))
        for handle in [ada, bob] {
            let messages = harness.sink.take(handle)
            #expect(messages.map(\.type) == ["redirect"], "\(handle): \(messages.map(\.type))")
            if case .redirect(let redirect)? = messages.last {
                #expect(redirect.url == "ws://node-b/ws" && redirect.board == harness.board)
            }
            #expect(harness.sink.closes(of: handle).map(\.code) == [CloseCode.moved])
        }
        // The append completes after: its ack and op go nowhere (the clients resend after resuming).
        store.completePending()
        await harness.processQueuedEvents()
        #expect(harness.sink.take(ada).isEmpty && harness.sink.take(bob).isEmpty)
        // A hello that was already on its way is redirected too; nothing else is handled.
        await harness.process(
            .join(cy, ClientMessage.Hello(ref: "h", board: harness.board, key: "edit-key", name: "Cy")))
        let cyMessages = harness.sink.take(cy)
        #expect(cyMessages.map(\.type) == ["redirect"])
        #expect(cyMessages.first?.ref == "h")
        #expect(harness.sink.closes(of: cy).map(\.code) == [CloseCode.moved])
        #expect(harness.room.post(.sweep) == false, "the room takes no more events")
    }

    @Test("a fenced write makes the room give its board up instead of refusing the sender store-failed")
    func fencedWrite() async {
        let store = ManualStore()
        let harness = RoomHarness(store: store)
        let ada = ConnectionHandle(rawValue: 1)
        await harness.join(ada)
        store.completePending()
        await harness.processQueuedEvents()
        _ = harness.sink.take(ada)
        await harness.submit(
            ada, .move(.init(items: [harness.gc(1)], destination: harness.at(harness.found, harness.foundSection, 0))),
            opId: "m1")
        store.completePending(error: StoreError(.fenced, "Board b is now held by another node."))
        await harness.processQueuedEvents()
        let messages = harness.sink.take(ada)
        #expect(messages.map(\.type) == ["redirect"], "no ack: the client resends on the node that has the board")
        #expect(harness.sink.closes(of: ada).map(\.code) == [CloseCode.moved])
    }

    @Test("R10 across nodes: a room of the same board on another node accepts the resume token the first gave")
    func derivedResumeTokens() async {
        let derive: @Sendable (String, String) -> String = { board, client in "r-\(board)-\(client)-secret" }
        let configuration = RoomConfiguration(resumeTokens: derive)
        let first = RoomHarness(configuration: configuration)
        let second = RoomHarness(configuration: configuration)
        let ada = ConnectionHandle(rawValue: 1)
        let welcome = await first.join(ada, clientId: "c-ada")
        #expect(welcome?.resumeToken == "r-b-c-ada-secret")
        // The node that takes the board over has never seen c-ada: the token still opens it, a wrong one does not.
        let resumed = ClientMessage.Hello(
            ref: "h2", board: "b", key: "edit-key", name: "Ada", clientId: "c-ada", lastSeq: 0,
            resumeToken: "r-b-c-ada-secret")
        await second.process(.join(ada, resumed))
        #expect(second.sink.take(ada).compactMap(\.welcome).first?.resumeToken == "r-b-c-ada-secret")
        let mallory = ConnectionHandle(rawValue: 2)
        var forged = resumed
        forged.resumeToken = "r-guessed"
        await second.process(.join(mallory, forged))
        #expect(second.sink.take(mallory).compactMap(\.welcome).isEmpty)
        #expect(second.sink.closes(of: mallory).map(\.code) == [CloseCode.policyViolation])
    }

    @Test("the hub sends a hello for a board another node sequences there, and answers unknown boards like a wrong key")
    func hubRoutes() async throws {
        let sink = RecordingSink()
        let directory = try BoardDirectory(
            catalog: MemoryBoardCatalog([record("b")]), sink: sink, startsEveryBoard: false, logger: quietLogger)
        #expect(directory.registry.room("b") == nil, "a node of a cluster starts only the rooms of its leases")
        let router = FixedRouter()
        let hub = BoardHub(directory: directory, sink: sink, router: router, logger: quietLogger)
        let (ada, bob) = (ConnectionHandle(rawValue: 1), ConnectionHandle(rawValue: 2))
        hub.connected(ada)
        hub.received(
            ada, bytes: Array(#"{"type":"hello","protocol":1,"board":"b","name":"Ada","ref":"h"}"#.utf8), isText: true)
        let redirected = await sink.next(ada)
        guard case .redirect(let redirect)? = redirected.first else {
            Issue.record("no redirect: \(redirected)")
            return
        }
        #expect(redirect.url == "ws://node-b/ws" && redirect.ref == "h")
        #expect(await sink.wait { sink.closes(of: ada).map(\.code) == [CloseCode.moved] })
        hub.connected(bob)
        hub.received(
            bob, bytes: Array(#"{"type":"hello","protocol":1,"board":"nope","name":"Bob"}"#.utf8), isText: true)
        let refused = await sink.next(bob)
        #expect(refused.first?.type == "error")
        #expect(await sink.wait { sink.closes(of: bob).map(\.code) == [CloseCode.badKey] })
    }
}

/// Routes board `b` to another node and refuses everything else.
private struct FixedRouter: BoardRouter {
    func route(board: String, key: String?, admitted: Bool) async -> BoardRoute {
        board == "b" ? .redirect(url: "ws://node-b/ws", reason: "another server sequences this board") : .refused
    }
}
