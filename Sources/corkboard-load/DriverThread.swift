import Foundation
import Glibc
import Synchronization

/// The thread an open-loop driver (drags, paced moves) runs its rounds on, and the stop that
/// waits for it: ``stop()`` asks the loop to end and waits, at most 10 s, until it has.
final class DriverThread: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    /// Whether ``stop()`` was called: the driver's loop should end its round and return.
    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Runs `loop` on a new thread; it returns soon after ``isStopping`` turns true.
    func start(_ loop: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            loop()
            finished.store(true, ordering: .releasing)
        }
    }

    /// Asks the loop to stop and waits (at most 10 s) until it has returned.
    func stop() async {
        stopping.store(true, ordering: .releasing)
        _ = try? await waitUntil(.now + .seconds(10), every: .milliseconds(5)) {
            finished.load(ordering: .acquiring)
        }
    }

    /// Sleeps the calling thread from `now` until `wake` (monotonic nanoseconds); not at all when
    /// `wake` is not later than `now`.
    static func sleep(from now: UInt64, until wake: UInt64) {
        guard wake > now else { return }
        var pause = timespec(tv_sec: Int((wake - now) / 1_000_000_000), tv_nsec: Int((wake - now) % 1_000_000_000))
        nanosleep(&pause, nil)
    }
}
