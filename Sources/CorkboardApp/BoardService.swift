import CorkboardModel
public import CorkboardServer
public import CorkboardStorage
public import CorkboardTransport
public import Logging

/// The HTTP endpoints beside the WebSocket: `/healthz`, image uploads and board creation
/// (docs/PROTOCOL.md, "HTTP endpoints").
public struct HTTPEndpoints: Sendable {
    /// The version `/healthz` reports.
    public var version: String
    /// Where uploaded images are stored (`<data>/files`), or `nil` to offer no uploads.
    public var filesFolder: String?
    /// The largest image accepted, in bytes; 0 turns uploads off.
    public var maxUploadBytes: Int
    /// The most boards the server holds; 0 turns board creation from the browser off.
    public var maxBoards: Int
    /// Boards one remote address may create per minute.
    public var boardCreationsPerMinute: Int
    /// Boards everyone together may create per minute (many addresses cannot fill the server in seconds).
    public var boardCreationsPerMinuteTotal: Int
    /// The period between removals of uploaded files no board refers to (`FileCollector`), `nil`
    /// for none; they need a store.
    public var fileCollectionInterval: Duration?
    /// Seconds an uploaded file is kept whatever refers to it.
    public var fileGrace: Double

    /// Endpoints; the defaults offer neither uploads (no folder) nor board creation.
    public init(
        version: String = "0.0.0", filesFolder: String? = nil, maxUploadBytes: Int = 10 << 20, maxBoards: Int = 0,
        boardCreationsPerMinute: Int = 10, boardCreationsPerMinuteTotal: Int = 60,
        fileCollectionInterval: Duration? = nil, fileGrace: Double = FileCollector.defaultGrace
    ) {
        self.version = version
        self.filesFolder = filesFolder
        self.maxUploadBytes = maxUploadBytes
        self.maxBoards = maxBoards
        self.boardCreationsPerMinute = boardCreationsPerMinute
        self.boardCreationsPerMinuteTotal = boardCreationsPerMinuteTotal
        self.fileCollectionInterval = fileCollectionInterval
        self.fileGrace = fileGrace
    }

    /// Whether uploads are offered.
    public var uploadsEnabled: Bool { filesFolder != nil && maxUploadBytes > 0 }
    /// Whether board creation is offered.
    public var boardCreationEnabled: Bool { maxBoards > 0 }
}

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
    /// On a node of a cluster: which boards this node sequences, and where the others are.
    public let ownership: BoardOwnership?
    /// On a node of a cluster: drops on boards other nodes sequence.
    let remote: RemoteBoards?
    /// The logger every layer was given.
    let logger: Logger
    private let housekeeping: Task<Void, Never>
    /// Removes uploaded files no board refers to, every `HTTPEndpoints.fileCollectionInterval`.
    private let fileCollection: Task<Void, Never>?

    /// Builds the service; nothing listens until `start()`.
    ///
    /// - Parameters:
    ///   - server: The transport's configuration.
    ///   - rooms: How rooms behave (tick, lease and placeholder periods, slow-client bounds).
    ///   - catalog: Where board records live.
    ///   - store: The durable store (the SQLite store for `corkboard serve`); `nil` keeps boards in memory.
    ///   - openBoards: Boards anyone may edit in this run (the `--demo` board).
    ///   - cluster: On a node of a cluster (`corkboard serve --store postgres`): the cluster's shared
    ///     state and this node's public URL. Rooms then start only for the boards this node holds
    ///     the lease of, and other boards' `hello`s are redirected.
    ///   - endpoints: Image uploads and board creation over HTTP (off unless configured).
    ///   - clock: The clock the rooms, the hub and the endpoints read and sleep on (tests move a
    ///     manual one).
    ///   - logger: The logger for every layer.
    /// - Throws: `CatalogError` when the catalog cannot be read.
    public init(
        server configuration: ServerConfiguration, rooms: RoomConfiguration = RoomConfiguration(),
        catalog: any BoardCatalog, store: (any BoardStore)? = nil, openBoards: Set<String> = [],
        cluster: ClusterSettings? = nil, endpoints: HTTPEndpoints = HTTPEndpoints(),
        clock: any BoardClock = SystemBoardClock(), logger: Logger
    ) throws {
        // The gateway needs the server (to close connections) and runs as its event handler, on
        // the service threads: the relay connects the two once both exist.
        let relay = GatewayRelay()
        let server = WebSocketServer(configuration: configuration, logger: logger) { relay.handle($0) }
        let started = ContinuousClock.now
        let throttles = AddressThrottles(logger: logger, now: { (ContinuousClock.now - started) / .seconds(1) })
        server.setAdmissionGate { throttles.admission($0) }
        let sink = TransportSink(server: server, throttles: throttles)
        var configuredRooms = rooms
        if let cluster {
            configuredRooms.resumeTokens = ResumeTokens.derivation(secret: cluster.coordinator.sharedSecret)
        } else if configuredRooms.resumeTokens == nil, let secret = store?.resumeSecret {
            // One node on a store: tokens from the store's secret stay valid after a restart, so a
            // resuming client is still itself and its undo history applies (R10, R13).
            configuredRooms.resumeTokens = ResumeTokens.derivation(secret: secret)
        }
        let rooms = configuredRooms
        let directory = try BoardDirectory(
            catalog: catalog, store: store, configuration: rooms, sink: sink, openBoards: openBoards, clock: clock,
            startsEveryBoard: cluster == nil, logger: logger)
        let ownership = cluster.map {
            BoardOwnership(coordinator: $0.coordinator, directory: directory, publicURL: $0.publicURL, logger: logger)
        }
        let remote = cluster.map {
            RemoteBoards(
                coordinator: $0.coordinator, registry: directory.registry, isKnown: { directory.record($0) != nil },
                logger: logger)
        }
        let hub = BoardHub(
            directory: directory, sink: sink, configuration: rooms, router: ownership,
            joinGate: ThrottledJoins(throttles: throttles), clock: clock, logger: logger)
        var health = HealthEndpoint(
            version: endpoints.version, startedAt: .now, connections: { server.connectionCount }
        ) {
            let storeHealth: String
            if let store {
                storeHealth = store.lastFailure.map { "failing: \($0)" } ?? "ok"
            } else {
                storeHealth = "memory"
            }
            var details: [String: HealthValue] = [
                "boards": .int(directory.records.count), "members": .int(hub.connectionCount),
                "store": .string(storeHealth),
                // R14: the loaded boards' snapshot sizes (estimated) and the limit a board may reach.
                "boardBytes": .int(directory.registry.sizes.total),
                "largestBoardBytes": .int(directory.registry.sizes.largest),
                "maxBoardBytes": .int(rooms.sequencer.maxSnapshotBytes),
                // How often peers get hovers, cursors and presence now: the configured tick, or
                // longer while the server is busy (`TickPacing`).
                "tickMilliseconds": .int(Int(directory.timers.tick(base: rooms.tick) / .milliseconds(1))),
            ]
            if let status = ownership?.status {
                // The node's place in the cluster: its id, its live peers, the boards it sequences now.
                details["node"] = .string(status.node)
                details["publicURL"] = .string(status.url)
                details["peers"] = .list(
                    status.peers.map { .object([("id", .string($0.id)), ("url", .string($0.url))]) })
                details["ownedBoards"] = .list(status.boards.map(HealthValue.string))
                details["database"] = .string(status.database)
            }
            // The browser client uploads images and offers board creation only when these are here.
            if endpoints.uploadsEnabled { details["uploadMaxBytes"] = .int(endpoints.maxUploadBytes) }
            // Advertised only while a board can still be created: not once the server is full.
            if endpoints.boardCreationEnabled && directory.records.count < endpoints.maxBoards {
                details["boardCreation"] = .bool(true)
            }
            return details
        }
        health.isDegraded = {
            store?.lastFailure != nil || ownership?.status.database.hasPrefix("failing") == true
        }
        let healthz = health
        server.addRoute("/healthz") { healthz.respond($0) }
        if let folder = endpoints.filesFolder, endpoints.uploadsEnabled {
            let uploads = UploadEndpoint(directory: directory, folder: folder, maxBytes: endpoints.maxUploadBytes)
            server.addRoute(.post, .prefix(UploadEndpoint.uploadPrefix), maxBodyBytes: endpoints.maxUploadBytes) {
                await uploads.upload($0)
            }
            server.addRoute(.get, .prefix(UploadEndpoint.servePrefix)) { await uploads.serve($0) }
        }
        if endpoints.boardCreationEnabled {
            let creation = BoardCreationEndpoint(
                directory: directory, maxBoards: endpoints.maxBoards, perMinute: endpoints.boardCreationsPerMinute,
                totalPerMinute: endpoints.boardCreationsPerMinuteTotal, clock: clock)
            server.addRoute(.post, .exact("/api/boards"), maxBodyBytes: BoardCreationEndpoint.maxBodyBytes) {
                await creation.handle($0)
            }
            server.addRoute(
                .post, .exact(BoardCreationEndpoint.trelloImportPath), maxBodyBytes: TrelloImport.maxFileBytes
            ) {
                await creation.importTrello($0)
            }
        }
        self.logger = logger
        self.server = server
        self.directory = directory
        self.hub = hub
        self.ownership = ownership
        self.remote = remote
        relay.connect(ConnectionGateway(server: server, hub: hub, logger: logger, throttles: throttles))
        if let folder = endpoints.filesFolder, endpoints.uploadsEnabled, let store,
            let interval = endpoints.fileCollectionInterval
        {
            let collector = FileCollector(folder: folder, grace: endpoints.fileGrace)
            self.fileCollection = Task {
                while !Task.isCancelled {
                    try? await clock.sleep(for: interval)
                    guard !Task.isCancelled else { return }
                    await collector.collectInBackground(store: store, logger: logger)
                }
            }
        } else {
            self.fileCollection = nil
        }
        self.housekeeping = Task {
            while !Task.isCancelled {
                try? await clock.sleep(for: .seconds(1))
                guard !Task.isCancelled else { return }
                hub.closeSilentConnections()
                // A store that failed tries a write, so `/healthz` turns `ok` again once it can save.
                store?.probeWhileFailing()
                directory.refreshKeys()
            }
        }
    }

    /// Starts listening.
    ///
    /// - Throws: `TransportError` when the port cannot be bound or TLS files cannot be loaded.
    public func start() throws(TransportError) { try server.start() }

    /// The port bound (useful with port 0).
    public var boundPort: Int { server.boundPort }

    /// Closes every connection with `code`, stops the rooms and the transport (the same steps as a
    /// graceful shutdown of ``services(closeTimeout:)``, for callers without a `ServiceGroup`).
    public func shutdown(code: Int = 1001, reason: String = "server shutting down", timeout: Duration = .seconds(4))
        async
    {
        await server.shutdown(code: code, reason: reason, timeout: timeout)
        await stopRooms()
    }

    /// Stops the rooms after the events already queued (each saves a snapshot) and the
    /// housekeeping task, and waits for the store to finish writing.
    func stopRooms() async {
        await directory.shutdown()
        housekeeping.cancel()
        fileCollection?.cancel()
    }
}
