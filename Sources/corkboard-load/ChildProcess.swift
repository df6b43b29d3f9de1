import CorkboardCommandLine
import Foundation

/// The processes the load tool starts: its own workers (`--processes`), the transport benchmark's
/// server, and the corkboard CLI that lists and creates boards.
enum ChildProcess {
    /// This executable's path (`/proc/self/exe`, else how it was called).
    static var selfPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Starts `executable` with `arguments` and the given pipes as its standard streams (the
    /// others are this process's); `what` names it in the error, with `hint` saying what to do.
    static func start(
        _ executable: String, _ arguments: [String], input: Pipe? = nil, output: Pipe? = nil, errors: Pipe? = nil,
        what: String, hint: String = ""
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let input { process.standardInput = input }
        if let output { process.standardOutput = output }
        if let errors { process.standardError = errors }
        do {
            try process.run()
        } catch {
            throw CommandFailure("Could not start \(what) (\(executable)): \(error.localizedDescription)\(hint)")
        }
        return process
    }
}
