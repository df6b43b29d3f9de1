import CorkboardCommandLine
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--drop-trace FILE`: every measured drop of a run, one line each, for finding when the slow
/// ones happened (a burst every second, a stall every few seconds) rather than only how many
/// there were. `scripts/drop_trace.py` reads it.
///
/// The file starts with `#` lines (the format, and how far `CLOCK_REALTIME` was ahead of
/// `CLOCK_MONOTONIC` when it was written, so a send time can be put on the wall clock the server's
/// aligned timers use), then `sent_ns every_peer_ns` per drop, by send time.
enum DropTrace {
    /// Writes `drops` to `path`, replacing it.
    static func write(_ drops: [DropTiming], to path: String) throws {
        var text = "# corkboard-load drop trace: sent_ns every_peer_ns (CLOCK_MONOTONIC nanoseconds)\n"
        text += "# realtime_minus_monotonic_ns \(realtimeMinusMonotonic())\n"
        text.reserveCapacity(text.utf8.count + drops.count * 24)
        for drop in drops { text += "\(drop.sent) \(drop.everyPeer)\n" }
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw CommandFailure(
                "Could not write the drop trace to \(path): \(error.localizedDescription). "
                    + "Check that its folder exists and is writable.")
        }
    }

    /// `CLOCK_REALTIME` minus `CLOCK_MONOTONIC`, in nanoseconds, now.
    private static func realtimeMinusMonotonic() -> Int64 {
        var real = timespec()
        var mono = timespec()
        clock_gettime(CLOCK_MONOTONIC, &mono)
        clock_gettime(CLOCK_REALTIME, &real)
        return (Int64(real.tv_sec) - Int64(mono.tv_sec)) * 1_000_000_000 + Int64(real.tv_nsec) - Int64(mono.tv_nsec)
    }
}
