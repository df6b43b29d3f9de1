import Foundation
import Glibc

/// CPU time and affinity helpers for benchmarks.
enum ProcessCPU {
    /// User plus system CPU time of this process so far, in microseconds.
    static func microseconds() -> Int {
        var u = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &u)
        return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1_000_000 + u.ru_utime.tv_usec + u.ru_stime.tv_usec
    }

    /// Pins every thread of process `pid` to one CPU with `taskset -a -p -c` (util-linux); returns
    /// whether it worked. Threads created later inherit the affinity of their creator.
    @discardableResult
    static func pin(pid: Int32 = getpid(), toCPU cpu: Int) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["taskset", "-a", "-p", "-c", "\(cpu)", "\(pid)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}
