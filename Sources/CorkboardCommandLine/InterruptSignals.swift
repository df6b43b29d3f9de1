import UnixSignals

/// SIGINT and SIGTERM as an async sequence of their names (`"SIGINT"`, `"SIGTERM"`), through
/// swift-service-lifecycle's `UnixSignalsSequence`: from `trap()` on, the signals no longer end the
/// process; they arrive here.
///
/// `corkboard serve` uses a `ServiceGroup` instead; the tools that only need to notice a signal
/// (the bots stop on the first and exit on the second, the transport benchmark server stops) read
/// this sequence.
public struct InterruptSignals: AsyncSequence, Sendable {
    public typealias Element = String

    private let signals: UnixSignalsSequence

    /// Traps SIGINT and SIGTERM.
    public static func trap() async -> InterruptSignals {
        InterruptSignals(signals: await UnixSignalsSequence(trapping: .sigint, .sigterm))
    }

    public func makeAsyncIterator() -> Iterator { Iterator(signals: signals.makeAsyncIterator()) }

    /// Iterates the signals as they arrive.
    public struct Iterator: AsyncIteratorProtocol {
        var signals: UnixSignalsSequence.AsyncIterator

        public mutating func next() async -> String? {
            guard let signal = await signals.next() else { return nil }
            return signal == .sigint ? "SIGINT" : signal == .sigterm ? "SIGTERM" : "\(signal)"
        }
    }
}
