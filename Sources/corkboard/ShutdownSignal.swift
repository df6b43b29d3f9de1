import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM.
///
/// The default handlers are replaced (so the process is not killed outright) and each signal is
/// delivered through a `DispatchSource`; the first one to arrive resumes `wait()`.
final class ShutdownSignal {
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation

    init(signals: [Int32] = [SIGINT, SIGTERM]) {
        (stream, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(1))
        let continuation = continuation
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// Suspends until the first signal; returns its name (`SIGINT`, `SIGTERM`).
    func wait() async -> String {
        for await number in stream {
            return number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)"
        }
        return "end of stream"
    }

    deinit {
        for source in sources { source.cancel() }
        continuation.finish()
    }
}
