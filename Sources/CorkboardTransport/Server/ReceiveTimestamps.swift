import CFrameGuard

#if canImport(Glibc)
import Glibc
#endif

/// Keeps the kernel stamping arriving packets while a server times its reads
/// (``ServerConfiguration/readWaitObserver``).
///
/// Linux stamps packets only while some socket asks for timestamps, and it switches stamping on
/// in a deferred work item: without a hold, the first bytes of the first timed connection (and
/// of the next one after every timed connection closed) often arrive unstamped, and their reads
/// go unreported. A server that times reads holds one socket with the option from start to stop.
enum ReceiveTimestamps {
    /// Holds stamping on, and waits until the kernel stamps a probe's byte (at most `timeout`).
    ///
    /// - Returns: The descriptor that holds it, to close at stop; `nil` if it could not be opened
    ///   (reads are then timed only while a timed connection is open, as without a hold).
    static func hold(timeout: Duration = .seconds(1)) -> Int32? {
        let fd = cfg_timestamps_hold()
        guard fd >= 0 else { return nil }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while cfg_timestamps_stamping() == 0 && clock.now < deadline { usleep(1_000) }
        return fd
    }
}
