import CorkboardServer
import CorkboardStorage

/// Every `corkboard_…` metric with its help text and, for histograms, its buckets: what
/// `/metrics` says about each one (`# HELP`), and the README's table.
enum MetricCatalog {
    /// The store's metrics, the same for the SQLite and the PostgreSQL store.
    typealias Store = StoreMetrics.Name

    /// The metrics sampled at each scrape by the exporter (from the transport and the directory).
    enum Sampled {
        static let connections = "corkboard_connections"
        static let boardsLoaded = "corkboard_boards_loaded"
        static let tick = "corkboard_tick_seconds"
        static let framesSent = "corkboard_frames_sent_total"
        static let connectionsRefused = "corkboard_connections_refused_total"
    }

    /// The metrics the transport records as it reads.
    enum Transport {
        static let readWait = "corkboard_read_wait_seconds"
    }

    /// Help text by metric name.
    static let help: [String: String] = [
        Sampled.connections: "WebSocket connections open now.",
        Sampled.boardsLoaded: "Boards loaded (rooms running) now.",
        Sampled.tick:
            "The rooms' tick now: how often peers get hovers, cursors and presence (longer while the server is busy).",
        Sampled.framesSent: "WebSocket frames written to sockets.",
        Sampled.connectionsRefused:
            "Connections refused: pending-per-ip, max-connections, max-connections-per-ip, open-files, failed-joins, "
            + "rate-limit-closes.",
        ServerMetrics.Name.operations:
            "Operations committed to a board's log (durable with a store) or rejected, by rejection code.",
        Transport.readWait:
            "A WebSocket message's bytes waiting in their socket until a service thread read them (kernel arrival "
            + "to the read; not over TLS).",
        ServerMetrics.Name.dropBroadcast: "A drop handed to its room until its op was written to every other member.",
        ServerMetrics.Name.ephemeralDropped:
            "Ephemeral messages not sent to a slow member (R11), per message and member.",
        ServerMetrics.Name.slowConsumerCloses:
            "Connections closed for not keeping up, by the room (R11) or the transport.",
        ServerMetrics.Name.rateLimited: "Messages refused rate-limited, by kind.",
        ServerMetrics.Name.rateLimitCloses: "Connections closed 1008 for going on past their rate limit, by kind.",
        Store.commit:
            "One committed store transaction of operations (SQLite or PostgreSQL): encoding, BEGIN to COMMIT "
            + "(with its fsync or WAL flush).",
        Store.batchOperations: "Operations written by one committed store transaction (group commit).",
        Store.batchAppends: "Room batches written by one committed store transaction.",
        Store.snapshot: "Encoding and writing one snapshot, with the log compaction behind it.",
    ]

    /// Buckets of the latency histograms, by metric name.
    static let durationBuckets: [String: [Duration]] = [
        // Finer where a busy service thread lives (a round of its event loop: 5–100 ms).
        Transport.readWait: [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(15), .milliseconds(20), .milliseconds(30),
            .milliseconds(50), .milliseconds(75), .milliseconds(100), .milliseconds(150), .milliseconds(250),
            .milliseconds(500), .seconds(1),
        ],
        ServerMetrics.Name.dropBroadcast: [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .milliseconds(2500), .seconds(5),
        ],
        Store.commit: [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .seconds(1),
        ],
        Store.snapshot: [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
            .seconds(5),
        ],
    ]

    /// Buckets of the value histograms, by metric name.
    static let valueBuckets: [String: [Double]] = [
        Store.batchOperations: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000],
        Store.batchAppends: [1, 2, 5, 10, 20, 50, 100, 200, 500],
    ]

    /// Buckets for a duration histogram the catalog does not name.
    static let defaultDurationBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100),
        .milliseconds(500), .seconds(1), .seconds(5),
    ]

    /// Buckets for a value histogram the catalog does not name.
    static let defaultValueBuckets: [Double] = [1, 10, 100, 1000, 10000]
}
