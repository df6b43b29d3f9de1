import CorkboardProtocol
import Synchronization

extension BoardConnection {
    typealias WaitResult = Result<Answer, BoardClientError>

    /// What resolved a wait.
    enum Answer: Sendable {
        /// The message answering a request.
        case message(ServerMessage)
        /// The state that satisfied a condition.
        case state(BoardState)

        var message: ServerMessage {
            if case .message(let message) = self { return message }
            preconditionFailure("a request's wait resolved with a state")
        }

        var state: BoardState {
            if case .state(let state) = self { return state }
            preconditionFailure("a condition's wait resolved with a message")
        }
    }

    /// One suspended call.
    struct Waiter {
        enum Match {
            /// The answer echoing `ref`, or the ack (or refusal) of `opID`.
            case answer(ref: String?, opID: String?)
            /// A condition on the state.
            case state(@Sendable (BoardState) -> Bool)
        }

        var match: Match
        /// Whether the wait continues across a lost link (acks come after the resume's resend;
        /// conditions are re-evaluated on the resumed state).
        var keepsAcrossReconnect: Bool
        var continuation: CheckedContinuation<WaitResult, Never>
        var timer: Task<Void, Never>?
    }

    /// Registers a waiter, runs `action` under the same lock (so the answer cannot arrive before the
    /// waiter is known), and suspends until the answer, the timeout, a lost link or cancellation.
    /// On a connection that is already closed, a state condition is still checked (against the final
    /// state) before the wait fails as closed, and `action` does not run.
    func wait(
        for what: String, match: Waiter.Match, keepsAcrossReconnect: Bool, timeout: Duration?,
        _ action: (inout Core) throws(BoardClientError) -> Void = { _ in }
    ) async -> WaitResult {
        let limit = timeout ?? options.timeout
        let registered = WaiterID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WaitResult, Never>) in
                var immediate: WaitResult?
                let id = core.withLock { core -> UInt64? in
                    if core.state.isClosed {
                        // A condition the final state meets (a join's "welcomed or closed") is
                        // answered with that state, however early the close came.
                        if case .state(let condition) = match, condition(core.state) {
                            immediate = .success(.state(core.state))
                        } else {
                            immediate = .failure(
                                BoardClientError(.closed, "Cannot wait for \(what): the connection is closed."))
                        }
                        return nil
                    }
                    if Task.isCancelled {
                        immediate = .failure(BoardClientError(.cancelled, "Cancelled while waiting for \(what)."))
                        return nil
                    }
                    do throws(BoardClientError) {
                        try action(&core)
                    } catch {
                        immediate = .failure(error)
                        return nil
                    }
                    if case .state(let condition) = match, condition(core.state) {
                        immediate = .success(.state(core.state))
                        return nil
                    }
                    core.counter += 1
                    core.waiters[core.counter] = Waiter(
                        match: match, keepsAcrossReconnect: keepsAcrossReconnect, continuation: continuation)
                    return core.counter
                }
                guard let id else {
                    continuation.resume(returning: immediate!)
                    return
                }
                registered.set(id)
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: limit)
                    self?.resolve(
                        id,
                        .failure(
                            BoardClientError(
                                .timedOut,
                                "Timed out after \(limit) waiting for \(what); the server or the network may be "
                                    + "overloaded, or the awaited event never came.")))
                }
                core.withLock { core in
                    if core.waiters[id] != nil { core.waiters[id]!.timer = timer } else { timer.cancel() }
                }
            }
        } onCancel: {
            if let id = registered.get() {
                resolve(id, .failure(BoardClientError(.cancelled, "Cancelled while waiting for \(what).")))
            }
        }
    }

    /// Ends one wait with `result`, if it is still suspended.
    func resolve(_ id: UInt64, _ result: WaitResult) {
        guard let waiter = core.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: result)
    }

    /// Resolves the requests a message answers.
    func answerWaiters(
        _ message: ServerMessage, ref: String?, opID: String?, _ core: inout Core, _ effects: inout Effects
    ) {
        guard ref != nil || opID != nil, !core.waiters.isEmpty else { return }
        for (id, waiter) in core.waiters {
            guard case .answer(let wantedRef, let wantedOpID) = waiter.match else { continue }
            let byRef = wantedRef != nil && wantedRef == ref
            let byOpID = wantedOpID != nil && wantedOpID == opID
            guard byRef || byOpID else { continue }
            core.waiters[id] = nil
            effects.resumptions.append((waiter.continuation, .success(.message(message)), waiter.timer))
        }
    }

    /// Resolves the conditions the state now satisfies.
    func settleStateWaiters(_ core: inout Core, _ effects: inout Effects) {
        guard !core.waiters.isEmpty else { return }
        for (id, waiter) in core.waiters {
            guard case .state(let condition) = waiter.match, condition(core.state) else { continue }
            core.waiters[id] = nil
            effects.resumptions.append((waiter.continuation, .success(.state(core.state)), waiter.timer))
        }
    }
}

/// The id of a registered waiter, shared with the cancellation handler.
final class WaiterID: Sendable {
    private let value = Mutex<UInt64?>(nil)

    func set(_ id: UInt64) { value.withLock { $0 = id } }

    func get() -> UInt64? { value.withLock { $0 } }
}
