import CorkboardProtocol
public import CorkboardTransport
public import Logging
import Synchronization

/// A Swift client of Corkboard servers (protocol `corkboard.v1`): one WebSocket service thread
/// shared by any number of ``BoardConnection``s, each keeping a replica of its board.
///
/// Create one per process, or one per core in a load generator, then open board connections:
///
/// ```swift
/// let client = try BoardClient(logger: logger)
/// let board = try await client.connect(
///     BoardConnection.Options(url: "ws://127.0.0.1:8080/ws", board: "demo", key: editKey, name: "Bot"))
/// let granted = try await board.beginDrag(session: "d1", items: ["demo-gc1"])
/// let ack = try await board.drop(session: "d1", destination: destination)
/// await client.shutdown()
/// ```
///
/// Every incoming message is decoded and applied to its connection's replica on the service thread
/// (so ``BoardConnection/Options/onMessage`` handlers must be quick); the awaiting calls resume on
/// the caller's executor.
public final class BoardClient: Sendable {
    /// The WebSocket client underneath (for its connection count, or raw access in tests).
    public let transport: WebSocketClient
    let logger: Logger
    let registry: ConnectionRegistry
    /// Pings quiet links and drops silent ones (``BoardConnection/Liveness``).
    let liveness: LivenessTimer

    /// Creates a client and starts its service thread.
    ///
    /// - Parameters:
    ///   - configuration: Limits and timeouts shared by every connection (message size, connect
    ///     timeout, TLS for `wss://`).
    ///   - logger: Where the client and its connections log (metadata: board, client id).
    /// - Throws: ``BoardClientError`` with code ``BoardClientError/Code/transport`` when the
    ///   WebSocket client cannot start.
    public init(configuration: ClientConfiguration = ClientConfiguration(), logger: Logger) throws(BoardClientError) {
        let registry = ConnectionRegistry()
        self.registry = registry
        self.logger = logger
        transport = WebSocketClient(configuration: configuration, logger: logger) { event in
            registry.connection(for: event.connectionID)?.handle(event)
        }
        liveness = LivenessTimer(registry)
        do {
            try transport.start()
        } catch {
            liveness.stop()
            throw BoardClientError(.transport, "The WebSocket client could not start: \(error).")
        }
    }

    /// Board connections opened and not closed.
    public var connectionCount: Int { registry.count }

    /// Opens a board connection and returns at once; it joins in the background.
    ///
    /// Use it to open many connections quickly (a load generator), then wait for each with
    /// ``BoardConnection/waitUntilJoined(timeout:)``.
    /// - Throws: ``BoardClientError`` (``BoardClientError/Code/connectFailed``) for an invalid URL.
    public func open(_ options: BoardConnection.Options) throws(BoardClientError) -> BoardConnection {
        try start(options).connection
    }

    private func start(
        _ options: BoardConnection.Options
    ) throws(BoardClientError) -> (connection: BoardConnection, baseline: BoardConnection.JoinBaseline) {
        let connection = BoardConnection(client: self, options: options)
        return (connection, try connection.start())
    }

    /// Opens a board connection and waits for the board's welcome.
    ///
    /// - Parameters:
    ///   - options: The server, board, key and name, and how to resume.
    ///   - timeout: How long to wait for the welcome; `nil` uses `options.timeout`.
    /// - Returns: A joined connection whose replica holds the board.
    /// - Throws: ``BoardClientError``: `refused` with the server's error (bad key, unknown board),
    ///   `connectFailed`, `closed`, or `timedOut`. The connection is closed on failure.
    public func connect(
        _ options: BoardConnection.Options, timeout: Duration? = nil
    ) async throws(BoardClientError) -> BoardConnection {
        let (connection, baseline) = try start(options)
        do {
            try await connection.waitForJoin(after: baseline, timeout: timeout)
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Closes every connection and stops the service thread; returns within `timeout`.
    public func shutdown(timeout: Duration = .seconds(3)) async {
        liveness.stop()
        for connection in registry.connections { connection.close() }
        await transport.shutdown(timeout: timeout)
    }
}

/// The live links of a client by transport connection id, so the service thread can hand each
/// event to its board connection.
final class ConnectionRegistry: Sendable {
    private let links = Mutex<[ClientConnectionID: BoardConnection]>([:])

    func connection(for id: ClientConnectionID) -> BoardConnection? { links.withLock { $0[id] } }

    /// Opens a link and registers it under the same lock, so no event of the new link can arrive
    /// before it is known.
    func register(
        _ connection: BoardConnection, opening open: () throws(TransportError) -> ClientConnectionID
    ) throws(TransportError) -> ClientConnectionID {
        try links.withLock { (links: inout [ClientConnectionID: BoardConnection]) throws(TransportError) in
            let id = try open()
            links[id] = connection
            return id
        }
    }

    func remove(_ id: ClientConnectionID) { _ = links.withLock { $0.removeValue(forKey: id) } }

    var connections: [BoardConnection] {
        var seen = Set<ObjectIdentifier>()
        return links.withLock { $0.values.filter { seen.insert(ObjectIdentifier($0)).inserted } }
    }

    var count: Int { connections.count }
}

extension ClientEvent {
    /// The connection the event is about.
    var connectionID: ClientConnectionID {
        switch self {
        case .connected(let id), .message(let id, _), .disconnected(let id, _, _, _), .failed(let id, _, _): id
        }
    }
}
