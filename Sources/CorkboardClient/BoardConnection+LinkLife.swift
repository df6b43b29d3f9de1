import CorkboardModel
import CorkboardProtocol
import CorkboardTransport
import Logging
import Synchronization

/// A link's life inside the stream: the hello it opens with, the reconnect after it ends (at once
/// after a redirect, else as the policy says), what ends with it, and the end of the connection.
extension BoardConnection {
    /// Close codes after which resuming cannot help: replaced by another connection of this
    /// client, unsupported protocol, bad key, unknown board.
    static func isFatal(_ code: Int?) -> Bool {
        guard let code else { return false }
        return [
            CloseCode.replaced, CloseCode.unsupportedProtocol, CloseCode.badKey, CloseCode.unknownBoard,
        ].contains(code)
    }

    func sendHello(_ core: inout Core) {
        let resuming = core.hasReplica && !core.wantsSnapshot
        let clientId = core.hasReplica ? core.state.replica.clientId : options.clientId
        core.counter += 1
        let hello = ClientMessage.Hello(
            ref: "h\(core.counter)", board: options.board, key: options.key, name: options.name, clientId: clientId,
            lastSeq: resuming ? core.state.replica.confirmedSeq : nil,
            resumeToken: core.state.welcome?.resumeToken ?? options.resumeToken,
            history: resuming ? core.state.welcome?.history : nil)
        transmit(.hello(hello), &core)
    }

    /// When to open the next link after one ended, or `nil` to wait for ``resume(timeout:)``: at
    /// once after a redirect (a bounded number of times in a row), else as the reconnect policy says.
    func reconnectDelay(afterClose code: Int?, _ core: inout Core) -> Duration? {
        if code == CloseCode.moved, core.redirects < 8 {
            core.redirects += 1
            // Without a target the board is between nodes: a moment later, any entry URL.
            return core.redirect == nil ? .milliseconds(100 * core.redirects) : .zero
        }
        core.attempts += 1
        return options.reconnect.delay(beforeAttempt: core.attempts)
    }

    /// Opens the next link after `delay`, unless one was opened meanwhile or the connection closed.
    func scheduleReconnect(after delay: Duration, _ core: inout Core) {
        if let link = core.link {
            client.registry.remove(link)
            core.link = nil
        }
        core.phase = .connecting
        Task { [weak self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard let self else { return }
            var effects = Effects()
            self.core.withLock { core in
                guard core.link == nil, core.phase == .connecting, !core.state.isClosed else { return }
                do throws(BoardClientError) {
                    try self.openLink(&core)
                } catch {
                    self.linkEnded(
                        CloseInfo(code: nil, reason: error.message, willReconnect: false), fatal: false, &core, &effects
                    )
                }
            }
            effects.perform(onMessage: nil)
        }
    }

    /// The link ended: forget what belonged to it, fail the waits that cannot survive it.
    func linkEnded(_ info: CloseInfo, fatal: Bool, _ core: inout Core, _ effects: inout Effects) {
        core.state.connectionLosses += 1
        core.state.isJoined = false
        core.state.lastClose = info
        core.state.ownDrags = [:]
        core.state.drags = []
        core.inflight = [:]
        core.syncing = false
        core.loading = nil
        let error = BoardClientError(
            .closed,
            "The link to board \(options.board) closed: \(info.reason)"
                + (info.code.map { " (close code \($0))" } ?? "") + ".", closeCode: info.code)
        for (id, waiter) in core.waiters where !waiter.keepsAcrossReconnect {
            core.waiters[id] = nil
            effects.resumptions.append((waiter.continuation, .failure(error), waiter.timer))
        }
        if fatal {
            if let link = core.link {
                client.registry.remove(link)
                if info.willReconnect { client.transport.close(link) }
                core.link = nil
            }
            finish(error, &core, &effects)
        } else {
            core.phase = info.willReconnect ? .connecting : .disconnected
        }
        logger.debug(
            "link ended",
            metadata: [
                "code": "\(info.code.map(String.init) ?? "-")", "reason": "\(info.reason)",
                "willReconnect": "\(info.willReconnect)",
            ])
    }

    /// Closes the connection for good: every wait fails, streams finish.
    func finish(_ error: BoardClientError, _ core: inout Core, _ effects: inout Effects) {
        core.phase = .closed
        core.state.isClosed = true
        core.state.isJoined = false
        // Conditions that hold on the closed state (a join wait reads why) resolve with it.
        settleStateWaiters(&core, &effects)
        for waiter in core.waiters.values {
            effects.resumptions.append((waiter.continuation, .failure(error), waiter.timer))
        }
        core.waiters = [:]
        effects.finished += core.subscribers.values
        core.subscribers = [:]
    }
}
