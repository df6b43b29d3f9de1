import Synchronization

/// Tells the bots to stop starting actions (the deadline passed, or SIGINT/SIGTERM arrived).
///
/// Bots finish the action in hand (a drag is cancelled at its next 30 Hz tick) so nothing is left
/// half done before the run settles and checks the replicas.
final class StopFlag: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let reason = Mutex<String?>(nil)

    /// Whether the bots should stop.
    var isSet: Bool { stopped.load(ordering: .acquiring) }

    /// Why they stopped, when it was not the deadline.
    var interruption: String? { reason.withLock { $0 } }

    /// Asks the bots to stop; `why` names an interruption (a signal).
    func set(interruptedBy why: String? = nil) {
        if let why { reason.withLock { $0 = $0 ?? why } }
        stopped.store(true, ordering: .releasing)
    }

    /// Sleeps until `instant`, waking early (in slices of at most 50 ms) once the flag is set.
    func sleep(until instant: ContinuousClock.Instant) async {
        let clock = ContinuousClock()
        // Bounded: each slice is at least a millisecond until the instant, and the instant is fixed.
        while !isSet, clock.now < instant {
            let slice = min(instant, clock.now + .milliseconds(50))
            try? await Task.sleep(until: slice, clock: clock)
        }
    }
}
