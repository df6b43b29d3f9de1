/// Failures counted per key (an address, or an address and a board): a key that collects ``limit``
/// of them within ``window`` seconds is throttled until the oldest failure that keeps it at the
/// limit leaves the window. Guessing keys or board ids then costs a minute per ``limit`` tries
/// instead of a round trip each.
///
/// A value: ``AddressThrottles`` holds one per kind of failure, with time as a parameter so tests
/// need no clock.
struct JoinThrottle: Sendable {
    /// Failed joins allowed per address within ``window``.
    let limit: Int
    /// The window, in seconds.
    let window: Double
    private var failures: [String: [Double]] = [:]

    init(limit: Int = 10, window: Double = 60) {
        self.limit = limit
        self.window = window
    }

    /// Records a failed join from `address` at `now`; returns whether this one throttles the address
    /// (it reached ``limit`` within ``window``), so the caller logs that once, not every refusal after.
    @discardableResult
    mutating func failed(_ address: String, now: Double) -> Bool {
        var times = failures[address, default: []].filter { now - $0 < window }
        times.append(now)
        failures[address] = times
        if failures.count > 10_000 { failures = failures.filter { $0.value.contains { now - $0 < window } } }
        return times.count == limit
    }

    /// Seconds `address` must wait before joining again, or `nil` when it may join now.
    func retryAfter(_ address: String, now: Double) -> Int? {
        throttledFor(address, now: now).map(Self.wholeSeconds)
    }

    /// A wait in whole seconds, rounded up, at least 1 (what `Retry-After` and close reasons say).
    static func wholeSeconds(_ seconds: Double) -> Int { max(1, Int(seconds.rounded(.up))) }

    /// Exactly how long `address` stays throttled (until the oldest failure that keeps it at
    /// ``limit`` leaves the window), or `nil` when it is not throttled now.
    func throttledFor(_ address: String, now: Double) -> Double? {
        let times = failures[address, default: []].filter { now - $0 < window }
        guard times.count >= limit else { return nil }
        // The failure whose leaving the window brings the count below the limit.
        let deciding = times[times.count - limit]
        return window - (now - deciding)
    }
}
