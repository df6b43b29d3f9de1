import CLinuxShim
import Foundation

/// How Linux schedules the server's threads (`corkboard serve --scheduling`).
///
/// The service threads hand every message to a room on Swift's cooperative pool, and the rooms
/// hand their frames back. Under the normal policy each of those wakes preempts the thread that
/// made it whenever both share a core, so a busy core switches back and forth between them for
/// every few messages. Under `SCHED_BATCH` a woken thread never preempts a running one: it runs when
/// the running thread waits or its time slice ends, and then finds a batch of work instead of one
/// message. A thread woken while a core is idle starts at once under either policy.
enum ThreadScheduling: String, CaseIterable {
    /// `SCHED_BATCH` for every thread of the server (the default).
    case batch
    /// `SCHED_OTHER`, Linux's default policy, for every thread of the server.
    case normal
    /// Leaves every thread as the process was started (for example under `chrt`).
    case keep

    /// Puts every thread of this process, and through inheritance every thread it starts later,
    /// under the policy. Call it before the server starts its threads.
    ///
    /// Throws ``SchedulingError`` when the system refuses (leaving a `SCHED_IDLE` start needs
    /// `CAP_SYS_NICE` or room under `RLIMIT_NICE`, and a sandbox may forbid the call): `serve` then
    /// stops if the policy was asked for, and warns and keeps the threads as they were if it was the
    /// default.
    func apply() throws {
        let policy: Int32
        switch self {
        case .batch: policy = CLINUX_SCHED_BATCH
        case .normal: policy = CLINUX_SCHED_OTHER
        case .keep: return
        }
        let failure = clinux_set_process_scheduling(policy)
        guard failure == 0 else {
            throw SchedulingError(scheduling: self, reason: String(cString: strerror(failure)))
        }
    }

    /// A policy the system refused.
    struct SchedulingError: Error, CustomStringConvertible {
        let scheduling: ThreadScheduling
        let reason: String

        var description: String {
            "Could not put the server's threads under --scheduling \(scheduling.rawValue): \(reason). "
                + "Pass --scheduling keep to leave them as they were started."
        }
    }
}
