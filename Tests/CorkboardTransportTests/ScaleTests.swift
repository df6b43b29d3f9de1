import CorkboardTesting
import CorkboardTransport
import Testing

@Suite(.timeLimit(.minutes(1))) struct ScaleTests {
    @Test func twoThousandConnectionsAreHeldAndServed() async throws {
        #expect(raiseFileDescriptorLimit() >= 4_200)
        let h = try ServerHarness()
        let c = try ClientHarness(configuration: ClientConfiguration(receiveBufferBytes: 4096))
        let n = 2_000
        let ids = try (0..<n).map { _ in try c.client.connect(to: h.url) }
        #expect(await eventually(timeout: .seconds(30)) { h.server.connectionCount == n })
        #expect(await eventually(timeout: .seconds(10)) { c.client.openConnectionCount == n })
        h.server.broadcast(OutboundFrame(text: "to everyone"), to: h.connectedIDs)
        let received = await eventually(timeout: .seconds(20)) {
            c.events.all.reduce(0) { if case .message = $1 { $0 + 1 } else { $0 } } == n
        }
        #expect(received)
        #expect(Set(ids).count == n)
        await c.client.shutdown(timeout: .seconds(5))
        await h.server.shutdown()
    }
}
