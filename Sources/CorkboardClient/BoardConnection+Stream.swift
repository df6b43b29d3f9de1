import CorkboardModel
import CorkboardProtocol
import CorkboardTransport
import Logging
import Synchronization

extension BoardConnection {
    /// The link's progress.
    enum Phase: Equatable {
        /// Waiting for the transport to connect.
        case connecting
        /// Connected; `hello` sent, waiting for the welcome.
        case joining
        /// Welcome received: messages may be sent.
        case joined
        /// No link; ``BoardConnection/resume(timeout:)`` opens one.
        case disconnected
        /// Closed for good.
        case closed
    }

    /// Everything behind the connection's lock.
    struct Core {
        var state: BoardState
        /// Whether `state.replica` holds a board (from the options or a welcome).
        var hasReplica = false
        var link: ClientConnectionID?
        var phase = Phase.connecting
        /// Ask for a snapshot on the next join (after the replica diverged).
        var wantsSnapshot = false
        /// Submits and drops sent on this link and not yet answered: ref → opId.
        var inflight: [String: String] = [:]
        var waiters: [UInt64: Waiter] = [:]
        var subscribers: [UInt64: AsyncStream<ServerMessage>.Continuation] = [:]
        /// Numbers refs, opIds, sessions, waiters and subscribers.
        var counter: UInt64 = 0
        /// A `sync` is in flight after a gap in seqs.
        var syncing = false
        /// A snapshot arriving in parts (R14), and the messages that came meanwhile.
        var loading: SnapshotLoad?
        /// The URL of the current (or last) link.
        var url = ""
        /// Which entry URL the next link uses (rotates after a link could not be made).
        var entry = 0
        /// The node a `redirect` named: the next link goes there.
        var redirect: String?
        /// Redirects followed, and reconnects tried, since the last welcome.
        var redirects = 0
        var attempts = 0
        /// Links in a row that could not be made, since the last that connected (or the last
        /// explicit start or resume): each entry URL is tried once at once before the policy waits.
        var failedInRow = 0
        /// When the current link last heard from the server (or was opened), for ``Liveness``.
        var lastHeard = ContinuousClock.now
        /// The `ref` of the liveness `ping` in flight, if any; its `pong` is not delivered.
        var livenessRef: String?
    }

    /// A snapshot being assembled from `snapshotPart` messages: the `welcome` that announced it (or
    /// `nil` for a `synced`), and every other message received since, handled once it is complete.
    struct SnapshotLoad {
        var assembler: SnapshotAssembler
        var welcome: ServerMessage.Welcome?
        var buffered: [ServerMessage] = []
    }

    /// Work to do after the lock is released: resume waiters, deliver messages, finish streams.
    struct Effects {
        var resumptions: [(CheckedContinuation<WaitResult, Never>, WaitResult, Task<Void, Never>?)] = []
        var delivered: [ServerMessage] = []
        /// The streams to deliver to (taken under the lock when something is delivered).
        var subscribers: [AsyncStream<ServerMessage>.Continuation] = []
        var finished: [AsyncStream<ServerMessage>.Continuation] = []

        func perform(onMessage: (@Sendable (ServerMessage) -> Void)?) {
            for (continuation, result, timer) in resumptions {
                timer?.cancel()
                continuation.resume(returning: result)
            }
            for message in delivered {
                onMessage?(message)
                for subscriber in subscribers { subscriber.yield(message) }
            }
            for subscriber in finished { subscriber.finish() }
        }
    }

    // MARK: Events

    /// Handles one transport event (on the client's service thread).
    func handle(_ event: ClientEvent) {
        var effects = Effects()
        core.withLock { core in
            guard event.connectionID == core.link else { return }
            heard(&core)
            switch event {
            case .connected:
                core.phase = .joining
                core.failedInRow = 0
                sendHello(&core)
            case .message(_, let inbound):
                receive(inbound.bytes, &core, &effects)
            case .disconnected(_, let code, let reason, _):
                let fatal = BoardConnection.isFatal(code)
                let delay = fatal ? nil : reconnectDelay(afterClose: code, &core)
                let info = CloseInfo(code: code, reason: reason, willReconnect: delay != nil)
                linkEnded(info, fatal: fatal, &core, &effects)
                if let delay { scheduleReconnect(after: delay, &core) }
            case .failed(_, let error, _):
                // The link could not be made: the next one tries the next entry URL.
                linkCouldNotBeMade("\(error)", &core, &effects)
            }
            settleStateWaiters(&core, &effects)
            if !effects.delivered.isEmpty { effects.subscribers = Array(core.subscribers.values) }
        }
        effects.perform(onMessage: options.onMessage)
    }

    // MARK: Messages

    func receive(_ bytes: [UInt8], _ core: inout Core, _ effects: inout Effects) {
        let message: ServerMessage
        do {
            message = try WireCodec.decodeServerMessage(bytes)
        } catch {
            logger.warning("undecodable server message", metadata: ["error": "\(error)"])
            core.state.streamProblems.append("An undecodable message arrived: \(error)")
            return
        }
        if case .pong(let pong) = message, pong.ref != nil, pong.ref == core.livenessRef {
            // The answer to a liveness ping: the link is alive; nobody asked for it.
            core.livenessRef = nil
            core.state.head = max(core.state.head, pong.head)
            return
        }
        if options.recordsHistory { core.state.history.append(message) }
        if core.loading != nil, !message.announcesSnapshotParts {
            if case .snapshotPart(let part) = message {
                continueLoad(part, bytes: bytes.count, &core, &effects)
                if options.onMessage != nil || !core.subscribers.isEmpty { effects.delivered.append(message) }
            } else {
                core.loading!.buffered.append(message)
            }
            return
        }
        process(message, &core, &effects)
    }

    /// Handles one message in stream order: the replica, the state, the waiters, the subscribers.
    func process(_ message: ServerMessage, _ core: inout Core, _ effects: inout Effects) {
        var answeredOpID: String?
        switch message {
        case .welcome(let welcome) where welcome.snapshotParts != nil && welcome.snapshot == nil:
            // The board follows in parts; the welcome counts once they are all here.
            beginLoad(welcome.snapshotParts!, welcome: welcome, &core)
            return
        case .welcome(let welcome): install(welcome, &core, &effects)
        case .ack(let ack):
            answeredOpID = ack.opId
            acknowledge(ack, &core, &effects)
        case .op(let committed): applyStream(committed, &core, &effects)
        case .synced(let synced) where synced.snapshotParts != nil && synced.snapshot == nil:
            core.syncing = false
            core.state.head = max(core.state.head, synced.head)
            beginLoad(synced.snapshotParts!, welcome: nil, &core)
        case .synced(let synced): installSynced(synced, &core, &effects)
        case .snapshotPart(let part):
            // Not assembling anything: a part of a transfer this client no longer follows.
            logger.debug("ignoring a stray snapshot part", metadata: ["seq": "\(part.seq)", "part": "\(part.part)"])
        case .dragGranted(let granted):
            var items = core.state.ownDrags[granted.session] ?? []
            for item in granted.granted where !items.contains(item) { items.append(item) }
            if !items.isEmpty { core.state.ownDrags[granted.session] = items }
        case .dragStarted(let drag):
            core.state.drags.removeAll { $0.member == drag.member && $0.session == drag.session }
            core.state.drags.append(drag)
        case .dragItems(let update):
            if let index = dragIndex(update.member, update.session, core) {
                core.state.drags[index].items = update.items
            }
        case .dragHover(let hover):
            if let index = dragIndex(hover.member, hover.session, core) {
                core.state.drags[index].target = hover.target
                core.state.drags[index].proposal = hover.proposal
            }
        case .dragEnded(let ended):
            core.state.drags.removeAll { $0.member == ended.member && $0.session == ended.session }
        case .membersChanged(let changes):
            let left = Set(changes.left)
            if !left.isEmpty {
                core.state.members.removeAll { left.contains($0.id) }
                core.state.drags.removeAll { left.contains($0.member) }
            }
            core.state.learn(changes.joined)
            core.state.memberCount = changes.count
        case .memberList(let list):
            core.state.learn(list.members)
            core.state.memberCount = list.count
        case .pong(let pong): core.state.head = max(core.state.head, pong.head)
        case .error(let error):
            core.state.lastError = error
            core.state.errorCount += 1
            if let ref = error.ref, let opID = core.inflight.removeValue(forKey: ref) {
                answeredOpID = opID
                core.state.replica.reject(opId: opID)
            }
            logger.debug("server error", metadata: ["error": "\(error)"])
        case .redirect(let redirect):
            // The connection closes 4005 next; the next link goes to the node named.
            core.redirect = redirect.url
            logger.debug("redirected", metadata: ["to": "\(redirect.url ?? "-")", "reason": "\(redirect.reason)"])
        case .editGranted(let granted):
            if let member = core.state.welcome?.member.id { core.state.edits[granted.item] = member }
        case .editStarted(let edit): core.state.edits[edit.item] = edit.member
        case .editEnded(let ended):
            if core.state.edits[ended.item] == ended.member { core.state.edits[ended.item] = nil }
        case .undoable(let undoable): core.state.undoable = undoable
        case .roleChanged(let changed):
            // An admin changed this person's role, or the board's links (issue 45).
            core.state.welcome?.member.role = changed.role
            core.state.welcome?.keys = changed.keys
        case .proposal, .cursor, .presence, .editRefused, .activity, .activityPage, .people: break
        }
        answerWaiters(message, ref: message.ref, opID: answeredOpID, &core, &effects)
        if options.onMessage != nil || !core.subscribers.isEmpty { effects.delivered.append(message) }
    }

    func dragIndex(_ member: String, _ session: String, _ core: Core) -> Int? {
        core.state.drags.firstIndex { $0.member == member && $0.session == session }
    }

    /// A welcome: initialize or bring the replica up to date, then resend pending operations.
    func install(_ welcome: ServerMessage.Welcome, _ core: inout Core, _ effects: inout Effects) {
        let resumable = core.hasReplica && core.state.replica.clientId == welcome.member.clientId
        if let snapshot = welcome.snapshot {
            if resumable {
                core.state.replica.reset(board: snapshot.board, seq: snapshot.seq)
            } else {
                core.state.replica = ClientReplica(
                    clientId: welcome.member.clientId, board: snapshot.board, seq: snapshot.seq)
            }
            core.state.joinedWith = .snapshot(seq: snapshot.seq)
        } else if resumable, let ops = welcome.ops {
            for committed in ops { applyStream(committed, &core, &effects) }
            core.state.joinedWith = .operations(count: ops.count)
        } else {
            core.state.streamProblems.append(
                "The welcome carried neither a snapshot nor operations this replica can use.")
        }
        core.hasReplica = true
        core.wantsSnapshot = false
        var stored = welcome
        stored.snapshot = nil
        stored.ops = nil
        core.state.welcome = stored
        core.state.members = welcome.members
        core.state.memberCount = welcome.memberCount
        core.state.drags = welcome.drags.filter { $0.member != welcome.member.id }
        core.state.edits = Dictionary(welcome.edits.map { ($0.item, $0.member) }, uniquingKeysWith: { $1 })
        core.state.undoable = welcome.undoable
        core.state.head = max(core.state.head, welcome.head)
        core.state.isJoined = true
        core.state.joinCount += 1
        core.phase = .joined
        core.redirects = 0
        core.attempts = 0
        for envelope in core.state.replica.pending { transmitSubmit(envelope, session: nil, &core) }
        logger.debug(
            "joined",
            metadata: [
                "client": "\(welcome.member.clientId)", "member": "\(welcome.member.id)", "head": "\(welcome.head)",
                "resent": "\(core.state.replica.pending.count)",
            ])
    }

    func installSynced(_ synced: ServerMessage.Synced, _ core: inout Core, _ effects: inout Effects) {
        core.syncing = false
        core.state.head = max(core.state.head, synced.head)
        if let snapshot = synced.snapshot {
            core.state.replica.reset(board: snapshot.board, seq: snapshot.seq)
            core.state.joinedWith = .snapshot(seq: snapshot.seq)
        } else {
            for committed in synced.ops ?? [] { applyStream(committed, &core, &effects) }
        }
    }

    /// This client's own operation answered: a commit is the stream entry for its seq.
    func acknowledge(_ ack: ServerMessage.Ack, _ core: inout Core, _ effects: inout Effects) {
        if let ref = ack.ref { core.inflight[ref] = nil }
        if let board = ack.board, board != options.board { return }
        switch ack.outcome {
        case .committed(let committed) where committed.seq > core.state.replica.confirmedSeq:
            applyStream(committed, &core, &effects)
        case .committed, .rejected:
            core.state.replica.acknowledge(opId: ack.opId, outcome: ack.outcome)
        }
    }

    /// Applies the next committed operation; asks for the missing ones after a gap, and starts
    /// over from a snapshot if the replica diverged.
    func applyStream(_ committed: CommittedOperation, _ core: inout Core, _ effects: inout Effects) {
        let confirmed = core.state.replica.confirmedSeq
        core.state.head = max(core.state.head, committed.seq)
        guard committed.seq > confirmed else { return }
        guard committed.seq == confirmed + 1 else {
            if !core.syncing, core.phase == .joined {
                core.syncing = true
                logger.notice(
                    "gap in the committed stream", metadata: ["have": "\(confirmed)", "got": "\(committed.seq)"])
                transmit(.sync(ClientMessage.Sync(lastSeq: confirmed)), &core)
            }
            return
        }
        do {
            try core.state.replica.applyCommitted(committed)
        } catch {
            logger.error("replica diverged; resuming from a snapshot", metadata: ["error": "\(error)"])
            core.state.streamProblems.append(error.description)
            restartFromSnapshot(&core, &effects)
        }
    }

    /// Drops the link and joins again asking for a snapshot (the replica no longer matches).
    func restartFromSnapshot(_ core: inout Core, _ effects: inout Effects) {
        core.wantsSnapshot = true
        if let link = core.link {
            client.registry.remove(link)
            client.transport.close(link, code: 1000, reason: "resyncing")
            core.link = nil
        }
        let info = CloseInfo(code: 1000, reason: "resyncing after the replica diverged", willReconnect: true)
        linkEnded(info, fatal: false, &core, &effects)
        do throws(BoardClientError) {
            try openLink(&core)
        } catch {
            core.phase = .disconnected
            core.state.streamProblems.append("Could not reconnect to resync: \(error)")
        }
    }

    // MARK: Sending

    func transmit(_ message: ClientMessage, _ core: inout Core) {
        guard let link = core.link else { return }
        client.transport.send(bytes: WireCodec.encode(message), isText: true, to: link)
    }

    func transmitSubmit(_ envelope: ClientOperation, session: String?, _ core: inout Core) {
        guard core.phase == .joined else { return }
        core.counter += 1
        let ref = "s\(core.counter)"
        core.inflight[ref] = envelope.opId
        transmit(
            .submit(
                ClientMessage.Submit(
                    ref: ref, opId: envelope.opId, base: envelope.base, op: envelope.op, session: session)), &core)
    }

    func submitLocally(_ op: BoardOperation, opID: String, session: String?, _ core: inout Core)
        throws(BoardClientError)
    {
        guard core.hasReplica, !core.state.isClosed else { throw notJoined("submit \(op.kind)") }
        let envelope = core.state.replica.submitLocal(op, opId: opID)
        transmitSubmit(envelope, session: session, &core)
    }

    func dropLocally(
        session: String, destination: Destination, copy: Bool, board: String?, key: String?, opID: String,
        _ core: inout Core
    ) throws(BoardClientError) {
        // A drag lives only as long as the link that began it.
        guard core.hasReplica, core.phase == .joined else { throw notJoined("drop drag \(session)") }
        let here = board == nil || board == options.board
        let items = core.state.ownDrags.removeValue(forKey: session) ?? []
        var base = 0
        if here {
            base = core.state.replica.confirmedSeq
            if !items.isEmpty {
                let op: BoardOperation =
                    copy
                    ? .copy(BoardOperation.Copy(items: items, destination: destination))
                    : .move(BoardOperation.Move(items: items, destination: destination))
                base = core.state.replica.submitLocal(op, opId: opID).base
            }
        }
        core.counter += 1
        let ref = "p\(core.counter)"
        core.inflight[ref] = opID
        transmit(
            .drop(
                ClientMessage.Drop(
                    ref: ref, session: session, opId: opID, base: base, destination: destination,
                    copy: copy ? true : nil, board: here ? nil : board, key: key)), &core)
    }
}
