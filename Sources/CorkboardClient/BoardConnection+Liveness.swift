import CorkboardProtocol
import CorkboardTransport
import Logging
import Synchronization

extension BoardConnection {
    /// How a connection notices a link that went silent (a stalled server, a dropped network)
    /// long before TCP would: after `pingAfter` without hearing anything it sends the protocol's
    /// `ping` (the server answers `pong`), and after `silenceLimit` of total silence it drops the
    /// link and moves on, as after a lost link (docs/PROTOCOL.md, Liveness).
    ///
    /// A busy board costs nothing: only a link that has been quiet for `pingAfter` gets a ping,
    /// and one at a time.
    public struct Liveness: Sendable, Equatable {
        /// Silence after which a joined link sends a `ping`.
        public var pingAfter: Duration
        /// Total silence after which a link is dropped: on a joined link, or one still opening
        /// (TCP and WebSocket handshake).
        public var silenceLimit: Duration
        /// How long a `hello` may go unanswered before the link is dropped (a cluster node may hold
        /// a hello up to 5 s while its board settles on a node).
        public var welcomeLimit: Duration

        /// Creates a policy; `pingAfter` must be shorter than `silenceLimit`.
        public init(
            pingAfter: Duration = .milliseconds(1500), silenceLimit: Duration = .seconds(5),
            welcomeLimit: Duration = .seconds(10)
        ) {
            precondition(
                pingAfter > .zero && pingAfter < silenceLimit,
                "Liveness: pingAfter (\(pingAfter)) must be positive and shorter than silenceLimit (\(silenceLimit))")
            self.pingAfter = pingAfter
            self.silenceLimit = silenceLimit
            self.welcomeLimit = welcomeLimit
        }

        /// Ping after 1.5 s of silence, drop the link after 5 s, wait up to 10 s for a welcome.
        public static let standard = Liveness()
    }

    /// How often a ``BoardClient`` looks at its connections' silence.
    static let livenessCheckInterval: Duration = .milliseconds(200)

    /// The entry URLs in the order they are tried.
    var entryURLs: [String] { [options.url] + options.alternateURLs }

    /// The link heard from the server (any event): silence starts over.
    func heard(_ core: inout Core) {
        core.lastHeard = .now
    }

    /// Sends a `ping` on a quiet joined link, drops a silent one (called by the client's liveness
    /// task a few times a second).
    func checkLiveness(now: ContinuousClock.Instant) {
        guard let liveness = options.liveness else { return }
        var effects = Effects()
        core.withLock { core in
            guard core.link != nil, !core.state.isClosed else { return }
            let silence = now - core.lastHeard
            let limit = core.phase == .joining ? liveness.welcomeLimit : liveness.silenceLimit
            if silence >= limit {
                dropSilentLink(silence: silence, &core, &effects)
            } else if core.phase == .joined, silence >= liveness.pingAfter, core.livenessRef == nil {
                core.counter += 1
                let ref = "alive\(core.counter)"
                core.livenessRef = ref
                transmit(.ping(ClientMessage.Ping(ref: ref)), &core)
            }
        }
        effects.perform(onMessage: nil)
    }

    /// Closes a link the server stopped answering (4100) and goes on as after a lost link; the next
    /// link goes to an entry URL other than the silent one.
    private func dropSilentLink(silence: Duration, _ core: inout Core, _ effects: inout Effects) {
        guard let link = core.link else { return }
        let opening = core.phase == .connecting
        client.registry.remove(link)
        client.transport.close(link, code: CloseCode.noAnswer, reason: "no answer")
        core.link = nil
        let seconds = Double(silence.components.seconds) + Double(silence.components.attoseconds) / 1e18
        let reason =
            "\(core.url) did not answer for \((seconds * 10).rounded() / 10) s "
            + (opening ? "while connecting" : core.phase == .joining ? "after the hello" : "(not even a ping)")
        logger.notice("dropping a silent link", metadata: ["url": "\(core.url)", "phase": "\(core.phase)"])
        if opening {
            linkCouldNotBeMade(reason, &core, &effects)
            return
        }
        skipEntry(core.url, &core)
        core.redirect = nil
        let delay = reconnectDelay(afterClose: nil, &core)
        linkEnded(CloseInfo(code: nil, reason: reason, willReconnect: delay != nil), fatal: false, &core, &effects)
        if let delay { scheduleReconnect(after: delay, &core) }
    }

    /// A link could not be made (refused, failed handshake, or silent while opening): the next
    /// entry URL is tried at once until each was tried since the last link that connected, then
    /// the reconnect policy decides. A connection that never joined gives up after one round, so
    /// a first join fails with what went wrong rather than a timeout.
    func linkCouldNotBeMade(_ reason: String, _ core: inout Core, _ effects: inout Effects) {
        skipEntry(core.url, &core)
        core.failedInRow += 1
        let delay: Duration? =
            if core.failedInRow < entryURLs.count {
                .zero
            } else if core.state.joinCount == 0 {
                nil
            } else {
                reconnectDelay(afterClose: nil, &core)
            }
        linkEnded(CloseInfo(code: nil, reason: reason, willReconnect: delay != nil), fatal: false, &core, &effects)
        if let delay { scheduleReconnect(after: delay, &core) }
    }

    /// Moves the next link's entry URL past `url` when it is the one the next link would use.
    private func skipEntry(_ url: String, _ core: inout Core) {
        let entries = entryURLs
        for _ in 0..<entries.count where entries[core.entry % entries.count] == url {
            core.entry += 1
        }
    }
}
