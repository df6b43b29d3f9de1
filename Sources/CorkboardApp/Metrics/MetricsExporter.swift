public import CoreMetrics
import CorkboardServer
import CorkboardStorage
public import CorkboardTransport
public import Logging
import Prometheus
public import ServiceLifecycle
import Synchronization

/// `/metrics` in Prometheus' text format, on its own listener (`corkboard serve --metrics-listen`),
/// never on the public port.
///
/// The rooms, the hub and the store record through swift-metrics handles as they work;
/// ``bootstrap()`` makes those handles Prometheus series in this exporter's registry. What the
/// transport and the directory already count (connections, loaded boards, frames written,
/// refused connections, the transport's slow-consumer closes) is read at each scrape and brought
/// into the same series, so those cost nothing per frame.
///
/// The listener is a second, small `WebSocketServer` (one service thread, its own port, HTTP only:
/// every WebSocket upgrade is answered 404), so `/metrics` gets the public port's HTTP parsing,
/// header limits and connection caps with no second HTTP implementation.
public final class MetricsExporter: Sendable {
    /// The listener; bound by ``start()``.
    public let listener: WebSocketServer
    private let registry: PrometheusCollectorRegistry
    private let factory: CorkboardMetricsFactory
    private let sampled = Mutex<Sampled?>(nil)

    /// The scrape-time series and the transport's counts they last reported.
    private struct Sampled {
        let connections: CoreMetrics.Gauge
        let boardsLoaded: CoreMetrics.Gauge
        let tick: CoreMetrics.Gauge
        let framesSent: CoreMetrics.Counter
        let transportSlowCloses: CoreMetrics.Counter
        let refused: [ConnectionRefusalReason: CoreMetrics.Counter]
        let read: @Sendable () -> Reading
        var last = Reading()
    }

    /// What one scrape reads from the transport and the directory.
    struct Reading: Sendable {
        var connections = 0
        var boardsLoaded = 0
        /// The rooms' tick now (stretched while the server is busy), in seconds.
        var tickSeconds = 0.0
        var framesWritten = 0
        var slowConsumers = 0
        var refused: [ConnectionRefusalReason: Int] = [:]
    }

    /// An exporter listening on `host`:`port` (0 picks a free port; read ``boundPort``).
    public init(host: String, port: Int, logger: Logger) {
        registry = PrometheusCollectorRegistry()
        factory = CorkboardMetricsFactory(registry: registry)
        listener = WebSocketServer(
            configuration: ServerConfiguration(
                host: host, port: port, threads: 1, maxConnections: 64, maxConnectionsPerAddress: 16,
                maxPendingConnectionsPerAddress: 16, acceptsWebSockets: false),
            logger: logger)
        listener.addRoute(.get, .exact("/metrics")) { [self] _ in self.scrape() }
    }

    /// Makes this exporter the process's metrics backend: every swift-metrics handle made afterwards
    /// (`ServerMetrics.system`, `StoreMetrics.system`, …) is a series of ``scrape()``. Once per
    /// process, before the service and the store are built.
    public func bootstrap() { MetricsSystem.bootstrap(factory) }

    /// What ``ServerConfiguration/readWaitObserver`` calls for the public port: each timed read's
    /// wait into `corkboard_read_wait_seconds`. Set it on the configuration the service starts
    /// with (the transport times only sockets adopted while it is set).
    public var readWaitObserver: @Sendable (Duration) -> Void {
        let histogram = CoreMetrics.Timer(label: MetricCatalog.Transport.readWait, factory: factory)
        return { histogram.record($0) }
    }

    /// The swift-metrics factory over this exporter's registry (tests use it without bootstrapping).
    public var metricsFactory: any MetricsFactory { factory }

    /// Reads the transport and the directory of `service` at each scrape.
    public func observe(_ service: BoardService) {
        let server = service.server
        let registry = service.directory.registry
        let timers = service.directory.timers
        let tick = service.directory.configuration.tick
        let read: @Sendable () -> Reading = {
            Reading(
                connections: server.connectionCount, boardsLoaded: registry.all.count,
                tickSeconds: timers.tick(base: tick) / .seconds(1),
                framesWritten: server.framesWrittenCount, slowConsumers: server.slowConsumerCount,
                refused: server.refusedConnectionCounts)
        }
        var refused: [ConnectionRefusalReason: CoreMetrics.Counter] = [:]
        for reason in ConnectionRefusalReason.allCases {
            refused[reason] = CoreMetrics.Counter(
                label: MetricCatalog.Sampled.connectionsRefused, dimensions: [("reason", reason.rawValue)],
                factory: factory)
        }
        let series = Sampled(
            connections: CoreMetrics.Gauge(label: MetricCatalog.Sampled.connections, factory: factory),
            boardsLoaded: CoreMetrics.Gauge(label: MetricCatalog.Sampled.boardsLoaded, factory: factory),
            tick: CoreMetrics.Gauge(label: MetricCatalog.Sampled.tick, factory: factory),
            framesSent: CoreMetrics.Counter(label: MetricCatalog.Sampled.framesSent, factory: factory),
            transportSlowCloses: CoreMetrics.Counter(
                label: ServerMetrics.Name.slowConsumerCloses, dimensions: [("by", "transport")], factory: factory),
            refused: refused, read: read)
        sampled.withLock { $0 = series }
    }

    /// Starts listening.
    ///
    /// - Throws: `TransportError` when the address cannot be bound.
    public func start() throws(TransportError) { try listener.start() }

    /// The port bound.
    public var boundPort: Int { listener.boundPort }

    /// Stops the listener.
    public func shutdown() async { await listener.shutdown(code: 1001, reason: "server shutting down") }

    /// The text of `/metrics` now: the sampled series brought up to date, then every series.
    public func render() -> [UInt8] {
        sampled.withLock { sampled in
            guard var s = sampled else { return }
            let now = s.read()
            s.connections.record(now.connections)
            s.boardsLoaded.record(now.boardsLoaded)
            s.tick.record(now.tickSeconds)
            if now.framesWritten > s.last.framesWritten {
                s.framesSent.increment(by: now.framesWritten - s.last.framesWritten)
            }
            if now.slowConsumers > s.last.slowConsumers {
                s.transportSlowCloses.increment(by: now.slowConsumers - s.last.slowConsumers)
            }
            for (reason, count) in now.refused where count > s.last.refused[reason, default: 0] {
                s.refused[reason]?.increment(by: count - s.last.refused[reason, default: 0])
            }
            s.last = now
            sampled = s
        }
        return registry.emitToBuffer()
    }

    private func scrape() -> HTTPResponse {
        HTTPResponse(
            status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: render(),
            headers: [HTTPHeader("cache-control", "no-store")])
    }
}

/// The metrics listener as a service of `corkboard serve`'s group: it stops with the rest.
public struct MetricsListenerService: Service {
    let exporter: MetricsExporter

    /// The service for a started exporter.
    public init(exporter: MetricsExporter) { self.exporter = exporter }

    public func run() async throws {
        try? await gracefulShutdown()
        await exporter.shutdown()
    }
}
