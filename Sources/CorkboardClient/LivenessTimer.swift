import Foundation
import Synchronization

/// Looks at every connection's silence a few times a second (``BoardConnection/Liveness``), on a
/// thread of its own rather than the cooperative pool: an application whose tasks keep the pool
/// busy for seconds must neither see a healthy link dropped late nor a silent one left late
/// because the check itself waited for a thread. One per ``BoardClient``, however many connections.
final class LivenessTimer: Sendable {
    private let stopped = StopFlag()

    private final class StopFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Starts checking the connections of `registry` until ``stop()`` or until the registry is gone.
    init(_ registry: ConnectionRegistry) {
        let stopped = stopped
        let thread = Thread { [weak registry] in
            let interval = BoardConnection.livenessCheckInterval
            let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            while !stopped.value.load(ordering: .acquiring) {
                Thread.sleep(forTimeInterval: seconds)
                guard let connections = registry?.connections else { return }
                let now = ContinuousClock.now
                for connection in connections { connection.checkLiveness(now: now) }
            }
        }
        thread.name = "cb-liveness"
        thread.start()
    }

    /// Stops the checks (the thread ends within one interval).
    func stop() {
        stopped.value.store(true, ordering: .releasing)
    }
}
