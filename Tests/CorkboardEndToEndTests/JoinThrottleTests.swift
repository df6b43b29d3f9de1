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

    @Test func onlyTheFailureThatReachesTheLimitSaysSo() {
        var throttle = JoinThrottle(limit: 3, window: 60)
        let reached = [0.0, 1, 2, 3, 4].map { throttle.failed("10.0.0.1", now: $0) }
        #expect(reached == [false, false, true, false, false], "logged once per episode")
        #expect(throttle.failed("10.0.0.1", now: 100) == false, "a new episode starts below the limit")
    }
}
