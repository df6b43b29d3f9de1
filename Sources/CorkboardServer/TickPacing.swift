import CLinuxShim
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the rooms' tick stretches when the server is busy, so that committed operations keep their
/// latency: peers' hovers, cursors and presence (ephemeral, coalesced per tick) are what a busy
/// server sheds first.
///
/// Every `sampleEvery` the timers read the process's CPU use as a share of the CPUs it may run on
/// (a ``LoadGauge``). Above `busy` the tick grows (up to `maximum`), below `idle` it shrinks (down
/// to the configured tick), each time in proportion to how far the use is from the middle of the
/// two (at most half longer, at most a fifth shorter per reading), so it settles where the use is
/// between them. Every room uses the same stretched tick, so ticks stay aligned. A stretched tick means fewer, larger fan-outs: each peer still gets every
/// drag's latest hover, just less often. Drops, acks and every other committed message never
/// wait for a tick.
public struct TickPacing: Sendable, Equatable {
    /// The longest tick under load. Default 500 ms; equal to the tick (or `.off`) turns pacing off.
    public var maximum: Duration
    /// CPU use (0–1 of the CPUs the process may run on) above which the tick stretches. Default 0.75.
    public var busy: Double
    /// CPU use below which a stretched tick shrinks back. Default 0.6.
    public var idle: Double
    /// How often CPU use is read (while any room holds an alarm). Default 250 ms.
    public var sampleEvery: Duration

    /// Creates a pacing; every default is spelled out.
    public init(
        maximum: Duration = .milliseconds(500), busy: Double = 0.75, idle: Double = 0.6,
        sampleEvery: Duration = .milliseconds(250)
    ) {
        self.maximum = maximum
        self.busy = busy
        self.idle = idle
        self.sampleEvery = sampleEvery
    }

    /// No stretching: the tick is always the configured one.
    public static let off = TickPacing(maximum: .zero)
}

/// What the process's CPU use has been lately.
public protocol LoadGauge: Sendable {
    /// CPU use since the previous call, as a share (0–1, or more while the count of CPUs is
    /// stale) of the CPUs the process may run on; `nil` on the first call.
    func sample() -> Double?
}

/// The paced tick: a value that reads CPU use now and then and answers the period every room's
/// tick uses. Kept by ``RoomTimers`` under its lock.
struct TickPacer {
    let pacing: TickPacing
    /// The tick is the configured one times this (1 when idle).
    private(set) var stretch = 1.0
    private var lastSample: BoardTime?

    init(pacing: TickPacing) { self.pacing = pacing }

    /// The tick every room uses now, for a configured tick of `base`.
    func period(base: Duration) -> Duration {
        guard stretch > 1, pacing.maximum > base else { return base }
        let stretched = base * stretch
        return stretched < pacing.maximum ? stretched.roundedToMilliseconds : pacing.maximum
    }

    /// Reads `gauge` when `sampleEvery` has passed since the last reading, and stretches or
    /// shrinks the tick by what it says; returns whether the stretch changed.
    ///
    /// Readings come while alarms fire; after a pause longer than four sample periods and two of
    /// the longest ticks (no room had anything to time), the tick starts again from the configured
    /// one, so the first drags after a quiet spell never meet a tick stretched for a load that has
    /// gone.
    @discardableResult
    mutating func observe(now: BoardTime, gauge: any LoadGauge, base: Duration) -> Bool {
        guard pacing.maximum > base else { return false }
        let before = stretch
        if let last = lastSample {
            let since = last.duration(to: now)
            if since < pacing.sampleEvery { return false }
            if since > max(pacing.sampleEvery * 4, pacing.maximum * 2) { stretch = 1 }
        }
        lastSample = now
        guard let use = gauge.sample() else { return stretch != before }
        let limit = pacing.maximum / base
        // Fan-out costs about the inverse of the tick: scale it by how far the use is from the
        // middle of the band, fast to grow (a burst of work) and slower to shrink.
        let middle = (pacing.busy + pacing.idle) / 2
        if use > pacing.busy {
            stretch = min(limit, stretch * min(1.5, max(1.1, use / middle)))
        } else if use < pacing.idle {
            stretch = max(1, stretch * max(0.8, use / middle))
        }
        return stretch != before
    }
}

extension Duration {
    /// The duration rounded to whole milliseconds (a stretched tick stays a readable number).
    fileprivate var roundedToMilliseconds: Duration {
        .milliseconds(Int64((self / .milliseconds(1)).rounded()))
    }
}

/// The process's CPU time (user + system, all threads) per second of wall time, divided by the
/// number of CPUs the process may run on (its affinity: 1 under `taskset -c 0`).
public final class ProcessLoadGauge: LoadGauge {
    private struct Reading {
        var cpu: Double
        var wall: Double
    }

    private let last: Mutex<Reading?> = Mutex(nil)
    /// The CPUs the process may run on, read at init.
    public let cpus: Int

    /// A gauge over this process.
    public init() { cpus = max(1, Int(clinux_allowed_cpus())) }

    public func sample() -> Double? {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        let wall = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        let reading = Reading(cpu: cpu, wall: wall)
        let previous = last.withLock { last in
            defer { last = reading }
            return last
        }
        guard let previous, wall > previous.wall else { return nil }
        return (cpu - previous.cpu) / (wall - previous.wall) / Double(cpus)
    }
}
