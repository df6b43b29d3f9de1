import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import MetricsTestKit
import Testing

/// The rooms count what they do per batch (`ServerMetrics`): committed operations once they are
/// committed for good, rejections by code, a drop's broadcast once it reached every peer, shed
/// ephemeral messages (R11) and slow-client closes.
@Suite("Room metrics")
struct RoomMetricsTests {
    let metrics = TestMetrics()

    func committed() -> Int64 {
        metrics.counterTotal(
            label: ServerMetrics.Name.operations, dimensions: [("result", "committed"), ("code", "ok")])
    }

    func rejected(_ code: RejectCode) -> Int64 {
        metrics.counterTotal(
            label: ServerMetrics.Name.operations, dimensions: [("result", "rejected"), ("code", code.rawValue)])
    }

    @Test("committed and rejected operations are counted by code; a resend is not counted again")
    func operations() async throws {
        let h = RoomHarness(configuration: RoomConfiguration(metrics: ServerMetrics(factory: metrics)))
        await h.join(conn(1))
        await h.join(conn(2), key: "view-key")
        for n in 1...3 {
            let move = BoardOperation.move(.init(items: [h.gc(n)], destination: h.at(h.found, h.foundSection, 0)))
            #expect(await h.submit(conn(1), move, opId: "o\(n)")?.outcome.committed != nil)
        }
        let again = BoardOperation.move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0)))
        #expect(
            await h.submit(conn(1), again, opId: "o1")?.outcome.committed != nil, "a resend answers its first outcome")
        let viewerMove = BoardOperation.move(.init(items: [h.gc(9)], destination: h.at(h.found, h.foundSection, 0)))
        #expect(await h.submit(conn(2), viewerMove, opId: "v1")?.outcome.rejection?.code == .readOnly)
        let gone = BoardOperation.move(.init(items: ["b-nothing"], destination: h.at(h.found, h.foundSection, 0)))
        #expect(await h.submit(conn(1), gone, opId: "o9")?.outcome.rejection?.code == .gone)
        #expect(committed() == 3)
        #expect(rejected(.readOnly) == 1)
        #expect(rejected(.gone) == 1)
        #expect(rejected(.conflict) == 0)
    }

    @Test("with a store, an operation counts as committed once the store committed it; a failure counts store-failed")
    func operationsWithAStore() async throws {
        let h = RoomHarness(
            configuration: RoomConfiguration(metrics: ServerMetrics(factory: metrics)), store: ManualStore())
        await h.join(conn(1))
        let move = BoardOperation.move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0)))
        await h.send(conn(1), .submit(.init(ref: "r1", opId: "o1", base: 0, op: move)))
        #expect(committed() == 0, "not durable yet")
        h.store!.complete(0)
        _ = await h.processQueuedEvents()
        #expect(committed() == 1)
        let second = BoardOperation.move(.init(items: [h.gc(2)], destination: h.at(h.found, h.foundSection, 0)))
        await h.send(conn(1), .submit(.init(ref: "r2", opId: "o2", base: 1, op: second)))
        h.store!.complete(1, error: StoreError(.full, "The disk is full (test)."))
        _ = await h.processQueuedEvents()
        #expect(committed() == 1)
        #expect(rejected(.storeFailed) == 1)
    }

    @Test("a drop's broadcast is timed once, when it reached every peer")
    func dropBroadcast() async throws {
        let h = RoomHarness(configuration: RoomConfiguration(metrics: ServerMetrics(factory: metrics)))
        await h.join(conn(1))
        await h.join(conn(2))
        await h.join(conn(3))
        _ = try #require(await h.dragBegin(conn(1), "d1", [h.gc(1)]))
        #expect(await h.drop(conn(1), "d1", opId: "o1", at: h.at(h.found, h.foundSection, 0))?.outcome.committed != nil)
        let timer = try metrics.expectTimer(ServerMetrics.Name.dropBroadcast)
        #expect(timer.values.count == 1, "one sample per drop, not per peer")
        #expect(timer.values.allSatisfy { $0 >= 0 })
        // A submit is not a drop.
        let move = BoardOperation.move(.init(items: [h.gc(2)], destination: h.at(h.found, h.foundSection, 0)))
        _ = await h.submit(conn(1), move, opId: "o2")
        #expect(timer.values.count == 1)
    }

    @Test("R11: ephemeral messages shed for a slow member and a slow member's close are counted")
    func slowMembers() async throws {
        let h = RoomHarness(
            configuration: RoomConfiguration(
                slowClientBytes: 1000, slowClientCloseBytes: 100_000, metrics: ServerMetrics(factory: metrics)))
        await h.join(conn(1))
        await h.join(conn(2))
        await h.join(conn(3))
        h.sink.setPendingBytes(1001, of: conn(2))
        h.sink.setPendingBytes(1001, of: conn(3))
        await h.process(.tick)
        await h.send(conn(1), .cursor(.init(x: 10, y: 20)))
        await h.process(.tick)
        // One cursor message, two slow members: two deliveries shed.
        #expect(metrics.counterTotal(label: ServerMetrics.Name.ephemeralDropped) == 2)
        h.sink.setPendingBytes(100_001, of: conn(3))
        await h.process(.tick)
        #expect(h.sink.closes(of: conn(3)).first?.code == CloseCode.policyViolation)
        #expect(metrics.counterTotal(label: ServerMetrics.Name.slowConsumerCloses, dimensions: [("by", "room")]) == 1)
    }
}
