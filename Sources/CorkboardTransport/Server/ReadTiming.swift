import CLinuxShim
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How long input waits in a socket before a service thread reads it: what a server with a
/// ``ServerConfiguration/readWaitObserver`` reports (`corkboard_read_wait_seconds`).
///
/// A timed socket carries `SO_TIMESTAMPNS`, so the kernel stamps each segment as it arrives, and is
/// read with `recvmsg` (``reader``, `clinux_recv_timed`), which also returns when the newest bytes
/// read arrived: the read leaves how long they waited in the socket's ``Timer``, and the shard takes
/// it at the read's first `RECEIVE`, so each timed read counts once. libwebsockets reads with
/// `recv`, in front of which only the frame guard stands, so the guard reads a timed socket through
/// ``reader`` (``ShardContext/guardSocket(_:_:timedBy:)``); the guard itself knows nothing of time.
/// Not timed: reads over TLS (OpenSSL reads its socket itself), and bytes that reached the socket
/// before the shard adopted it.
///
/// Linux stamps arrivals only while some socket asks for it, and switches that on in a deferred
/// work item: without a hold, the first bytes of the first timed connection (and of the next one
/// after every timed connection closed) often arrive unstamped and their reads go unreported. A
/// server that times reads holds one socket with the option from start to stop (``hold(timeout:)``).
enum ReadTiming {
    /// Where the reads of one timed socket leave their wait, from the socket's adoption until
    /// libwebsockets destroys it (``AdmittedSocket/readTimer``; service thread only).
    struct Timer {
        /// The wait of the last timed read not yet taken, in nanoseconds; -1 when none.
        let wait: UnsafeMutablePointer<Int64>

        /// What the guard hands ``ReadTiming/reader`` with each read of the socket.
        var context: UnsafeMutableRawPointer { UnsafeMutableRawPointer(wait) }

        /// The wait the last timed read left, once: `nil` if none since the previous take.
        func take() -> Duration? {
            let nanoseconds = wait.pointee
            wait.pointee = -1
            return nanoseconds >= 0 ? .nanoseconds(nanoseconds) : nil
        }

        /// Frees the timer (once the guard no longer reads the socket).
        func free() { wait.deallocate() }
    }

    /// Reads like `recv` and leaves the wait of the newest bytes read in the timer whose
    /// ``Timer/context`` it is given: the frame guard's reader (`cfg_reader_t`) for a timed socket.
    static var reader: @convention(c) (Int32, UnsafeMutableRawPointer?, Int, Int32, UnsafeMutableRawPointer?) -> Int {
        clinux_recv_timed
    }

    /// Starts timing the reads of `fd` (an adopted socket, before any read).
    ///
    /// - Returns: Its timer, or `nil` if the socket refused `SO_TIMESTAMPNS`.
    static func start(_ fd: Int32) -> Timer? {
        guard clinux_request_timestamps(fd) == 0 else { return nil }
        let wait = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        wait.initialize(to: -1)
        return Timer(wait: wait)
    }

    /// Holds stamping on, and waits until the kernel stamps a probe's byte (at most `timeout`).
    ///
    /// - Returns: The descriptor that holds it, to close at stop; `nil` if it could not be opened
    ///   (reads are then timed only while a timed connection is open, as without a hold).
    static func hold(timeout: Duration = .seconds(1)) -> Int32? {
        let fd = clinux_timestamps_hold()
        guard fd >= 0 else { return nil }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clinux_timestamps_stamping() == 0 && clock.now < deadline { usleep(1_000) }
        return fd
    }
}

extension ShardContext {
    /// A timer for the reads of a socket this shard adopts, when the server times reads
    /// (``ServerConfiguration/readWaitObserver``); `nil` otherwise or if the socket refuses.
    func readTimer(for fd: Int32) -> ReadTiming.Timer? {
        guard configuration.readWaitObserver != nil else { return nil }
        guard let timer = ReadTiming.start(fd) else {
            logger.debug("cannot time this socket's reads: setting SO_TIMESTAMPNS failed")
            return nil
        }
        return timer
    }

    /// Reports the wait of the read that delivered this `RECEIVE`'s chunk, if that read was timed
    /// and its wait not yet reported (``ServerConfiguration/readWaitObserver``).
    func reportReadWait(_ wsi: OpaquePointer, to observe: (Duration) -> Void) {
        if let wait = loop.sockets[wsi]?.readTimer?.take() { observe(wait) }
    }
}
