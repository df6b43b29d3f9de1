// swift-tools-version:6.0
//
// Corkboard: a multi-user drag-and-drop board served over WebSocket.
//
// Layers (see docs/ARCHITECTURE.md):
//   CorkboardJSON       the one JSON string escaper, shared by the transport, the protocol and the tools
//   CLibWebSockets      C shim over Debian's libwebsockets (system library)
//   CorkboardTransport  the only importer of CLibWebSockets: WebSocket + HTTP server and client
//   CorkboardModel      the pure board model and sequencer (no I/O)
//   CorkboardProtocol   the wire protocol: Codable messages, limits, the one JSON codec
//   CorkboardServer     board rooms (one actor per board) and the board directory; never sees the transport
//   CSQLite             C shim over Debian's SQLite (system library)
//   CorkboardStore      the embedded durable store on SQLite (WAL, group commit)
//   CorkboardApp        wires the transport to the rooms: the whole server as one BoardService
//   CorkboardClient     a Swift client of the protocol with a board replica (bots, load tool, tests)
//   CorkboardCommandLine what the executables share: CommandFailure, --url options, signal handling
//   corkboard           the server executable (thin: wires the layers together)
//   corkboard-load      load tool: the performance scenarios and the raw transport benchmark
//   corkboard-bot       headless bots that behave like users and check their replicas
//   corkboard-bench     CPU benchmarks of the model
import Foundation
import PackageDescription

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
    ],
    targets: [
        .target(name: "CorkboardJSON"),
        .target(
            name: "CorkboardCommandLine",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .systemLibrary(
            name: "CLibWebSockets",
            path: "Sources/CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev", "libssl-dev"])]
        ),
        .target(
            name: "CorkboardTransport",
            dependencies: [
                "CLibWebSockets",
                "CorkboardJSON",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "CorkboardModel",
            dependencies: [.product(name: "DequeModule", package: "swift-collections")]
        ),
        .target(name: "CorkboardProtocol", dependencies: ["CorkboardModel", "CorkboardJSON"]),
        .target(
            name: "CorkboardServer",
            dependencies: [
                "CorkboardModel",
                "CorkboardProtocol",
                .product(name: "Logging", package: "swift-log"),
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
            dependencies: ["CSQLite", "CorkboardServer", "CorkboardProtocol", "CorkboardModel"]
        ),
        .target(
            name: "CorkboardApp",
            dependencies: [
                "CorkboardJSON",
                "CorkboardTransport",
                "CorkboardServer",
                "CorkboardProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "CorkboardClient",
            dependencies: [
                "CorkboardTransport",
                "CorkboardProtocol",
                "CorkboardModel",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "corkboard",
            dependencies: [
                "CorkboardCommandLine",
                "CorkboardApp",
                "CorkboardStore",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "CorkboardModel",
                "CorkboardTransport",
                "CorkboardServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "corkboard-load",
            dependencies: [
                "CorkboardCommandLine",
                "CorkboardJSON",
                "CorkboardTransport",
                "CorkboardClient",
                "CorkboardProtocol",
                "CorkboardModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .executableTarget(
            name: "corkboard-bot",
            dependencies: [
                "CorkboardCommandLine",
                "CorkboardJSON",
                "CorkboardClient",
                "CorkboardTransport",
                "CorkboardProtocol",
                "CorkboardModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "corkboard-bench",
            dependencies: [
                "CorkboardModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "CorkboardModelTests", dependencies: ["CorkboardModel"]),
        .testTarget(
            name: "CorkboardStoreTests", dependencies: ["CorkboardStore", "CorkboardServer", "CorkboardModel"]),
        .testTarget(name: "CorkboardProtocolTests", dependencies: ["CorkboardProtocol", "CorkboardModel"]),
        .testTarget(
            name: "CorkboardEndToEndTests",
            dependencies: [
                "CorkboardClient",
                "CorkboardApp",
                "CorkboardServer",
                "CorkboardStore",
                "CorkboardProtocol",
                "CorkboardTransport",
                "CorkboardModel",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "CorkboardServerTests",
            dependencies: [
                "CorkboardServer",
                "CorkboardApp",
                "CorkboardTransport",
                "CorkboardProtocol",
                "CorkboardModel",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "CorkboardBotTests", dependencies: ["corkboard-bot", "CorkboardClient", "CorkboardModel"]),
        .testTarget(
            name: "CorkboardTransportTests",
            dependencies: [
                "CorkboardTransport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (`make fuzz`), only when CORKBOARD_FUZZ is set: they have no `main` of their own
// (libFuzzer's is linked in with -sanitize=fuzzer), so an ordinary build must not see them.
if ProcessInfo.processInfo.environment["CORKBOARD_FUZZ"] != nil {
    package.targets += [
        .executableTarget(name: "fuzz-wire", dependencies: ["CorkboardProtocol"], path: "Fuzz/FuzzWire"),
        .executableTarget(name: "fuzz-http", dependencies: ["CorkboardTransport"], path: "Fuzz/FuzzHTTP"),
        .executableTarget(name: "fuzz-model", dependencies: ["CorkboardModel"], path: "Fuzz/FuzzModel"),
    ]
}
