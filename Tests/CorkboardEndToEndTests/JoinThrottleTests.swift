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

/// The throttles shared by the gateway and the rooms' sink count a close when the server decides
/// it, so a client reconnecting the moment it reads its close frame is already refused.
@Suite struct AddressThrottlesTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test func theThirdRateLimitCloseRefusesTheNextConnectionBeforeTheClosedOneIsGone() {
        let throttles = AddressThrottles(logger: Self.quiet, now: { 5 })
        for n in 1...3 {
            let id = ConnectionID(rawValue: UInt64(n))
            #expect(throttles.admit(id, from: "10.0.0.1") == nil)
            throttles.closing(id, code: CloseCode.policyViolation, reason: BoardHub.rateLimitCloseReason)
        }
        // No `forget` yet: the transport has not reported the third socket closed.
        #expect(throttles.admit(ConnectionID(rawValue: 4), from: "10.0.0.1") == .rateLimitCloses(wait: 60))
        #expect(throttles.admit(ConnectionID(rawValue: 5), from: "10.0.0.2") == nil, "another address")
    }

    @Test func failedJoinsCountAtTheirCloseAndOtherClosesDoNot() {
        let throttles = AddressThrottles(logger: Self.quiet, now: { 0 })
        for n in 1...10 {
            let id = ConnectionID(rawValue: UInt64(n))
            #expect(throttles.admit(id, from: "10.0.0.1") == nil)
            // A slow-client or key-rotation 1008 and a normal close count for nothing.
            throttles.closing(id, code: CloseCode.policyViolation, reason: "the share links were replaced")
            throttles.closing(id, code: 1000, reason: "")
            throttles.closing(id, code: CloseCode.badKey, reason: "bad key")
            throttles.forget(id)
        }
        #expect(throttles.admit(ConnectionID(rawValue: 11), from: "10.0.0.1") == .failedJoins(wait: 60))
    }

    @Test func theTransportIsToldWhenAndForHowLongAnAddressIsThrottled() {
        let told = Mutex<[String]>([])
        let clock = Mutex(0.0)
        let throttles = AddressThrottles(
            logger: Self.quiet, now: { clock.withLock { $0 } },
            refuse: { address, seconds, refusal in told.withLock { $0.append("\(address) \(seconds) \(refusal)") } })
        // Eleven connections admitted at once, then refused one by one.
        for n in 1...11 { #expect(throttles.admit(ConnectionID(rawValue: UInt64(n)), from: "10.0.0.1") == nil) }
        for n in 1...11 {
            clock.withLock { $0 = Double(n) }
            throttles.closing(ConnectionID(rawValue: UInt64(n)), code: CloseCode.badKey, reason: "bad key")
        }
        // From the tenth failure on, each one says how long the address stays refused: until the
        // failure that keeps it at the limit leaves the window.
        #expect(
            told.withLock { $0 } == [
                "10.0.0.1 51.0 failedJoins(wait: 51)", "10.0.0.1 51.0 failedJoins(wait: 51)",
            ])
        let other = ConnectionID(rawValue: 20)
        _ = throttles.admit(other, from: "10.0.0.2")
        throttles.closing(other, code: CloseCode.policyViolation, reason: BoardHub.rateLimitCloseReason)
        #expect(told.withLock { $0.count } == 2, "one rate-limit close throttles nobody")
        #expect(AddressThrottles.sentence(.failedJoins(wait: 1)) == "too many failed joins from your address")
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
}
