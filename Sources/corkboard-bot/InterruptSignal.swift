import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into a clean stop: the first one stops the bots (they finish the action
/// in hand, then the run settles, checks and prints its summary); a second one exits at once with
/// status 130.
final class InterruptSignal {
    private let sources: [any DispatchSourceSignal]

    /// Installs the handlers; they stay until the value is released.
    init(stop: StopFlag, message: @escaping @Sendable (String) -> Void) {
        let counter = SignalCounter()
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let name = number == SIGINT ? "SIGINT" : "SIGTERM"
            source.setEventHandler {
                if counter.increment() > 1 {
                    message("\(name) again: exiting without checking the replicas.")
                    exit(130)
                }
                message("\(name): stopping the bots, then checking the replicas (send it again to exit at once).")
                stop.set(interruptedBy: name)
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// Counts signals across the dispatch queue's threads.
private final class SignalCounter: Sendable {
    private let count = Mutex(0)

    func increment() -> Int {
        count.withLock {
            $0 += 1; return $0
        }
    }
}
