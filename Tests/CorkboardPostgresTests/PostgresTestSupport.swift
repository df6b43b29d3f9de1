import CorkboardPostgres
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Testing

/// The PostgreSQL server the tests use: `CORKBOARD_TEST_POSTGRES_URL`, which
/// `scripts/test-postgres.sh run` sets for `make swift-test` after starting a private server.
enum TestPostgres {
    /// The server's URL, if one was given.
    static var url: String? {
        guard let text = ProcessInfo.processInfo.environment["CORKBOARD_TEST_POSTGRES_URL"], !text.isEmpty else {
            return nil
        }
        return text
    }

    /// Whether the PostgreSQL tests run: with a server, and always under CI, where a missing server
    /// fails them instead of skipping them.
    static var enabled: Bool { url != nil || isCI }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "CORKBOARD_TEST_POSTGRES_URL is not set: run the tests with `scripts/test-postgres.sh run swift test` "
                + "(make swift-test does), which starts a private PostgreSQL server."
        }
    }

    static let logger: Logger = {
        var logger = Logger(label: "corkboard.tests.postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// A fresh, empty database on the test server, dropped after `body`.
    static func withDatabase<T>(_ body: (PostgresURL) async throws -> T) async throws -> T {
        guard let text = url else { throw Missing() }
        let admin = try PostgresURL(text)
        let name = "cbtest_" + RandomToken.make(bytes: 6)
        try await execute("CREATE DATABASE \(name)", on: admin)
        var database = admin
        database.database = name
        do {
            let result = try await body(database)
            try await execute("DROP DATABASE \(name) WITH (FORCE)", on: admin)
            return result
        } catch {
            try? await execute("DROP DATABASE \(name) WITH (FORCE)", on: admin)
            throw error
        }
    }

    /// A store on a fresh database (``withDatabase(_:)``), closed after `body`.
    static func withStore<T>(_ body: (PostgresURL, PostgresBoardStore) async throws -> T) async throws -> T {
        try await withDatabase { url in
            let store = try PostgresBoardStore(url: url, logger: logger)
            defer { store.close() }
            return try await body(url, store)
        }
    }

    /// Runs one SQL statement on a database with a connection of its own.
    static func execute(_ sql: String, on url: PostgresURL) async throws {
        _ = try await rows(sql, on: url)
    }

    /// Runs a query on a database with a connection of its own and returns its rows.
    static func rows(_ sql: String, on url: PostgresURL) async throws -> [PostgresRow] {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: try url.configuration(), id: 1,
            logger: logger
        ).get()
        do {
            let result = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).get()
            try await connection.close().get()
            return result.rows
        } catch {
            try? await connection.close().get()
            throw error
        }
    }
}

/// The two stores the contract tests (`StoreContractTests`) run on: SQLite always, PostgreSQL
/// with the test server (and under CI, where a missing server fails them).
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The kinds that run here.
    static var running: [StoreKind] { allCases.filter(\.runs) }

    /// Whether the kind can run here (PostgreSQL needs the test server, or CI to fail without it).
    var runs: Bool { self == .sqlite || TestPostgres.enabled }

    /// Runs `body` with a fresh store of this kind (its writer recording into `metrics`), holding
    /// only the `started` boards (a snapshot at seq 0 each), and a way to open a second store on
    /// the same data (another process, a restart).
    func withStore<T>(
        metrics: StoreMetrics = .system, started boards: [String] = [],
        _ body: (any BoardStore, @escaping () throws -> any BoardStore) async throws -> T
    ) async throws -> T {
        switch self {
        case .sqlite:
            let folder = try makeTemporaryFolder(prefix: "corkboard-contract")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let store = try SQLiteBoardStore(path: path, metrics: metrics)
            startBoards(store, boards)
            return try await body(store) {
                try SQLiteBoardStore(path: path)
            }
        case .postgres:
            return try await TestPostgres.withDatabase { url in
                let store = try PostgresBoardStore(url: url, logger: TestPostgres.logger, metrics: metrics)
                startBoards(store, boards)
                var opened: [PostgresBoardStore] = []
                defer {
                    store.close()
                    for other in opened { other.close() }
                }
                return try await body(store) {
                    let other = try PostgresBoardStore(url: url, migrate: false, logger: TestPostgres.logger)
                    opened.append(other)
                    return other
                }
            }
        }
    }

    /// Deletes a board with everything stored for it (each store's own `deleteBoard`, which
    /// `BoardStore` does not have); `false` when there was no such board.
    static func deleteBoard(_ id: String, from store: any BoardStore) throws -> Bool {
        switch store {
        case let sqlite as SQLiteBoardStore: return try sqlite.deleteBoard(id)
        case let postgres as PostgresBoardStore: return try postgres.deleteBoard(id)
        default:
            Issue.record("\(type(of: store)) is not a store the contract tests know")
            return false
        }
    }
}
