// swift-tools-version:6.0
//
// Corkboard: a multi-user drag-and-drop board served over WebSocket.
//
// Layers (see docs/ARCHITECTURE.md, whose diagram and table are drawn from this file):
//   CorkboardJSON        the one JSON string escaper, shared by the transport, the protocol and the tools
//   CLibWebSockets       C shim over Debian's libwebsockets (system library)
//   CFrameGuard          checks client WebSocket frames where libwebsockets reads them (recv/SSL_read), on the
//                        sockets the transport registered only
//   CorkboardTransport   the only importer of CLibWebSockets: WebSocket + HTTP server and client
//   CorkboardModel       the pure board model and sequencer (no I/O)
//   CorkboardProtocol    the wire protocol: Codable messages, limits, the one JSON codec
//   CorkboardStorage     the storage interfaces (BoardStore, BoardCatalog, records, errors, StoreMetrics) rooms
//                        and stores share
//   CorkboardServer      board rooms (one actor per board over value-type parts) and the board directory;
//                        never sees the transport nor a store's implementation
//   CSQLite              C shim over Debian's SQLite (system library)
//   CorkboardStore       the embedded durable store on SQLite (WAL, group commit); never sees the rooms
//   CorkboardApp         wires the transport to the rooms: the whole server as one BoardService
//   CorkboardClient      a Swift client of the protocol with a board replica (bots, load tool, tests)
//   CorkboardCommandLine what the executables share: CommandFailure, --url options, signal handling
//   CorkboardBots        headless bots that behave like users and check their replicas
//   CorkboardTesting     the test kit every test target uses: recording sink, manual clock and store,
//                        room harness, raw HTTP/WebSocket client, eventually, fixtures
//   corkboard            the server executable (thin: wires the layers together)
//   CLinuxShim           C shim: the Linux calls Glibc's Swift module leaves out (epoll, eventfd, TCP options,
//                        naming a thread, the CPUs of the affinity mask, the threads' scheduling policy, the
//                        kernel's receive timestamps)
//   CorkboardLoadKit     the load tool's light-peer kit: a lean ws:// client on epoll (never libwebsockets),
//                        the in-place frame scanner and the stamps its ids carry
//   corkboard-load       load tool: the performance scenarios and the raw transport benchmark
//   corkboard-bot        the bots' command line (thin: CorkboardBots does the work)
//   corkboard-bench      CPU benchmarks of the model
import Foundation
import PackageDescription

/// Every Swift target compiles with the same settings: `any` spelled out for existentials,
/// imports that name every module whose members a file uses, and imports internal unless a module
/// re-exports a type in its own public API (`public import`). CI adds `-warnings-as-errors`
/// (scripts/build.sh).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let deque = Target.Dependency.product(name: "DequeModule", package: "swift-collections")
let orderedCollections = Target.Dependency.product(name: "OrderedCollections", package: "swift-collections")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let coreMetrics = Target.Dependency.product(name: "CoreMetrics", package: "swift-metrics")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
let metricsTestKit = Target.Dependency.product(name: "MetricsTestKit", package: "swift-metrics")
let postgresNIO = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")

let package = Package(
    name: "Corkboard",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "corkboard", targets: ["corkboard"]),
        .executable(name: "corkboard-load", targets: ["corkboard-load"]),
        .executable(name: "corkboard-bot", targets: ["corkboard-bot"]),
        .executable(name: "corkboard-bench", targets: ["corkboard-bench"]),
        .library(name: "CorkboardModel", targets: ["CorkboardModel"]),
        .library(name: "CorkboardTransport", targets: ["CorkboardTransport"]),
        .library(name: "CorkboardProtocol", targets: ["CorkboardProtocol"]),
        .library(name: "CorkboardStorage", targets: ["CorkboardStorage"]),
        .library(name: "CorkboardServer", targets: ["CorkboardServer"]),
        .library(name: "CorkboardClient", targets: ["CorkboardClient"]),
        .library(name: "CorkboardStore", targets: ["CorkboardStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .target(name: "CorkboardJSON"),
        .target(name: "CorkboardCommandLine", dependencies: ["CorkboardJSON", argumentParser, logging, unixSignals]),
        .systemLibrary(
            name: "CLibWebSockets",
            path: "Sources/CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev", "libssl-dev"])]
        ),
        // The frame guard defines `recv` and `SSL_read` for libwebsockets to read through. gold and lld
        // export an executable's symbol only if a linked shared library defines it too: libssl must be
        // on the link line (libc always is), or libssl's SSL_read would win (`cfg_interposed()`).
        .target(name: "CFrameGuard", linkerSettings: [.linkedLibrary("ssl")]),
        .target(
            name: "CorkboardTransport",
            dependencies: ["CLibWebSockets", "CFrameGuard", "CLinuxShim", "CorkboardJSON", deque, logging]
        ),
        .target(name: "CorkboardModel", dependencies: [deque]),
        .target(name: "CorkboardProtocol", dependencies: ["CorkboardModel", "CorkboardJSON"]),
        .target(name: "CorkboardStorage", dependencies: ["CorkboardModel", coreMetrics, crypto]),
        .target(
            name: "CorkboardServer",
            dependencies: [
                "CLinuxShim", "CorkboardModel", "CorkboardProtocol", "CorkboardStorage", logging, deque,
                orderedCollections, coreMetrics,
            ]
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "CorkboardStore",
            dependencies: ["CSQLite", "CorkboardStorage", "CorkboardProtocol", "CorkboardModel"]
        ),
        .target(
            name: "CorkboardPostgres",
            dependencies: [
                "CorkboardStorage", "CorkboardProtocol", "CorkboardModel", postgresNIO, nioCore, nioPosix, nioSSL,
                logging,
            ]
        ),
        .target(
            name: "CorkboardApp",
            dependencies: [
                "CorkboardJSON", "CorkboardTransport", "CorkboardServer", "CorkboardStorage", "CorkboardProtocol",
                "CorkboardModel", logging, serviceLifecycle, crypto, coreMetrics, prometheus,
            ]
        ),
        .target(
            name: "CorkboardClient",
            dependencies: ["CorkboardTransport", "CorkboardProtocol", "CorkboardModel", logging]
        ),
        .target(
            name: "CorkboardBots",
            dependencies: [
                "CorkboardClient", "CorkboardCommandLine", "CorkboardJSON", "CorkboardTransport", "CorkboardProtocol",
                "CorkboardModel", logging,
            ]
        ),
        .target(
            name: "CorkboardTesting",
            dependencies: ["CorkboardServer", "CorkboardStorage", "CorkboardProtocol", "CorkboardModel", logging]
        ),
        .executableTarget(
            name: "corkboard",
            dependencies: [
                "CLinuxShim", "CorkboardCommandLine", "CorkboardApp", "CorkboardServer", "CorkboardStorage",
                "CorkboardStore", "CorkboardPostgres", "CorkboardTransport", "CorkboardModel", argumentParser, logging,
                serviceLifecycle, unixSignals,
            ]
        ),
        .systemLibrary(name: "CLinuxShim", path: "Sources/CLinuxShim"),
        .target(name: "CorkboardLoadKit", dependencies: ["CLinuxShim", "CorkboardModel", crypto]),
        .executableTarget(
            name: "corkboard-load",
            dependencies: [
                "CLinuxShim", "CorkboardCommandLine", "CorkboardJSON", "CorkboardLoadKit", "CorkboardTransport",
                "CorkboardClient", "CorkboardProtocol", "CorkboardModel", argumentParser, logging,
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .executableTarget(
            name: "corkboard-bot",
            dependencies: ["CorkboardBots", "CorkboardCommandLine", argumentParser, logging]
        ),
        .executableTarget(name: "corkboard-bench", dependencies: ["CorkboardModel", argumentParser]),
        .testTarget(name: "CorkboardModelTests", dependencies: ["CorkboardModel", "CorkboardTesting"]),
        .testTarget(
            name: "CorkboardProtocolTests",
            dependencies: ["CorkboardProtocol", "CorkboardModel", "CorkboardTesting"]
        ),
        .testTarget(
            name: "CorkboardTransportTests",
            dependencies: ["CorkboardTransport", "CFrameGuard", "CLinuxShim", "CorkboardTesting", logging]
        ),
        .testTarget(
            name: "CorkboardServerTests",
            dependencies: [
                "CorkboardServer", "CorkboardStorage", "CorkboardProtocol", "CorkboardModel", "CorkboardTesting",
                logging, metricsTestKit,
            ]
        ),
        .testTarget(
            name: "CorkboardStoreTests",
            dependencies: ["CSQLite", "CorkboardStore", "CorkboardStorage", "CorkboardModel", "CorkboardTesting"]
        ),
        .testTarget(
            name: "CorkboardPostgresTests",
            dependencies: [
                "CorkboardPostgres", "CorkboardServer", "CorkboardStore", "CorkboardStorage", "CorkboardModel",
                "CorkboardProtocol", "CorkboardTesting", postgresNIO, nioCore, nioPosix, logging, metricsTestKit,
            ]
        ),
        .testTarget(name: "CorkboardLoadKitTests", dependencies: ["CorkboardLoadKit"]),
        .testTarget(
            name: "CorkboardBotTests",
            dependencies: [
                "CorkboardBots", "CorkboardClient", "CorkboardProtocol", "CorkboardModel", "CorkboardTesting",
            ]
        ),
        .testTarget(
            name: "CorkboardEndToEndTests",
            dependencies: [
                "CorkboardApp", "CorkboardClient", "CorkboardServer", "CorkboardStorage", "CorkboardStore",
                "CorkboardTransport", "CorkboardProtocol", "CorkboardModel", "CorkboardTesting", logging, crypto,
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift target compiles with `swiftSettings` (CFrameGuard is C, the system libraries have no
// sources; the fuzz targets below keep the defaults).
for target in package.targets where target.type != .system && target.name != "CFrameGuard" {
    target.swiftSettings = swiftSettings
}

// libFuzzer targets (`make fuzz`), only when CORKBOARD_FUZZ is set: they have no `main` of their own
// (libFuzzer's is linked in with -sanitize=fuzzer), so an ordinary build must not see them.
if ProcessInfo.processInfo.environment["CORKBOARD_FUZZ"] != nil {
    package.targets += [
        .executableTarget(name: "fuzz-wire", dependencies: ["CorkboardProtocol"], path: "Fuzz/FuzzWire"),
        .executableTarget(name: "fuzz-http", dependencies: ["CorkboardTransport"], path: "Fuzz/FuzzHTTP"),
        .executableTarget(name: "fuzz-model", dependencies: ["CorkboardModel"], path: "Fuzz/FuzzModel"),
    ]
}
