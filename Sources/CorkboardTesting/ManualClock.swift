public import CorkboardServer
import Synchronization

/// A `BoardClock` that moves only when the test says: rooms, hubs and directories built on it
/// read its time, and their timers (the tick, sweeps, snapshot pumps) sleep on it, so a test
/// tests a timeout by advancing the clock instead of waiting.
///
/// Sleepers whose deadline the clock reaches resume in deadline order; a cancelled sleeper
/// throws `CancellationError` at once.
public final class ManualClock: BoardClock, Sendable {
    private struct Sleeper {
        var id: UInt64
        var deadline: BoardTime
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: BoardTime
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var cancelled: Set<UInt64> = []
    }

    private let state: Mutex<State>

    /// A clock at `start` (by default 1,000,000 seconds after 1970).
    public init(start: BoardTime = BoardTime(secondsSince1970: 1_000_000)) { state = Mutex(State(now: start)) }

    /// A clock at `seconds` after 1970.
    public convenience init(secondsSince1970 seconds: Double) { self.init(start: BoardTime(secondsSince1970: seconds)) }

    deinit {
        for sleeper in state.withLock({ $0.sleepers }) { sleeper.continuation.resume(throwing: CancellationError()) }
    }

    /// The current reading.
    public var now: BoardTime { state.withLock { $0.now } }

    /// No resolution limit.
    public var minimumResolution: Duration { .zero }

    /// The number of tasks sleeping on the clock (timers waiting to fire).
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the clock forward and wakes every sleeper whose deadline it reached.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Sleeps until the clock is moved to `deadline` or past it.
    public func sleep(until deadline: BoardTime, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
