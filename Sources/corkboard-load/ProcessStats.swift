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
    /// CPU time of its threads so far, in microseconds, summed by thread name (a server's service
    /// threads are `cb-service-N`; the Swift runtime's pool threads share a few names).
    var threadCPUMicros: [String: Int] = [:]

    /// Reads `/proc/PID/stat`, `/proc/PID/status` and its threads' `stat`; `nil` when the process
    /// is gone or unreadable.
    static func read(pid: Int32) -> ProcessSample? {
        guard let (_, cpu) = cpuMicros(statFile: "/proc/\(pid)/stat") else { return nil }
        var rss = 0
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        {
            rss = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        var threads: [String: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            if let (name, micros) = cpuMicros(statFile: "/proc/\(pid)/task/\(task)/stat") {
                threads[name, default: 0] += micros
            }
        }
        return ProcessSample(cpuMicros: cpu, rssKiB: rss, at: Monotonic.nanos(), threadCPUMicros: threads)
    }

    /// The name and user plus system CPU time (µs) in a process's or thread's `stat` file.
    private static func cpuMicros(statFile path: String) -> (name: String, micros: Int)? {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8),
            let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        let ticks = max(1, sysconf(Int32(_SC_CLK_TCK)))
        return (String(stat[stat.index(after: open)..<close]), (user + system) * 1_000_000 / ticks)
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
    /// CPU time ÷ wall time by thread name, for the names that used any (a server's: where its
    /// time went, service threads against the runtime's pool threads that run rooms and the
    /// store). A thread that ended in the interval is missing; one that started counts from zero.
    var threadCores: [String: Double]

    init(from start: ProcessSample, to end: ProcessSample) {
        cpuSeconds = Double(end.cpuMicros - start.cpuMicros) / 1e6
        let wall = Double(end.at &- start.at) / 1e9
        cpuCores = wall > 0 ? cpuSeconds / wall : 0
        rssMiB = Double(end.rssKiB) / 1024
        rssGrowthMiB = Double(end.rssKiB - start.rssKiB) / 1024
        var threads: [String: Double] = [:]
        for (name, micros) in end.threadCPUMicros {
            let used = micros - (start.threadCPUMicros[name] ?? 0)
            if used > 0, wall > 0 { threads[name] = Double(used) / 1e6 / wall }
        }
        threadCores = threads
    }

    /// The busiest thread names, as "cb-service-0 61.7%" (at least 1 % of a core each), busiest first.
    func busiestThreads(_ count: Int = 4) -> [String] {
        threadCores.filter { $0.value >= 0.01 }.sorted { $0.value > $1.value }.prefix(count).map {
            "\($0.key) " + String(format: "%.1f%%", $0.value * 100)
        }
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
        sum.threadCores.merge(other.threadCores, uniquingKeysWith: +)
        return sum
    }
}
