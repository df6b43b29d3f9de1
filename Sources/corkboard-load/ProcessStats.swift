import CorkboardLoadKit
import Foundation
import Glibc

/// CPU time and resident memory of a process, read from `/proc` (Linux).
struct ProcessSample: Sendable {
    /// User plus system CPU time, in microseconds.
    var cpuMicros: Int
    /// Resident set size, in KiB (`VmRSS`).
    var rssKiB: Int
    /// When it was taken.
    var at: UInt64

    /// Reads `/proc/PID/stat` and `/proc/PID/status`; `nil` when the process is gone or unreadable.
    static func read(pid: Int32) -> ProcessSample? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        let ticks = max(1, sysconf(Int32(_SC_CLK_TCK)))
        var rss = 0
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        {
            rss = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return ProcessSample(cpuMicros: (user + system) * 1_000_000 / ticks, rssKiB: rss, at: Monotonic.nanos())
    }

    /// This process, with `getrusage` for finer CPU time.
    static func current() -> ProcessSample {
        var sample = read(pid: getpid()) ?? ProcessSample(cpuMicros: 0, rssKiB: 0, at: Monotonic.nanos())
        sample.cpuMicros = ProcessCPU.microseconds()
        return sample
    }
}

/// The change between two samples of one process.
struct ProcessUsage: Codable, Sendable {
    /// CPU time used in the interval, in seconds.
    var cpuSeconds: Double
    /// CPU time ÷ wall time: 1.0 is one core busy.
    var cpuCores: Double
    /// Resident memory at the end, in MiB.
    var rssMiB: Double
    /// Resident memory gained in the interval, in MiB.
    var rssGrowthMiB: Double

    init(from start: ProcessSample, to end: ProcessSample) {
        cpuSeconds = Double(end.cpuMicros - start.cpuMicros) / 1e6
        let wall = Double(end.at &- start.at) / 1e9
        cpuCores = wall > 0 ? cpuSeconds / wall : 0
        rssMiB = Double(end.rssKiB) / 1024
        rssGrowthMiB = Double(end.rssKiB - start.rssKiB) / 1024
    }
}

extension ProcessUsage {
    /// Two processes' usage over the same interval, together (a run split over processes).
    func adding(_ other: ProcessUsage) -> ProcessUsage {
        var sum = self
        sum.cpuSeconds += other.cpuSeconds
        sum.cpuCores += other.cpuCores
        sum.rssMiB += other.rssMiB
        sum.rssGrowthMiB += other.rssGrowthMiB
        return sum
    }
}
