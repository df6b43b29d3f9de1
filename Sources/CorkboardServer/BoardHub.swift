import CorkboardProtocol
public import Logging
import Synchronization

/// Routes connections to rooms: decodes every frame (the one place client JSON is read), answers
/// messages that cannot reach a room, and hands the rest to the room the connection joined.
///
/// The executable feeds it the transport's events; tests feed it bytes. It never blocks: rooms get
/// events through their inboxes, in the order each connection sent them. On a node of a cluster, a
/// `hello` for a board without a room here goes to the `router`, which answers with this node's
/// room (after claiming the board) or a `redirect` to the node that sequences it. On one node, a
/// `hello` for a board whose room has not started waits while the directory loads it. Messages a
/// connection sends while its `hello` waits are kept (up to `waitingLimit`) and reach the room
/// after the join, in order.
public final class BoardHub: Sendable {
    private let directory: BoardDirectory
    private let router: (any BoardRouter)?
    /// The application's throttles, asked before every `hello` joins.
    private let joinGate: (any JoinGate)?
    let sink: any ConnectionSink
    let configuration: RoomConfiguration
    let clock: any BoardClock
    let logger: Logger
    private let links = Mutex<[ConnectionHandle: Link]>([:])

    /// What the hub knows of one connection.
    struct Link {
        var room: Room?
        var connectedAt: BoardTime
        var invalid = InvalidMessageLog()
        /// The connection's rate limits (`RateLimits`), counted once it joined.
        var limiter: ConnectionRateLimiter
        /// Closed for going on past its rate limit: later messages are dropped.
        var closing = false
        /// A `hello` waits for its room (the router's answer, or the board's load); until the
        /// messages kept meanwhile have gone to the room.
        var routing = false
        /// What the connection sent while its `hello` waited, for the room after the join.
        var waiting: [ClientMessage] = []
    }

    /// How many messages a connection may send while its `hello` waits for its room; more are
    /// refused `not-joined`.
    public static let waitingLimit = 64

    /// Creates a hub over a directory (and, on a node of a cluster, a router for boards held
    /// elsewhere); `joinGate` may refuse a `hello` for now (the application's throttles).
    public init(
        directory: BoardDirectory, sink: any ConnectionSink, configuration: RoomConfiguration = RoomConfiguration(),
        router: (any BoardRouter)? = nil, joinGate: (any JoinGate)? = nil, clock: any BoardClock = SystemBoardClock(),
        logger: Logger
    ) {
        self.directory = directory
        self.router = router
        self.joinGate = joinGate
        self.sink = sink
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    /// Connections not yet closed.
    public var connectionCount: Int { links.withLock { $0.count } }

    /// A connection opened.
    public func connected(_ handle: ConnectionHandle) {
        let now = clock.now
        let limiter = ConnectionRateLimiter(configuration.rateLimits)
        links.withLock { $0[handle] = Link(connectedAt: now, limiter: limiter) }
    }

    /// Closes connections that have not joined a board within `RoomConfiguration.helloTimeout`
    /// (4001). `BoardService` calls it every second.
    public func closeSilentConnections() {
        let deadline = clock.now.advanced(by: .zero - configuration.helloTimeout)
        let silent = links.withLock { links in
            links.filter { $0.value.room == nil && !$0.value.routing && $0.value.connectedAt < deadline }.map(\.key)
        }
        for handle in silent {
            sink.send(
                WireCodec.encode(
                    .error(
                        ProtocolError(
                            .notJoined,
                            "No hello arrived within \(configuration.helloTimeout.components.seconds) s of connecting.")
                    )),
                to: handle)
            sink.close(handle, code: CloseCode.helloTimeout, reason: "no hello")
        }
    }

    /// A connection sent a whole message.
    public func received(_ handle: ConnectionHandle, bytes: some Collection<UInt8>, isText: Bool) {
        // What this needs of the link, not a copy of all of it (its logs, its limiter) per message.
        let found = withLink(handle) { (room: $0.room, closing: $0.closing, routing: $0.routing) }
        guard let link = found, !link.closing else { return }
        let message: ClientMessage
        do throws(ProtocolError) {
            guard isText else {
                throw ProtocolError(.badJSON, "Binary frames are not part of the protocol; send JSON text frames.")
            }
            message = try WireCodec.decodeClientMessage(bytes)
        } catch {
            if let room = link.room {
                room.post(.invalid(handle, error))
            } else if error.code == .unsupportedProtocol {
                sink.send(WireCodec.encode(.error(error)), to: handle)
                sink.close(handle, code: CloseCode.unsupportedProtocol, reason: "unsupported protocol")
            } else {
                refuse(handle, error)
            }
            return
        }
        if link.routing {
            switch keep(message, from: handle) {
            case .kept: return
            case .joined(let room):
                if admit(message, from: handle) { room.post(.message(handle, message)) }
                return
            case .notKept: break
            }
        }
        if let room = link.room {
            if admit(message, from: handle) { room.post(.message(handle, message)) }
            return
        }
        guard case .hello(let hello) = message else {
            let reason = link.routing ? "Wait for welcome: " : ""
            refuse(
                handle, ProtocolError(.notJoined, "\(reason)Send hello before anything else.", ref: message.ref))
            return
        }
        if link.routing {
            refuse(handle, ProtocolError(.alreadyJoined, "A hello of this connection is on its way.", ref: hello.ref))
            return
        }
        if let refusal = joinGate?.refusal(for: handle, board: hello.board) {
            refuseForNow(handle, hello, refusal)
            return
        }
        if hello.asksForPerson {
            // An invite to claim or a device to find: a catalog transaction, off this thread.
            links.withLock { $0[handle]?.routing = true }
            Task {
                switch await directory.resolvePerson(hello) {
                case .success(let person): await route(handle, hello, as: person)
                case .failure(let error): refusePerson(handle, error)
                }
            }
            return
        }
        if let room = directory.registry.room(hello.board), join(handle, hello, nil, room) { return }
        links.withLock { $0[handle]?.routing = true }
        Task { await route(handle, hello, as: nil) }
    }

    /// Finds the room of a `hello`'s board and joins it (as `person` when resolved): the room
    /// running here, the board loaded (one node), or the node the router names (a cluster).
    private func route(_ handle: ConnectionHandle, _ hello: ClientMessage.Hello, as person: PersonJoin?) async {
        if let room = directory.registry.room(hello.board), join(handle, hello, person, room) { return }
        if directory.startsEveryBoard {
            // The board's room has not started (or just stopped): load it off this thread.
            if let room = await directory.openRoom(hello.board), join(handle, hello, person, room) { return }
            refuseKey(handle, hello)
            return
        }
        guard let router else {
            refuseKey(handle, hello)
            return
        }
        for _ in 0..<3 {
            switch await router.route(board: hello.board, key: hello.key, admitted: person != nil) {
            case .local(let room):
                // The room may have handed the board over meanwhile: route again.
                if join(handle, hello, person, room) { return }
            case .redirect(let url, let reason):
                redirect(handle, hello, url: url, reason: reason)
                return
            case .refused:
                refuseKey(handle, hello)
                return
            }
        }
        redirect(handle, hello, url: nil, reason: "this board is moving between servers; try again")
    }

    /// Answers a `hello` whose invite or device the catalog refused: its error, then close 4003
    /// (a failed join, counted by the throttle like a wrong key), or 1011 when the catalog failed.
    private func refusePerson(_ handle: ConnectionHandle, _ error: ProtocolError) {
        stopWaiting(handle)
        sink.send(WireCodec.encode(.error(error)), to: handle)
        if error.code == .internalError {
            sink.close(handle, code: CloseCode.internalError, reason: "the board's people could not be read")
        } else {
            sink.close(handle, code: CloseCode.badKey, reason: error.code.rawValue)
        }
    }

    /// Joins a connection to a room, then hands it what the connection sent while its `hello`
    /// waited; `false` when the room has stopped (another node took its board).
    private func join(
        _ handle: ConnectionHandle, _ hello: ClientMessage.Hello, _ person: PersonJoin?, _ room: Room
    ) -> Bool {
        // `routing` stays set until the kept messages are posted, so later ones queue behind them.
        let joined =
            withLink(handle) { link -> Bool in
                link.room = room; return true
            } ?? false
        guard joined else { return true }  // the connection closed meanwhile
        let event: RoomEvent = person.map { .joinPerson(handle, hello, $0) } ?? .join(handle, hello)
        guard room.post(event) else {
            links.withLock { $0[handle]?.room = nil }
            return false
        }
        while true {
            let kept =
                withLink(handle) { link -> [ClientMessage] in
                    defer { link.waiting.removeAll() }
                    if link.waiting.isEmpty { link.routing = false }
                    return link.waiting
                } ?? []
            if kept.isEmpty { return true }
            for message in kept where admit(message, from: handle) { room.post(.message(handle, message)) }
        }
    }

    /// What became of a message that arrived while the connection's `hello` waited for its room.
    private enum Keeping {
        /// Kept for the room, behind the messages kept before it.
        case kept
        /// The join finished meanwhile: the message goes to this room now.
        case joined(Room)
        /// Not kept (too many kept, a second `hello`, or the `hello` was refused): answered like
        /// any message before a join.
        case notKept
    }

    /// Keeps a message that arrived while the connection's `hello` waits for its room.
    private func keep(_ message: ClientMessage, from handle: ConnectionHandle) -> Keeping {
        withLink(handle) { link -> Keeping in
            guard link.routing else { return link.room.map { .joined($0) } ?? .notKept }
            guard link.waiting.count < Self.waitingLimit else { return .notKept }
            // A second hello before the room is known: refused at once.
            if case .hello = message, link.room == nil { return .notKept }
            link.waiting.append(message)
            return .kept
        } ?? .notKept
    }

    /// Answers a `hello` for an unknown board exactly like a wrong key (Room.join), so the answer
    /// does not tell which board ids exist.
    private func refuseKey(_ handle: ConnectionHandle, _ hello: ClientMessage.Hello) {
        stopWaiting(handle)
        sink.send(
            WireCodec.encode(
                .error(
                    ProtocolError(
                        .badKey, "The key opens neither editing nor viewing \(hello.board); check the share link.",
                        field: "key", ref: hello.ref))), to: handle)
        sink.close(handle, code: CloseCode.badKey, reason: "bad key")
    }

    /// Answers a `hello` the join gate refuses for now: `error` `rate-limited` with the wait, then
    /// close 1008 saying why and how long to wait (the connection's other boards are not its
    /// business: a new connection may join them).
    private func refuseForNow(_ handle: ConnectionHandle, _ hello: ClientMessage.Hello, _ refusal: JoinRefusal) {
        sink.send(
            WireCodec.encode(
                .error(
                    ProtocolError(
                        .rateLimited, "Refused for now: \(refusal.message); try again in \(refusal.retryAfter) s.",
                        field: "board", ref: hello.ref))), to: handle)
        sink.close(handle, code: CloseCode.policyViolation, reason: refusal.closeReason)
    }

    /// Sends a connection to the node that sequences the board (or back to its entry URLs).
    private func redirect(_ handle: ConnectionHandle, _ hello: ClientMessage.Hello, url: String?, reason: String) {
        stopWaiting(handle)
        let message = ServerMessage.Redirect(ref: hello.ref, board: hello.board, url: url, reason: reason)
        sink.send(WireCodec.encode(.redirect(message)), to: handle)
        sink.close(handle, code: CloseCode.moved, reason: String(reason.prefix(100)))
    }

    /// The connection's `hello` has its answer and no room: what it sent meanwhile is dropped.
    private func stopWaiting(_ handle: ConnectionHandle) {
        withLink(handle) { link in
            link.routing = false
            link.waiting.removeAll()
        }
    }

    /// Reads or changes a connection's link where it lies, under the lock, with one lookup;
    /// `nil` when the connection is gone. The dictionary's getter (`links[handle]`, even to test
    /// it against `nil`) would copy the whole link, retaining its room and its logs, and the hub
    /// reads a link for every message.
    func withLink<T>(_ handle: ConnectionHandle, _ change: (inout Link) -> T) -> T? {
        links.withLock { links in
            guard let index = links.index(forKey: handle) else { return nil }
            return change(&links.values[index])
        }
    }

    /// A connection closed.
    public func disconnected(_ handle: ConnectionHandle) {
        let link = links.withLock { $0.removeValue(forKey: handle) }
        link?.room?.post(.leave(handle))
    }

    /// Answers an invalid message from a connection that has not joined; closes it 1008 when it
    /// keeps sending them.
    private func refuse(_ handle: ConnectionHandle, _ error: ProtocolError) {
        sink.send(WireCodec.encode(.error(error)), to: handle)
        let now = clock.now
        let overLimit = withLink(handle) { $0.invalid.record(at: now, configuration) } ?? false
        if overLimit {
            logger.notice("closing a connection that keeps sending invalid messages", metadata: ["last": "\(error)"])
            sink.close(handle, code: CloseCode.policyViolation, reason: "too many invalid messages")
        }
    }
}
