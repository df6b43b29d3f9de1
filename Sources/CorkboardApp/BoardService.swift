import CorkboardServer
import CorkboardTransport
import Logging

/// A whole Corkboard server in one value: the WebSocket transport, the board directory with its
/// rooms, and the hub between them. `corkboard serve` runs one; end-to-end tests start one on a
/// free port.
public final class BoardService: Sendable {
    /// The transport.
    public let server: WebSocketServer
    /// The boards and their rooms.
    public let directory: BoardDirectory
    /// The router between connections and rooms.
    public let hub: BoardHub
    private let gateway: Task<Void, Never>
    private let housekeeping: Task<Void, Never>

    /// Builds the service; nothing listens until `start()`.
    ///
    /// - Parameters:
    ///   - server: The transport's configuration.
    ///   - rooms: How rooms behave (tick, lease and placeholder periods, slow-client bounds).
    ///   - catalog: Where board records live.
    ///   - store: The durable store (the SQLite store for `corkboard serve`); `nil` keeps boards in memory.
    ///   - openBoards: Boards anyone may edit in this run (the `--demo` board).
    ///   - logger: The logger for every layer.
    /// - Throws: `CatalogError` when the catalog cannot be read.
    public init(
        server configuration: ServerConfiguration, rooms: RoomConfiguration = RoomConfiguration(),
        catalog: any BoardCatalog, store: (any BoardStore)? = nil, openBoards: Set<String> = [], logger: Logger
    ) throws {
        let server = WebSocketServer(configuration: configuration, logger: logger)
        let sink = TransportSink(server: server)
        let directory = try BoardDirectory(
            catalog: catalog, store: store, configuration: rooms, sink: sink, openBoards: openBoards, logger: logger)
        let hub = BoardHub(directory: directory, sink: sink, configuration: rooms, logger: logger)
        server.setHealthDetails {
            let storeHealth: String
            if let store {
                storeHealth = store.lastFailure.map { "failing: \($0)" } ?? "ok"
            } else {
                storeHealth = "memory"
            }
            return [
                "boards": .int(directory.records.count), "members": .int(hub.connectionCount),
                "store": .string(storeHealth),
            ]
        }
        self.server = server
        self.directory = directory
        self.hub = hub
        let gateway = ConnectionGateway(server: server, hub: hub, logger: logger)
        self.gateway = Task { await gateway.run() }
        self.housekeeping = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                hub.closeSilentConnections()
            }
        }
    }

    /// Starts listening.
    ///
    /// - Throws: `TransportError` when the port cannot be bound or TLS files cannot be loaded.
    public func start() throws(TransportError) { try server.start() }

    /// The port bound (useful with port 0).
    public var boundPort: Int { server.boundPort }

    /// Closes every connection with `code`, stops the rooms and the transport.
    public func shutdown(code: Int = 1001, reason: String = "server shutting down", timeout: Duration = .seconds(4))
        async
    {
        await server.shutdown(code: code, reason: reason, timeout: timeout)
        await directory.shutdown()
        gateway.cancel()
        housekeeping.cancel()
    }
}
