import CorkboardCommandLine
import Foundation

/// Turns SIGINT and SIGTERM into a clean stop: the first one stops the bots (they finish the action
/// in hand, then the run settles, checks and prints its summary); a second one exits at once with
/// status 130.
///
/// - Returns: the task reading the signals; cancel it when the run is over.
func watchInterrupts(stop: StopFlag, message: @escaping @Sendable (String) -> Void) async -> Task<Void, Never> {
    let signals = await InterruptSignals.trap()
    return Task {
        var received = 0
        for await name in signals {
            received += 1
            if received > 1 {
                message("\(name) again: exiting without checking the replicas.")
                exit(130)
            }
            message("\(name): stopping the bots, then checking the replicas (send it again to exit at once).")
            stop.set(interruptedBy: name)
        }
    }
}
