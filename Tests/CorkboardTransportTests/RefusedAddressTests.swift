import CorkboardTesting
import Foundation
import Testing

@testable import CorkboardTransport

/// Addresses the application refuses for a while are answered at accept, before libwebsockets
/// sees the socket: 429 with `Retry-After`, no upgrade, counted by reason (issue 19).
@Suite(.timeLimit(.minutes(1))) struct RefusedAddressTests {
    @Test func aRefusalLastsUntilItsDeadlineAndIsCountedByReason() {
        var limits = ConnectionLimits(maxWebSockets: 0, maxWebSocketsPerAddress: 0, maxPendingPerAddress: 0)
        let start = ContinuousClock.now
        limits.refusedAddresses.refuse(
            "10.0.0.1", until: start + .seconds(30), reason: .failedJoins, message: "too many", now: start)
        let refusal = limits.refusedAddresses.refusal(for: "10.0.0.1", now: start + .milliseconds(500))
        #expect(refusal == RefusedAddresses.Refusal(reason: .failedJoins, retryAfter: 30, message: "too many"))
        #expect(limits.refusedAddresses.refusal(for: "10.0.0.2", now: start) == nil, "another address is not refused")
        #expect(limits.refusedAddresses.refusal(for: "10.0.0.1", now: start + .milliseconds(29_900))?.retryAfter == 1)
        #expect(limits.refusedAddresses.refusal(for: "10.0.0.1", now: start + .seconds(30)) == nil)
        #expect(limits.refusedAddresses.count == 0, "an expired refusal is forgotten when looked up")
        // Through the caps' entry point: counted under its reason, nothing else counted.
        limits.refusedAddresses.refuse(
            "10.0.0.3", until: .now + .seconds(60), reason: .rateLimitCloses, message: "flood", now: .now)
        #expect(limits.refusalAtAccept(from: "10.0.0.3")?.reason == .rateLimitCloses)
        #expect(limits.refusalAtAccept(from: "10.0.0.4") == nil)
        #expect(limits.refusals == [.rateLimitCloses: 1])
        #expect(limits.counts(for: "10.0.0.3") == (0, 0), "a refused socket is never counted as pending")
    }

    @Test func theTableIsBounded() {
        var refused = RefusedAddresses(capacity: 3)
        let start = ContinuousClock.now
        for n in 0..<3 {
            refused.refuse(
                "10.0.0.\(n)", until: start + .seconds(10 + n), reason: .failedJoins, message: "m", now: start)
        }
        // Full of live entries: the one expiring soonest makes room.
        refused.refuse("10.0.1.0", until: start + .seconds(60), reason: .failedJoins, message: "m", now: start)
        #expect(refused.count == 3)
        #expect(refused.refusal(for: "10.0.0.0", now: start) == nil)
        #expect(refused.refusal(for: "10.0.1.0", now: start) != nil)
        // Once they expired, a prune makes room for everyone new.
        let later = start + .seconds(30)
        refused.refuse("10.0.2.0", until: later + .seconds(60), reason: .failedJoins, message: "m", now: later)
        #expect(refused.count == 2)
    }

    @Test func theAnswerIsOneWholeResponse() throws {
        let bytes = RefusalAnswer.bytes(.init(reason: .failedJoins, retryAfter: 42, message: "too many failed joins"))
        let response = try #require(RawHTTP.parse(bytes))
        #expect(response.status == 429)
        #expect(RawHTTP.header("retry-after", in: response.headers) == "42")
        #expect(RawHTTP.header("connection", in: response.headers) == "close")
        #expect(response.text == "too many failed joins; try again in 42 s\n")
        #expect(RawHTTP.header("content-length", in: response.headers) == "\(response.body.count)")
    }

    @Test func aRefusedAddressGets429BeforeAnyHandshakeUntilTheRefusalEnds() async throws {
        let h = try ServerHarness()
        let port = h.server.boundPort
        let upgrade = RawHTTP.upgrade(port: port)
        // Another address refused: this one is unaffected.
        h.server.refuseConnections(from: "127.0.0.2", for: .seconds(60), reason: .failedJoins, message: "no")
        let open = try #require(await Self.answer(port: port, upgrade))
        #expect(open.status == 101)
        h.server.refuseConnections(
            from: "127.0.0.1", for: .seconds(60), reason: .failedJoins,
            message: "too many failed joins from your address")
        #expect(await eventually("the unrefused connection is reported") { h.connectedIDs.count == 1 })
        for _ in 0..<3 {
            let refused = try #require(await Self.answer(port: port, upgrade))
            #expect(refused.status == 429)
            #expect((50...60).contains(Int(RawHTTP.header("retry-after", in: refused.headers) ?? "-") ?? 0))
            #expect(RawHTTP.header("upgrade", in: refused.headers) == nil, "no WebSocket handshake happened")
            #expect(refused.text.hasPrefix("too many failed joins from your address; try again in "))
        }
        // Plain HTTP from the address is refused alike: nothing of it is parsed.
        #expect(await RawHTTP.getAsync(port: port, "/ping")?.status == 429)
        #expect(h.server.refusedConnectionCounts[.failedJoins] == 4)
        #expect(h.connectedIDs.count == 1, "no refused socket became a connection")
        #expect(h.server.connectionCounts(from: "127.0.0.1").pending == 0)
        // The refusal ends with its time (a shorter one replaces it here, to keep the test short).
        let endsAt = ContinuousClock.now + .milliseconds(300)
        h.server.refuseConnections(from: "127.0.0.1", for: .milliseconds(300), reason: .failedJoins, message: "wait")
        try await Task.sleep(until: endsAt + .milliseconds(100))
        #expect(await Self.answer(port: port, upgrade)?.status == 101)
        #expect(h.server.refusedConnectionCounts[.failedJoins] == 4)
        await h.server.shutdown()
    }

    /// Sends `request` and reads the answer: a 101's head, or anything else until the server closes.
    static func answer(port: Int, _ request: String) async -> RawHTTP.Response? {
        await io {
            let fd = RawHTTP.connect(port: port)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            RawHTTP.sendAll(fd, Array(request.utf8))
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                if bytes.starts(with: Array("HTTP/1.1 101".utf8)), bytes.suffix(4) == Array("\r\n\r\n".utf8) { break }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                bytes += buffer[0..<n]
            }
            return RawHTTP.parse(bytes)
        }
    }
}
