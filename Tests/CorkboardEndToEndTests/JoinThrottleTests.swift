import CorkboardProtocol
import CorkboardServer
import CorkboardTransport
import Logging
import Synchronization
import Testing

@testable import CorkboardApp

/// Failed joins per address (wrong key or unknown board, answered alike): the limit within the
/// window, per address, and the wait until the oldest failure leaves the window.
@Suite struct JoinThrottleTests {
    @Test func anAddressOverTheLimitWaitsForItsOldestFailureToExpire() {
        var throttle = JoinThrottle(limit: 3, window: 60)
        for t in [0.0, 10, 20] {
            #expect(throttle.retryAfter("10.0.0.1", now: t) == nil)
            throttle.failed("10.0.0.1", now: t)
        }
        #expect(throttle.retryAfter("10.0.0.1", now: 21) == 39)
        #expect(throttle.retryAfter("10.0.0.2", now: 21) == nil, "another address has its own count")
        #expect(throttle.retryAfter("10.0.0.1", now: 60.5) == nil, "the oldest failure left the window")
    }

    @Test func anAddressPastTheLimitStaysThrottledUntilEnoughFailuresLeftTheWindow() {
        var throttle = JoinThrottle(limit: 3, window: 60)
        for t in [0.0, 10, 20, 30] { throttle.failed("10.0.0.1", now: t) }
        // Four failures: throttled until the second leaves the window (at 70), not the first.
        #expect(throttle.throttledFor("10.0.0.1", now: 35) == 35)
        #expect(throttle.retryAfter("10.0.0.1", now: 65) == 5)
        #expect(throttle.throttledFor("10.0.0.1", now: 70) == nil)
    }

    @Test func onlyTheFailureThatReachesTheLimitSaysSo() {
        var throttle = JoinThrottle(limit: 3, window: 60)
        let reached = [0.0, 1, 2, 3, 4].map { throttle.failed("10.0.0.1", now: $0) }
        #expect(reached == [false, false, true, false, false], "logged once per episode")
        #expect(throttle.failed("10.0.0.1", now: 100) == false, "a new episode starts below the limit")
    }
}

/// The throttles shared by the gateway, the hub's join gate, the transport's admission gate and
/// the rooms' sink (issue 39): failed joins count per address and board (and per address across
/// boards, with a higher ceiling), rate-limit closes per address, each counted when the server
/// decides the close.
@Suite struct AddressThrottlesTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// Admits connection `n` from `address`, asks to join `board`, and fails it with a wrong key.
    static func failJoin(_ throttles: AddressThrottles, _ n: Int, from address: String, board: String) {
        let id = ConnectionID(rawValue: UInt64(n))
        #expect(throttles.admit(id, from: address) == nil)
        #expect(throttles.joinRefusal(id, board: board) == nil)
        throttles.closing(id, code: CloseCode.badKey, reason: "bad key")
        throttles.forget(id)
    }

    @Test func theThirdRateLimitCloseRefusesNewWebSocketsBeforeTheClosedOneIsGone() {
        let throttles = AddressThrottles(logger: Self.quiet, now: { 5 })
        for n in 1...3 {
            let id = ConnectionID(rawValue: UInt64(n))
            #expect(throttles.admit(id, from: "10.0.0.1") == nil)
            throttles.closing(id, code: CloseCode.policyViolation, reason: BoardHub.rateLimitCloseReason)
        }
        // No `forget` yet: the transport has not reported the third socket closed.
        #expect(throttles.admit(ConnectionID(rawValue: 4), from: "10.0.0.1") == .rateLimitCloses(wait: 60))
        #expect(throttles.webSocketRefusal(from: "10.0.0.1") == .rateLimitCloses(wait: 60))
        #expect(throttles.pageRefusal(from: "10.0.0.1", board: "b1") == .rateLimitCloses(wait: 60))
        #expect(throttles.admit(ConnectionID(rawValue: 5), from: "10.0.0.2") == nil, "another address")
    }

    @Test func tenFailedJoinsToOneBoardRefuseThatBoardOnly() {
        let throttles = AddressThrottles(logger: Self.quiet, now: { 0 })
        for n in 1...10 { Self.failJoin(throttles, n, from: "10.0.0.1", board: "stale") }
        let id = ConnectionID(rawValue: 11)
        #expect(throttles.admit(id, from: "10.0.0.1") == nil, "new WebSockets are still admitted")
        #expect(throttles.joinRefusal(id, board: "stale") == .failedJoinsToBoard(wait: 60))
        #expect(throttles.joinRefusal(id, board: "other") == nil, "another board is open to the address")
        #expect(throttles.pageRefusal(from: "10.0.0.1", board: "stale") == .failedJoinsToBoard(wait: 60))
        #expect(throttles.pageRefusal(from: "10.0.0.1", board: "other") == nil)
        #expect(throttles.pageRefusal(from: "10.0.0.2", board: "stale") == nil, "another address")
        #expect(
            throttles.admission(AdmissionRequest(kind: .page, address: "10.0.0.1", path: "/", queryItems: []))
                == nil, "the start page is served")
        let refusal = throttles.admission(
            AdmissionRequest(
                kind: .page, address: "10.0.0.1", path: "/", queryItems: [QueryItem(name: "board", value: "stale")]))
        #expect(refusal?.reason == .failedJoins && refusal?.retryAfter == 60)
        #expect(refusal?.message == "too many failed joins to this board from your address")
        #expect(throttles.webSocketRefusal(from: "10.0.0.1") == nil)
    }

    @Test func failedJoinsOverManyBoardsReachTheAddressCeiling() {
        let clock = Mutex(0.0)
        let throttles = AddressThrottles(logger: Self.quiet, now: { clock.withLock { $0 } })
        // 29 failures over 29 boards: under every limit.
        for n in 1..<AddressThrottles.failedJoinsPerAddress {
            Self.failJoin(throttles, n, from: "10.0.0.1", board: "b\(n)")
        }
        #expect(throttles.webSocketRefusal(from: "10.0.0.1") == nil)
        clock.withLock { $0 = 10 }
        Self.failJoin(throttles, 100, from: "10.0.0.1", board: "b100")
        // The 30th: new WebSockets refused until the first failure is a minute old (50 s from now).
        #expect(throttles.webSocketRefusal(from: "10.0.0.1") == .failedJoins(wait: 50))
        #expect(throttles.admit(ConnectionID(rawValue: 101), from: "10.0.0.1") == .failedJoins(wait: 50))
        #expect(throttles.pageRefusal(from: "10.0.0.1", board: "any") == .failedJoins(wait: 50))
        clock.withLock { $0 = 60 }
        #expect(throttles.webSocketRefusal(from: "10.0.0.1") == nil, "the oldest failure left the window")
        #expect(throttles.webSocketRefusal(from: "10.0.0.2") == nil)
    }

    @Test func onlyFailedJoinsAndRateLimitClosesCount() {
        let throttles = AddressThrottles(logger: Self.quiet, now: { 0 })
        for n in 1...20 {
            let id = ConnectionID(rawValue: UInt64(n))
            #expect(throttles.admit(id, from: "10.0.0.1") == nil)
            #expect(throttles.joinRefusal(id, board: "b") == nil)
            // A slow-client or key-rotation 1008 and a normal close count for nothing.
            throttles.closing(id, code: CloseCode.policyViolation, reason: "the share links were replaced")
            throttles.closing(id, code: 1000, reason: "")
            throttles.forget(id)
        }
        #expect(throttles.joinRefusal(ConnectionID(rawValue: 21), board: "b") == nil)
    }

    @Test func aRefusedJoinDoesNotCountAsAFailure() {
        let clock = Mutex(0.0)
        let throttles = AddressThrottles(logger: Self.quiet, now: { clock.withLock { $0 } })
        for n in 1...10 { Self.failJoin(throttles, n, from: "10.0.0.1", board: "stale") }
        // Trying again and again while refused does not renew the refusal.
        for n in 11...40 {
            clock.withLock { $0 = Double(n) }
            let id = ConnectionID(rawValue: UInt64(n))
            #expect(throttles.admit(id, from: "10.0.0.1") == nil)
            #expect(throttles.joinRefusal(id, board: "stale") != nil)
            throttles.forget(id)
        }
        clock.withLock { $0 = 60 }
        #expect(throttles.joinRefusal(ConnectionID(rawValue: 50), board: "stale") == nil)
    }

    @Test func aConnectionForgottenBeforeItsCloseCountsNothing() {
        let throttles = AddressThrottles(logger: Self.quiet, now: { 0 })
        for n in 1...5 {
            let id = ConnectionID(rawValue: UInt64(n))
            #expect(throttles.admit(id, from: "10.0.0.1") == nil)
            throttles.forget(id)
            throttles.closing(id, code: CloseCode.policyViolation, reason: BoardHub.rateLimitCloseReason)
        }
        #expect(throttles.admit(ConnectionID(rawValue: 6), from: "10.0.0.1") == nil)
    }

    @Test func theJoinGateAnswersWithTheSentenceAndTheWait() {
        let throttles = AddressThrottles(logger: Self.quiet, now: { 0 })
        for n in 1...10 { Self.failJoin(throttles, n, from: "10.0.0.1", board: "stale") }
        let id = ConnectionID(rawValue: 11)
        _ = throttles.admit(id, from: "10.0.0.1")
        let gate = ThrottledJoins(throttles: throttles)
        let refusal = gate.refusal(for: ConnectionHandle(rawValue: 11), board: "stale")
        #expect(
            refusal == JoinRefusal(message: "too many failed joins to this board from your address", retryAfter: 60))
        #expect(refusal?.closeReason == "too many failed joins to this board from your address; try again in 60 s")
        #expect(gate.refusal(for: ConnectionHandle(rawValue: 11), board: "fresh") == nil)
    }
}
