import Synchronization

/// Wakes waiters whenever something they watch changes, so a test waits on events instead of
/// polling on a timer.
///
/// A waiter reads `generation`, checks its condition, and, when it does not hold yet, waits for
/// a generation after the one it read (or its deadline).
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var expired: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A signal nobody waits on yet.
    public init() {}

    /// Counts the changes so far.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Something changed: wakes every waiter.
    public func notify() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the generation passed `generation`, or at `deadline`, whichever comes first.
    public func wait(after generation: UInt64, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let timer = Task { [weak self] in
            do { try await Task.sleep(until: deadline) } catch { return }
            self?.expire(id)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.expired.remove(id) != nil || state.generation != generation { return true }
                state.waiters[id] = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        timer.cancel()
    }

    /// Waits until `condition` holds, checking it again after every change; `false` if it still
    /// does not hold after `timeout`.
    public func wait(timeout: Duration, until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = generation
            if condition() { return true }
            guard ContinuousClock.now < deadline else { return false }
            await wait(after: seen, until: deadline)
        }
    }

    private func expire(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.expired.insert(id)
                return nil
            }
            return waiter
        }
        waiter?.resume()
    }
}
