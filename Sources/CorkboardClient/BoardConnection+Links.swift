import CorkboardProtocol
import CorkboardTransport
import Synchronization

/// The connection's transport links: closed as a lost link would be, resumed (R10), closed for
/// good, and opened to the entry URLs or a redirect's node.
extension BoardConnection {
    /// Closes the link (as a lost connection would) but keeps the replica and pending operations
    /// for ``resume(timeout:)``.
    public func disconnect(code: Int = 1000, reason: String = "client disconnected") {
        var effects = Effects()
        core.withLock { core in
            guard let link = core.link, !core.state.isClosed else { return }
            client.registry.remove(link)
            client.transport.close(link, code: code, reason: reason)
            core.link = nil
            linkEnded(CloseInfo(code: code, reason: reason, willReconnect: false), fatal: false, &core, &effects)
        }
        effects.perform(onMessage: nil)
    }

    /// Reconnects and resumes (R10): `hello{clientId, lastSeq}`, then the welcome's operations (or
    /// snapshot) are applied and every pending operation is resent with its opId.
    ///
    /// A link still up is closed first. Waits for the welcome.
    /// - Throws: ``BoardClientError`` as ``waitUntilJoined(timeout:)``; `closed` after ``close()``.
    public func resume(timeout: Duration? = nil) async throws(BoardClientError) {
        var effects = Effects()
        let opened = core.withLock { core -> Result<JoinBaseline, BoardClientError> in
            guard !core.state.isClosed else {
                return .failure(
                    BoardClientError(.closed, "The connection was closed for good; open a new one to continue."))
            }
            if let link = core.link {
                client.registry.remove(link)
                client.transport.close(link, code: 1000, reason: "resuming on a new connection")
                core.link = nil
                linkEnded(
                    CloseInfo(code: 1000, reason: "resuming on a new connection", willReconnect: false), fatal: false,
                    &core, &effects)
            }
            let baseline = JoinBaseline(core)
            core.failedInRow = 0
            do throws(BoardClientError) {
                try openLink(&core)
            } catch {
                return .failure(error)
            }
            return .success(baseline)
        }
        effects.perform(onMessage: nil)
        try await waitForJoin(after: opened.get(), timeout: timeout)
    }

    /// Closes the connection for good: the link closes, waits fail with `closed`, message streams
    /// finish.
    public func close() {
        var effects = Effects()
        core.withLock { core in
            if let link = core.link {
                client.registry.remove(link)
                client.transport.close(link, code: 1000, reason: "client closed")
                core.link = nil
            }
            guard !core.state.isClosed else { return }
            finish(BoardClientError(.closed, "The connection was closed by this client."), &core, &effects)
        }
        effects.perform(onMessage: nil)
    }

    /// Opens the first link; returns the counters to wait for its welcome with.
    func start() throws(BoardClientError) -> JoinBaseline {
        try core.withLock { (core: inout Core) throws(BoardClientError) -> JoinBaseline in
            let baseline = JoinBaseline(core)
            core.failedInRow = 0
            try openLink(&core)
            return baseline
        }
    }

    /// Opens a new transport link to the node a redirect named, or else to the current entry URL;
    /// the hello goes out when it connects.
    func openLink(_ core: inout Core) throws(BoardClientError) {
        let entries = entryURLs
        let url = core.redirect ?? entries[core.entry % entries.count]
        core.redirect = nil
        core.url = url
        core.lastHeard = .now
        core.livenessRef = nil
        do {
            // The connection reconnects itself (it may change URL); the transport never does.
            let link = try client.registry.register(self) { () throws(TransportError) -> ClientConnectionID in
                try client.transport.connect(
                    to: url, subprotocol: ProtocolLimits.subprotocol, origin: options.origin, reconnect: .none,
                    allowSelfSigned: options.allowSelfSigned)
            }
            core.link = link
            core.phase = .connecting
        } catch {
            throw BoardClientError(.connectFailed, "Cannot connect to \(url): \(error).")
        }
    }

    /// The WebSocket URL of the current (or last) link.
    public var currentURL: String { core.withLock { $0.url.isEmpty ? options.url : $0.url } }
}
