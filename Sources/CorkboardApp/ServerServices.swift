import CorkboardServer
import CorkboardStorage
import CorkboardTransport
import Logging
public import ServiceLifecycle

extension BoardService {
    /// The server as services for one `ServiceGroup`, in start order: the store's writer, the
    /// rooms, the transport, and on a node of a cluster its part of the cluster.
    ///
    /// A graceful shutdown (SIGINT or SIGTERM in `corkboard serve`) stops them in reverse order:
    /// the transport stops accepting and closes every WebSocket with 1001 (at once, dropping output
    /// not yet sent: peers that stopped reading do not hold the stop), then the rooms stop
    /// after the events already queued and save their snapshots, then the store finishes writing.
    /// Nothing acknowledged is lost: an operation is acknowledged only once the store committed
    /// it. Start the service (`start()`) before running the group, so a port that cannot be bound
    /// fails before anything runs.
    ///
    /// - Parameter closeTimeout: How long the transport waits for clients to take their close.
    public func services(closeTimeout: Duration = .seconds(4)) -> [any Service] {
        var services: [any Service] = [
            StoreWriterService(store: directory.store),
            RoomsService(service: self),
            TransportService(server: server, closeTimeout: closeTimeout, logger: logger),
        ]
        // Last to start, first to stop: a node hands its boards over before its transport closes.
        if let ownership { services.append(ClusterNodeService(ownership: ownership, remote: remote)) }
        return services
    }
}

/// The transport as a service: it runs from `BoardService.start()` until graceful shutdown, then
/// stops accepting and closes every WebSocket with 1001.
struct TransportService: Service {
    let server: WebSocketServer
    let closeTimeout: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        logger.info("shutting down: closing every WebSocket with 1001")
        await server.shutdown(code: 1001, reason: "server shutting down", timeout: closeTimeout)
    }
}

/// The rooms as a service: at graceful shutdown they handle the events already queued, save a
/// snapshot and stop.
struct RoomsService: Service {
    let service: BoardService

    func run() async throws {
        try? await gracefulShutdown()
        await service.stopRooms()
    }
}

/// The store's writer as a service: at graceful shutdown, after the rooms, it finishes every
/// queued write.
struct StoreWriterService: Service {
    let store: (any BoardStore)?

    func run() async throws {
        try? await gracefulShutdown()
        store?.drain()
    }
}
