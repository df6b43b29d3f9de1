import Synchronization

/// Tells the application when one broadcast frame has gone to every recipient: each recipient's
/// service thread counts it off as the frame enters a socket write (or as it is refused for a
/// connection already gone), and the last one calls `done` on its thread.
///
/// Only frames created with a delivery pay for it (one atomic decrement per recipient); a frame
/// that is dropped with a slow consumer's queue never completes, so `done` is not called.
public final class FrameDelivery: Sendable {
    private let remaining: Atomic<Int>
    private let done: @Sendable () -> Void

    /// A delivery to `recipients` connections; `done` runs on a service thread and must be quick.
    public init(recipients: Int, done: @escaping @Sendable () -> Void) {
        remaining = Atomic(recipients)
        self.done = done
        if recipients <= 0 { done() }
    }

    /// One recipient is served.
    func counted() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done() }
    }
}
