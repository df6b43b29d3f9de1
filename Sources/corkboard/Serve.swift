import ArgumentParser
import CorkboardApp
import CorkboardCommandLine
import CorkboardModel
import CorkboardPostgres
import CorkboardServer
import CorkboardStorage
import CorkboardStore
import CorkboardTransport
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

extension Corkboard {
    /// `corkboard serve`: HTTP and WebSocket on one port until SIGINT or SIGTERM.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve boards over HTTP and WebSocket on one port.",
            discussion: """
                Listens on 127.0.0.1:8080 by default: loopback only unless --host says otherwise. \
                The WebSocket endpoint is /ws with subprotocol corkboard.v1; GET /healthz reports health; \
                POST /api/boards creates a board, POST /api/boards/{board}/files uploads an image served \
                at /files/…; every other path is a static file from --web. SIGINT or SIGTERM closes every WebSocket \
                with 1001 and exits within 5 seconds.
                """
        )

        @Option(help: "Address to listen on; 0.0.0.0 for every interface. [env: CORKBOARD_HOST] (default: 127.0.0.1)")
        var host: String?

        @Option(help: "TCP port for HTTP and WebSocket; 0 picks a free one. [env: CORKBOARD_PORT] (default: 8080)")
        var port: Int?

        @Option(help: "Folder of static files served at /. [env: CORKBOARD_WEB] (default: web)")
        var web: String?

        @Option(help: "Folder for the board store. [env: CORKBOARD_DATA] (default: data)")
        var data: String?

        @Option(help: "PEM certificate (chain); with --tls-key the port speaks https/wss. [env: CORKBOARD_TLS_CERT]")
        var tlsCert: String?

        @Option(help: "PEM private key for --tls-cert. [env: CORKBOARD_TLS_KEY]")
        var tlsKey: String?

        @Option(
            name: .customLong("allow-origin"),
            help: """
                A browser origin allowed to open a WebSocket, e.g. https://board.example; repeatable. \
                [env: CORKBOARD_ALLOW_ORIGINS, comma-separated] (default: the server's own origin)
                """
        )
        var allowOrigins: [String] = []

        @Option(
            help: """
                Service threads for connections, each with its own event loop and its share of them. \
                [env: CORKBOARD_THREADS] (default: one per core the process may run on)
                """)
        var threads: Int?

        @Option(
            help: """
                The service threads' event loop: libuv (epoll) or poll. [env: CORKBOARD_EVENT_LOOP] \
                (default: libuv)
                """)
        var eventLoop: String?

        @Option(
            help: """
                How Linux schedules the server's threads: batch (SCHED_BATCH: a woken thread waits for the \
                running one to wait or use up its slice, so a busy core switches between the connections' and \
                the rooms' threads less), normal (SCHED_OTHER), or keep (as the process was started, e.g. \
                under chrt). [env: CORKBOARD_SCHEDULING] (default: batch)
                """)
        var scheduling: String?

        @Option(help: "Largest WebSocket message accepted, in bytes; larger ones close 1009.")
        var maxMessageBytes: Int = 1 << 20

        @Option(
            help: """
                Most WebSocket connections in all; an upgrade past it is answered 503 with Retry-After. \
                0: no limit.
                """)
        var maxConnections: Int = 10_000

        @Option(
            name: .customLong("max-connections-per-ip"),
            help: """
                Most WebSocket connections from one IP address; an upgrade past it is answered 503 with \
                Retry-After. 0: no limit.
                """)
        var maxConnectionsPerIP: Int = 256

        @Option(
            name: .customLong("max-pending-per-ip"),
            help: """
                Most connections from one IP address that are not WebSockets yet (HTTP requests, handshakes); \
                a new one past it is closed at once, so one address cannot stall the server (slowloris). \
                0: no limit.
                """)
        var maxPendingPerIP: Int = 128

        @Option(
            name: .customLong("max-pending"),
            help: """
                Most connections that are not WebSockets yet on each service thread, from every address \
                together (at most 1000: below a thread's 1024 request buffers); a new one past it closes the \
                oldest, so a flood from many addresses cannot make a new request wait. 0: no limit. \
                [env: CORKBOARD_MAX_PENDING] (default: 768)
                """)
        var maxPending: Int?

        @Option(
            name: .customLong("trusted-proxy"),
            help: """
                A reverse proxy whose X-Forwarded-For is believed, as an IPv4 or IPv6 address or CIDR range \
                (e.g. 127.0.0.1 or 10.0.0.0/8); repeatable. From such a peer the client's address (per-address \
                caps, throttles, logs) is the right-most forwarded hop that is not itself trusted; from anyone \
                else the header is ignored. [env: CORKBOARD_TRUSTED_PROXIES, comma-separated] (default: none)
                """)
        var trustedProxies: [String] = []

        @Option(
            help: """
                Also echo every WebSocket message unchanged on this path (no subprotocol needed, same limits), \
                for conformance suites such as Autobahn|Testsuite. Off unless given, e.g. /echo.
                """)
        var echoPath: String?

        @Option(
            help: """
                Largest image or attached file accepted by POST /api/boards/{board}/files, in bytes; \
                files are stored in --data/files. 0 turns uploads off.
                """)
        var maxUploadBytes: Int = 10 << 20

        @Option(
            help: """
                Most boards this server holds; POST /api/boards (the start page's New board) refuses more. \
                0 turns board creation from the browser off.
                """)
        var maxBoards: Int = 1000

        @Option(
            help: """
                Boards POST /api/boards creates per minute for everyone together (each address may create 10); \
                past it creation answers 429 with Retry-After.
                """)
        var boardCreationsPerMinute: Int = 60

        @Flag(
            help: """
                Open the demo board to anyone, with or without a key, for this run (make run does this). \
                The demo board is created at first start either way.
                """)
        var demo = false

        @Option(
            help: """
                Where boards live: sqlite (corkboard.sqlite in --data, survives restarts), memory \
                (lost at exit), or postgres (the PostgreSQL database of --postgres-url, shared by every \
                node of a cluster).
                """)
        var store: String = "sqlite"

        @Option(
            name: .customLong("postgres-url"),
            help: """
                With --store postgres: the database, postgres://USER:PASSWORD@HOST:PORT/DATABASE \
                (?sslmode=disable|prefer|require). The schema is created or upgraded at start. \
                [env: CORKBOARD_POSTGRES_URL]
                """)
        var postgresURL: String?

        @Option(
            name: .customLong("public-url"),
            help: """
                With --store postgres: the WebSocket URL clients use to reach this node, \
                ws://HOST:PORT/ws (other nodes redirect clients there). [env: CORKBOARD_PUBLIC_URL] \
                (default: ws://HOST:PORT/ws of --host and the bound port)
                """)
        var publicURL: String?

        @Option(
            help: """
                With --store postgres: seconds a board's lease lasts without renewal (renewed every \
                sixth of it): a node that dies or stalls loses its boards this long after its last \
                heartbeat. (3)
                """)
        var leaseSeconds: Double = 3

        @Option(
            help: """
                sqlite durability: full (an acknowledged change survives power loss) or normal (survives a \
                server crash, may lose the last changes on power loss).
                """)
        var durability: String = "full"

        @Option(
            help: """
                sqlite: operations waiting in the store's journal that start moving them into the boards' \
                logs, a few boards per transaction (more: fewer page writes, more memory).
                """)
        var journalFoldRows: Int = SQLiteBoardStore.defaultFoldRows

        @OptionGroup var bounds: MemoryBoundsOptions

        @OptionGroup var files: FileCollectionSchedule

        @Option(
            help: """
                Largest a board may grow, in bytes of snapshot (its JSON, as estimated); a change that would \
                pass it is refused too-large. Boards of any size up to it can be joined: large ones are sent \
                in parts. (64 MiB)
                """)
        var maxBoardBytes: Int = SnapshotSize.defaultLimit

        @Option(
            help: """
                Serve Prometheus metrics at /metrics on their own listener, HOST:PORT or PORT (loopback), never on \
                the public port; e.g. 9100 or 10.0.0.5:9100. Off unless given. [env: CORKBOARD_METRICS_LISTEN]
                """)
        var metricsListen: String?

        @Option(
            help: """
                Operations (submit, drop, sync, undo, redo, editBegin, editEnd, listMembers, activity) one connection may send \
                per second on average; past it they are refused rate-limited. 0 turns the limit off.
                """)
        var rateOps: Double = RateLimits.standard.operations.perSecond

        @Option(help: "Operations one connection may send at once (the burst) before --rate-ops applies.")
        var burstOps: Int = RateLimits.standard.operations.burst

        @Option(
            help: """
                Ephemeral updates (cursor, presence, dropUpdate, dragBegin/Add/End, ping) one connection may send \
                per second on average; past it they are dropped. 0 turns the limit off.
                """)
        var rateEphemeral: Double = RateLimits.standard.ephemeral.perSecond

        @Option(
            help: "Ephemeral updates one connection may send at once before --rate-ephemeral applies.")
        var burstEphemeral: Int = RateLimits.standard.ephemeral.burst

        @Option(help: "Save a board snapshot every this many operations (and at shutdown).")
        var snapshotEvery: Int = 1000

        @Option(
            help: """
                Milliseconds between coalesced updates of peers' cursors and presence, and of their drop \
                proposals while the server is busy (otherwise proposals go at once).
                """)
        var tickMs: Int = 33

        @Option(
            help: """
                Longest a peer's drop proposal waits, while the server is not busy, for the board's other \
                proposals to share its socket writes (0: none; each goes as soon as it is handled).
                """)
        var hoverMs: Int = 8

        @Option(
            help: """
                Longest tick while the server is busy: above 75 % of the CPUs it may use, the tick stretches \
                (every board alike) so drops keep their latency; equal to --tick-ms turns stretching off.
                """)
        var tickMaxMs: Int = 500

        @Option(
            help: """
                Log lines as text or json (one object per line: time, level, label, message, metadata); \
                keys and tokens are redacted either way. [env: CORKBOARD_LOG_FORMAT] (default: text)
                """)
        var logFormat: String?

        @Option(help: "Log level: trace, debug, info, notice, warning, error, critical. [env: CORKBOARD_LOG_LEVEL]")
        var logLevel: String?

        @Flag(
            help: """
                Serve even if the WebSocket frame guard is not in libwebsockets' read path (checked at start, \
                which otherwise refuses to serve): clients' unmasked and malformed frames then reach \
                libwebsockets unchecked, and a warning says so. [env: CORKBOARD_ALLOW_UNGUARDED_READS=1] \
                (default: off)
                """)
        var allowUnguardedReads = false

        func validate() throws {
            if (tlsCert == nil) != (tlsKey == nil) {
                throw ValidationError("--tls-cert and --tls-key go together: give both, or neither.")
            }
            if let port, !(0...65535).contains(port) {
                throw ValidationError("--port must be between 0 and 65535, got \(port).")
            }
            guard ["sqlite", "memory", "postgres"].contains(store) else {
                throw ValidationError("--store must be sqlite, memory or postgres, got '\(store)'.")
            }
            if !(0.5...60).contains(leaseSeconds) {
                throw ValidationError("--lease-seconds must be between 0.5 and 60, got \(leaseSeconds).")
            }
            guard SQLiteBoardStore.Durability(rawValue: durability) != nil else {
                throw ValidationError("--durability must be full or normal, got '\(durability)'.")
            }
            if !(1...1_000_000).contains(journalFoldRows) {
                throw ValidationError("--journal-fold-rows must be between 1 and 1000000, got \(journalFoldRows).")
            }
            if snapshotEvery < 1 {
                throw ValidationError("--snapshot-every must be at least 1, got \(snapshotEvery).")
            }
            if !(1...1000).contains(tickMs) {
                throw ValidationError("--tick-ms must be between 1 and 1000, got \(tickMs).")
            }
            if !(0...tickMs).contains(hoverMs) {
                throw ValidationError("--hover-ms must be between 0 and --tick-ms (\(tickMs)), got \(hoverMs).")
            }
            if !(tickMs...5000).contains(tickMaxMs) {
                throw ValidationError(
                    "--tick-max-ms must be between --tick-ms (\(tickMs)) and 5000, got \(tickMaxMs).")
            }
            if maxUploadBytes < 0 {
                throw ValidationError("--max-upload-bytes must be 0 (off) or more, got \(maxUploadBytes).")
            }
            if boardCreationsPerMinute < 1 {
                throw ValidationError(
                    "--board-creations-per-minute must be at least 1, got \(boardCreationsPerMinute).")
            }
            if maxBoards < 0 {
                throw ValidationError("--max-boards must be 0 (off) or more, got \(maxBoards).")
            }
            if maxBoardBytes < 64 << 10 {
                throw ValidationError("--max-board-bytes must be at least 65536, got \(maxBoardBytes).")
            }
            for (value, flag) in [
                (maxConnections, "--max-connections"), (maxConnectionsPerIP, "--max-connections-per-ip"),
                (maxPendingPerIP, "--max-pending-per-ip"),
            ] where value < 0 {
                throw ValidationError("\(flag) must be 0 (no limit) or more, got \(value).")
            }
            if let echoPath, !echoPath.hasPrefix("/") || echoPath == "/ws" {
                throw ValidationError("--echo-path must start with / and not be /ws, got '\(echoPath)'.")
            }
            for (rate, burst, flags) in [
                (rateOps, burstOps, "--rate-ops and --burst-ops"),
                (rateEphemeral, burstEphemeral, "--rate-ephemeral and --burst-ephemeral"),
            ] where !(rate == 0 || (rate > 0 && rate.isFinite && burst >= 1)) {
                throw ValidationError(
                    "\(flags): the rate must be 0 (no limit) or positive with a burst of at least 1, got \(rate) and \(burst)."
                )
            }
            if maxMessageBytes < 1024 {
                throw ValidationError("--max-message-bytes must be at least 1024, got \(maxMessageBytes).")
            }
        }

        func run() async throws {
            let settings = try ServeSettings(self)
            settings.logFormat.bootstrap(level: settings.logLevel)
            var logger = Logger(label: "corkboard")
            logger.logLevel = settings.logLevel
            // Before the store, the transport and the rooms start threads: they inherit the policy.
            var scheduling = settings.scheduling
            do {
                try scheduling.apply()
            } catch let error as ThreadScheduling.SchedulingError where !settings.schedulingIsExplicit {
                logger.warning(
                    "the server's threads keep the scheduling policy they were started with",
                    metadata: ["wanted": "\(scheduling.rawValue)", "error": "\(error.reason)"])
                scheduling = .keep
            }
            try settings.prepareDataFolder()
            // Before the store and the rooms make their metric handles.
            let metrics = settings.metricsListen.map { MetricsExporter(host: $0.host, port: $0.port, logger: logger) }
            metrics?.bootstrap()

            let boardStore: (any BoardStore)?
            let catalog: any BoardCatalog
            var cluster: ClusterSettings?
            switch store {
            case "sqlite":
                let path = SQLiteBoardStore.path(inDataFolder: settings.dataFolder)
                let opened = try SQLiteBoardStore(
                    path: path, durability: SQLiteBoardStore.Durability(rawValue: durability) ?? .full,
                    foldRows: journalFoldRows, foldBytes: bounds.journalFoldBytes)
                boardStore = opened
                catalog = opened
            case "postgres":
                let node = try ClusterNodeSetup(
                    postgresURL: postgresURL, publicURL: publicURL, leaseSeconds: leaseSeconds, settings: settings,
                    logger: logger)
                boardStore = node.store
                catalog = node.store
                cluster = node.cluster
            default:
                boardStore = nil
                catalog = MemoryBoardCatalog()
            }
            let demoBoard = try DemoBoard.ensure(in: catalog)
            var serverConfiguration = settings.serverConfiguration
            serverConfiguration.readWaitObserver = metrics?.readWaitObserver
            let service = try BoardService(
                server: serverConfiguration,
                rooms: RoomConfiguration(
                    tick: .milliseconds(tickMs),
                    tickPacing: tickMaxMs > tickMs ? TickPacing(maximum: .milliseconds(tickMaxMs)) : .off,
                    hoverWindow: .milliseconds(hoverMs),
                    snapshotInterval: snapshotEvery,
                    snapshotBytes: bounds.snapshotBytes,
                    sequencer: bounds.sequencer(maxSnapshotBytes: maxBoardBytes),
                    rateLimits: RateLimits(
                        operations: RateLimit(perSecond: rateOps, burst: burstOps),
                        ephemeral: RateLimit(perSecond: rateEphemeral, burst: burstEphemeral)),
                    undoHistory: bounds.undoHistory),
                catalog: catalog, store: boardStore, openBoards: demo ? [demoBoard.id] : [], cluster: cluster,
                endpoints: HTTPEndpoints(
                    version: Corkboard.version, filesFolder: settings.dataFolder + "/files",
                    maxUploadBytes: maxUploadBytes, maxBoards: maxBoards,
                    boardCreationsPerMinuteTotal: boardCreationsPerMinute, fileCollectionInterval: files.interval,
                    fileGrace: files.collection.grace),
                logger: logger)
            do {
                try service.start()
            } catch {
                guard error.kind == .unguardedReads else { throw error }
                throw CommandFailure(
                    "\(error.message): pass --allow-unguarded-reads or set CORKBOARD_ALLOW_UNGUARDED_READS=1.")
            }
            if let metrics {
                metrics.observe(service)
                try metrics.start()
            }
            if cluster != nil, publicURL == nil, ProcessInfo.processInfo.environment["CORKBOARD_PUBLIC_URL"] == nil {
                let scheme = settings.scheme == "https" ? "wss" : "ws"
                await service.ownership?.setPublicURL("\(scheme)://\(settings.displayHost):\(service.boundPort)/ws")
            }
            // Announced by the last service of the group, so SIGINT and SIGTERM are already handled
            // when anyone reads that the server is up.
            let base = "\(settings.scheme)://\(settings.displayHost):\(service.boundPort)/"
            do {
                try ServedAddress.record(base, inDataFolder: settings.dataFolder)
            } catch {
                logger.warning(
                    "could not record the address for `corkboard boards`; its links may name another port",
                    metadata: ["error": "\(error)"])
            }
            let records = service.directory.records
            let announcement = Announcement { [logger, settings, scheduling] in
                var metadata: Logger.Metadata = [
                    "url": "\(base)", "web": "\(settings.webRoot)", "data": "\(settings.dataFolder)",
                    "scheduling": "\(scheduling.rawValue)",
                ]
                if let ownership = service.ownership {
                    metadata["node"] = "\(ownership.status.node)"
                    metadata["publicURL"] = "\(ownership.status.url)"
                    metadata["store"] = "postgres"
                }
                logger.info("serving", metadata: metadata)
                if let metrics, let listen = settings.metricsListen {
                    let host = listen.host.contains(":") ? "[\(listen.host)]" : listen.host
                    logger.info("metrics", metadata: ["metrics": "http://\(host):\(metrics.boundPort)/metrics"])
                }
                // Keys are passwords: logs name the boards; `corkboard boards` prints their share links.
                let open = records.filter { demo && $0.id == demoBoard.id }.map { "\(base)?board=\($0.id)" }
                logger.info(
                    "boards",
                    metadata: [
                        "boards": "\(records.map(\.id).joined(separator: ", "))",
                        "open": "\(open.joined(separator: ", "))",
                        "links": "run `corkboard boards` for the share links",
                    ])
            }
            // SIGINT or SIGTERM: stop accepting, close every WebSocket 1001, stop the rooms, finish
            // writing; within 5 seconds in all.
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: (service.services(closeTimeout: .seconds(4))
                        + (metrics.map { [MetricsListenerService(exporter: $0)] } ?? []) + [announcement]).map {
                            .init(service: $0)
                        },
                    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
            logger.info("stopped")
        }
    }
}

/// Says the server is up, as the last service of the group: the group handles its signals before
/// it starts any service.
struct Announcement: Service {
    let announce: @Sendable () -> Void

    func run() async throws {
        announce()
        try? await gracefulShutdown()
    }
}
