import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardTesting
import MetricsTestKit
import Testing

/// OWASP's WebSocket cheat sheet asks for per-connection rate limits: past them a message is not
/// applied and the client is told `rate-limited`; a client that keeps going is closed 1008.
@Suite("Per-connection rate limits")
struct RateLimitTests {
    static let t0 = BoardTime(secondsSince1970: 1_000_000)

    @Test("a token bucket lets a burst through, then refills at its rate")
    func bucketRefills() {
        var bucket = TokenBucket(RateLimit(perSecond: 10, burst: 3))
        var taken: [Bool] = []
        // At once: the burst of 3, then nothing.
        for _ in 0..<4 { taken.append(bucket.take(at: Self.t0)) }
        // 10 a second: one token every 100 ms.
        taken.append(bucket.take(at: Self.t0.advanced(by: .milliseconds(50))))
        taken.append(bucket.take(at: Self.t0.advanced(by: .milliseconds(100))))
        taken.append(bucket.take(at: Self.t0.advanced(by: .milliseconds(100))))
        #expect(taken == [true, true, true, false, false, true, false])
        // A minute later the bucket is full again, but never holds more than the burst.
        taken = []
        let later = Self.t0.advanced(by: .seconds(60))
        for _ in 0..<4 { taken.append(bucket.take(at: later)) }
        #expect(taken == [true, true, true, false])
    }

    @Test("a clock set back refills nothing; an unlimited bucket never runs dry")
    func clockChangesAndOff() {
        var bucket = TokenBucket(RateLimit(perSecond: 1, burst: 1))
        let first = bucket.take(at: Self.t0)
        let setBack = bucket.take(at: Self.t0.advanced(by: .seconds(-3600)))
        let almostBack = bucket.take(at: Self.t0.advanced(by: .milliseconds(-3600_000 + 999)))
        #expect([first, setBack, almostBack] == [true, false, false])
        var off = TokenBucket(.off)
        var taken = 0
        for _ in 0..<10_000 where off.take(at: Self.t0) { taken += 1 }
        #expect(taken == 10_000)
    }

    @Test("operations: every refusal is answered; a burst more of refusals within the window closes")
    func operationsLane() {
        let limits = RateLimits(
            operations: RateLimit(perSecond: 2, burst: 4), ephemeral: .off, closeWindow: .seconds(10))
        var limiter = ConnectionRateLimiter(limits)
        let verdicts = (0..<9).map { _ in limiter.admit(.operations, at: Self.t0) }
        #expect(
            verdicts == Array(repeating: .accept, count: 4) + Array(repeating: .refuse(notify: true), count: 4) + [
                .close
            ])
        // Ephemeral updates are off here: never limited.
        let ephemeral = limiter.admit(.ephemeral, at: Self.t0)
        #expect(ephemeral == .accept)
    }

    @Test("ephemeral updates: one answer per overrun; refusals spread over more than the window never close")
    func ephemeralLane() {
        let limits = RateLimits(
            operations: .off, ephemeral: RateLimit(perSecond: 1, burst: 4), closeWindow: .seconds(10))
        var limiter = ConnectionRateLimiter(limits)
        var verdicts: [ConnectionRateLimiter.Verdict] = []
        for _ in 0..<6 { verdicts.append(limiter.admit(.ephemeral, at: Self.t0)) }
        #expect(verdicts == [.accept, .accept, .accept, .accept, .refuse(notify: true), .refuse(notify: false)])
        // A second later one token came back: accepted, and the next overrun is told again.
        var now = Self.t0.advanced(by: .seconds(1))
        verdicts = [limiter.admit(.ephemeral, at: now), limiter.admit(.ephemeral, at: now)]
        #expect(verdicts == [.accept, .refuse(notify: true)])
        // One refusal every 6 s for a minute: the strikes refill (4 per 10 s) faster than they go.
        verdicts = []
        for _ in 0..<10 {
            now = now.advanced(by: .seconds(6))
            for _ in 0..<5 { verdicts.append(limiter.admit(.ephemeral, at: now)) }
        }
        let minute: [ConnectionRateLimiter.Verdict] = [.accept, .accept, .accept, .accept, .refuse(notify: true)]
        #expect(verdicts == Array(repeating: minute, count: 10).flatMap { $0 })
        // Refusals at once: three strikes were left, so the fourth is past the tolerated burst: close.
        verdicts = (0..<4).map { _ in .accept }
        for n in 0..<4 { verdicts[n] = limiter.admit(.ephemeral, at: now) }
        #expect(verdicts.last == .close)
    }

    @Test("which messages count as what")
    func kinds() throws {
        func kind(_ json: String) throws -> RateLimitedKind? {
            RateLimitedKind(try WireCodec.decodeClientMessage(Array(json.utf8)))
        }
        #expect(try kind(#"{"type":"hello","protocol":1,"board":"b","name":"n"}"#) == nil)
        #expect(try kind(#"{"type":"ping","ref":"p"}"#) == .ephemeral)
        #expect(try kind(#"{"type":"cursor","x":1,"y":2}"#) == .ephemeral)
        #expect(try kind(#"{"type":"presence","state":"active"}"#) == .ephemeral)
        #expect(try kind(#"{"type":"dragEnd","session":"s"}"#) == .ephemeral)
        #expect(try kind(#"{"type":"sync","lastSeq":0}"#) == .operations)
        #expect(try kind(Self.submit(1)) == .operations)
    }

    /// The next `count` messages to `handle` other than `undoable`: the room tells a client its Undo
    /// state once per batch that changed it, and how the room's batches fall is up to the scheduler.
    static func answers(_ count: Int, to handle: ConnectionHandle, in h: HubHarness) async -> [ServerMessage] {
        var taken: [ServerMessage] = []
        while taken.count < count {
            let more = await h.next(handle)
            if more.isEmpty { break }
            taken += more.filter { $0.type != "undoable" }
        }
        return taken
    }

    static func submit(_ n: Int) -> String {
        #"{"type":"submit","ref":"s\#(n)","opId":"o\#(n)","base":0,"op":{"kind":"move","items":["b-gc1"],"destination":{"collection":"b-caches","section":"b-to-find","index":0,"intent":"insertAtDestinationIndexPath"}}}"#
    }

    @Test("through the hub: excess submits get rate-limited and change nothing, a peer is unaffected, then 1008")
    func submitsThroughHub() async throws {
        let metrics = TestMetrics()
        let limits = RateLimits(
            operations: RateLimit(perSecond: 5, burst: 10), ephemeral: RateLimit(perSecond: 5, burst: 10))
        let h = try HubHarness(
            configuration: RoomConfiguration(rateLimits: limits, metrics: ServerMetrics(factory: metrics)))
        defer { h.shutdown() }
        let (flooder, peer) = (conn(1), conn(2))
        try await h.joinPair(flooder, peer)  // and the tick's membersChanged
        for n in 1...15 { h.send(flooder, Self.submit(n)) }
        let answers = await Self.answers(15, to: flooder, in: h)
        let acks = answers.compactMap(\.ack)
        let refused = answers.compactMap(\.error)
        #expect(acks.count == 10 && acks.allSatisfy { $0.outcome.committed != nil })
        #expect(refused.map(\.ref) == (11...15).map { "s\($0)" })
        #expect(refused.allSatisfy { $0.code == .rateLimited && $0.message.contains("5/s, bursts of 10") })
        #expect(await h.room.head == 10, "the refused submits were not applied")
        #expect(h.sink.closes.isEmpty)
        // The peer saw ten ops and can still change the board.
        #expect(await h.next(peer, count: 10).filter { $0.type == "op" }.count == 10)
        h.send(peer, Self.submit(100))
        #expect(await h.next(peer).first?.ack?.outcome.committed?.seq == 11)
        // A second later the bucket holds 5 again.
        h.clock.advance(by: .seconds(1))
        for n in 16...21 { h.send(flooder, Self.submit(n)) }
        let second = await Self.answers(7, to: flooder, in: h)  // 5 acks, 1 refusal, the op of the peer's submit
        #expect(second.compactMap(\.ack).count == 5)
        #expect(second.compactMap(\.error).map(\.ref) == ["s21"])
        // Keeping on: the refusals are tolerated up to a burst (10) within 10 s; 6 were refused, and
        // one strike came back with the second (10 per 10 s), so the 6th refusal from here closes 1008.
        for n in 22...26 { h.send(flooder, Self.submit(n)) }
        #expect(h.sink.closes.isEmpty)
        h.send(flooder, Self.submit(27))
        let close = try #require(h.sink.closes(of: flooder).first)
        #expect(close.code == CloseCode.policyViolation)
        #expect(close.reason.contains("rate limit"))
        // Messages after the close are dropped by the hub.
        h.send(flooder, Self.submit(28))
        #expect(h.sink.closes(of: flooder).count == 1)
        #expect(await h.room.head == 16)
        #expect(metrics.counterTotal(label: ServerMetrics.Name.rateLimited, dimensions: [("kind", "operations")]) == 12)
        #expect(
            metrics.counterTotal(label: ServerMetrics.Name.rateLimitCloses, dimensions: [("kind", "operations")]) == 1)
        #expect(h.sink.closes(of: peer).isEmpty)
    }

    @Test("through the hub: a viewer flooding cursors gets one rate-limited error, then 1008")
    func viewerCursorsThroughHub() async throws {
        let limits = RateLimits(
            operations: RateLimit(perSecond: 5, burst: 10), ephemeral: RateLimit(perSecond: 5, burst: 10))
        let h = try HubHarness(
            configuration: RoomConfiguration(rateLimits: limits, metrics: ServerMetrics(factory: TestMetrics())))
        defer { h.shutdown() }
        let viewer = conn(1)
        try #require(await h.join(viewer, key: "view-key") != nil)
        for n in 0..<20 { h.send(viewer, #"{"type":"cursor","x":\#(n),"y":1}"#) }
        #expect(h.sink.closes.isEmpty)
        // The hub answers at once, without the room: one error for the whole overrun.
        #expect(h.sink.take(viewer).compactMap(\.error).map(\.code) == [.rateLimited])
        // 10 refusals so far; the next one is past the tolerated burst: closed.
        h.send(viewer, #"{"type":"cursor","x":0,"y":0}"#)
        #expect(h.sink.closes(of: viewer).map(\.code) == [CloseCode.policyViolation])
    }
}
