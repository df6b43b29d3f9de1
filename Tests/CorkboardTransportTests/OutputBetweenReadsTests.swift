import CorkboardTesting
import Synchronization
import Testing

@testable import CorkboardTransport

/// Output queued while the service thread reads a long run of input goes out between the reads
/// (every `ShardContext.readsBetweenOutput` messages), not only at the next wake, and in order.
@Suite(.timeLimit(.minutes(1))) struct OutputBetweenReadsTests {
    @Test func aFloodOfInputDoesNotHoldOthersOutputAndKeepsItsOrder() async throws {
        // Every message from one connection is relayed to the others from the service thread, as a
        // room's fan-out would be queued while the thread is still reading.
        let connected = Mutex<[ConnectionID]>([])
        let box = Mutex<WebSocketServer?>(nil)
        let server = WebSocketServer(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0), logger: testLogger("server")
        ) { event in
            switch event {
            case .connected(let id, _):
                connected.withLock { $0.append(id) }
            case .message(let from, let message):
                let others = connected.withLock { $0.filter { $0 != from } }
                box.withLock { $0 }?.broadcast(OutboundFrame(utf8: message.bytes), to: others)
            default:
                break
            }
        }
        box.withLock { $0 = server }
        try server.start()
        let c = try ClientHarness()
        let url = "ws://127.0.0.1:\(server.boundPort)/ws"
        let sender = try c.client.connect(to: url)
        let watchers = try (0..<3).map { _ in try c.client.connect(to: url) }
        #expect(await eventually { connected.withLock { $0.count } == 4 })
        let total = 4_000
        for n in 0..<total { c.client.send(text: "m\(n)", to: sender) }
        #expect(await eventually { watchers.allSatisfy { c.messages($0).count == total } })
        for id in watchers {
            #expect(c.messages(id).map(\.text) == (0..<total).map { "m\($0)" })
        }
        #expect(server.shards[0].writesBetweenReads.load(ordering: .relaxed) > 0)
        await c.client.shutdown()
        await server.shutdown()
    }
}
