import ArgumentParser

/// `--pid` (the server's process, whose CPU time and memory a run reports) and `--cpu` (the CPU
/// this process is pinned to): the same in the scenarios and in `flood`.
struct ProcessOptions: ParsableArguments {
    @Option(help: "The server's process id, to report its CPU time and memory (from /proc).")
    var pid: Int32?

    @Option(help: "Pin this process to this CPU (taskset); the server should be pinned to another.")
    var cpu: Int?

    /// Pins this process to `--cpu`, when given.
    func pinThisProcess() throws {
        if let cpu, !ProcessCPU.pin(toCPU: cpu) {
            throw ValidationError("Could not pin this process to CPU \(cpu) with taskset.")
        }
    }

    /// The server's CPU time and memory now, when `--pid` is given and its /proc entry can be read.
    func serverSample() -> ProcessSample? {
        pid.flatMap { ProcessSample.read(pid: $0) }
    }

    /// The server's first sample of a run: an error when `--pid` names no process this one can read.
    func firstServerSample() throws -> ProcessSample? {
        let sample = serverSample()
        if let pid, sample == nil {
            throw ValidationError("Cannot read /proc/\(pid)/stat; is --pid the server's process id?")
        }
        return sample
    }
}
