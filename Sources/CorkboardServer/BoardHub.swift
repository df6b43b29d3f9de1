import CorkboardProtocol
public import Logging
import Synchronization

/// Routes connections to rooms: decodes every frame (the one place client JSON is read), answers
/// messages that cannot reach a room, and hands the rest to the room the connection joined.
///
/// The executable feeds it the transport's events; tests feed it bytes. It never blocks: rooms get
/// events through their inboxes, in the order each connection sent them.
public final class BoardHub: Sendable {
    private let directory: BoardDirectory
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
    }

    /// Creates a hub over a directory.
    public init(
        directory: BoardDirectory, sink: any ConnectionSink, configuration: RoomConfiguration = RoomConfiguration(),
        clock: any BoardClock = SystemBoardClock(), logger: Logger
    ) {
        self.directory = directory
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
            links.filter { $0.value.room == nil && $0.value.connectedAt < deadline }.map(\.key)
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
        guard let link = links.withLock({ $0[handle] }), !link.closing else { return }
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
        if let room = link.room {
            if admit(message, from: handle) { room.post(.message(handle, message)) }
            return
        }
        guard case .hello(let hello) = message else {
            refuse(handle, ProtocolError(.notJoined, "Send hello before anything else.", ref: message.ref))
            return
        }
        guard let room = directory.room(hello.board) else {
            // Answered exactly like a wrong key (Room.join), so the answer does not tell which
            // board ids exist.
            sink.send(
                WireCodec.encode(
                    .error(
                        ProtocolError(
                            .badKey, "The key opens neither editing nor viewing \(hello.board); check the share link.",
                            field: "key", ref: hello.ref))), to: handle)
            sink.close(handle, code: CloseCode.badKey, reason: "bad key")
            return
        }
        let joined = links.withLock { links -> Bool in
            guard links[handle] != nil else { return false }
            links[handle]?.room = room
            return true
        }
        if joined { room.post(.join(handle, hello)) }
    }

    /// Changes a connection's link under the lock; `nil` when the connection is gone.
    func withLink<T>(_ handle: ConnectionHandle, _ change: (inout Link) -> T) -> T? {
        links.withLock { links in
            guard links[handle] != nil else { return nil }
            return change(&links[handle]!)
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
        let overLimit = links.withLock { links -> Bool in
            guard var link = links[handle] else { return false }
            defer { links[handle] = link }
            return link.invalid.record(at: now, configuration)
        }
        if overLimit {
            logger.notice("closing a connection that keeps sending invalid messages", metadata: ["last": "\(error)"])
            sink.close(handle, code: CloseCode.policyViolation, reason: "too many invalid messages")
        }
    }
}
