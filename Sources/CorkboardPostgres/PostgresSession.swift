import CorkboardStorage
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// One PostgreSQL connection, opened when first needed and opened again after it broke (the
/// server restarted, the network failed).
///
/// Queries are postgres-nio's `EventLoopFuture`s, so a caller either blocks its own thread on one
/// (`run`, for the store's writer thread and the command-line tools: nothing of Swift
/// concurrency's small cooperative pool is held) or awaits it (`perform`, for the cluster's
/// tasks). A query that gets no answer within `queryTimeout` closes the connection, so a
/// partition from the database turns into an error instead of a hang.
///
/// Queries of one session run one after another on its connection; a transaction
/// (`transaction(_:)`) needs the session to itself, which its callers guarantee (one writer
/// queue; a lock around the reader).
final class PostgresSession: Sendable {
    let url: PostgresURL
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let group: any EventLoopGroup
    private let queryTimeout: TimeAmount
    private let state = Mutex<State>(State())
    private static let ids = Atomic<Int>(1)

    private struct State {
        var connection: PostgresConnection?
        var connecting: EventLoopFuture<PostgresConnection>?
    }

    /// A session; nothing connects until the first query.
    ///
    /// - Parameter settings: Server settings for the session's connections (`lock_timeout`,
    ///   `idle_in_transaction_session_timeout`), in milliseconds where they are times.
    init(
        url: PostgresURL, logger: Logger, connectTimeout: TimeAmount = .seconds(3),
        queryTimeout: TimeAmount = .seconds(15), settings: [(String, String)] = [],
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws(StoreError) {
        self.url = url
        do {
            var configuration = try url.configuration(connectTimeout: connectTimeout)
            configuration.options.additionalStartupParameters = settings
            self.configuration = configuration
        } catch {
            throw StoreError(.io, error.description)
        }
        self.logger = logger
        self.group = group
        self.queryTimeout = queryTimeout
    }

    /// The open connection, or a new one.
    private func connection() -> EventLoopFuture<PostgresConnection> {
        let (future, isNew) = state.withLock { state -> (EventLoopFuture<PostgresConnection>, Bool) in
            if let connection = state.connection {
                if !connection.isClosed { return (connection.eventLoop.makeSucceededFuture(connection), false) }
                state.connection = nil
            }
            if let connecting = state.connecting { return (connecting, false) }
            let id = PostgresSession.ids.add(1, ordering: .relaxed).oldValue
            let future = PostgresConnection.connect(
                on: group.next(), configuration: configuration, id: id, logger: logger)
            state.connecting = future
            return (future, true)
        }
        if isNew {
            // Outside the lock: the callback may run at once.
            future.whenComplete { [weak self] result in
                self?.state.withLock { state in
                    state.connecting = nil
                    if case .success(let connection) = result { state.connection = connection }
                }
            }
        }
        return future
    }

    /// Sends a query; fails after `queryTimeout` without an answer (the connection is closed then).
    func query(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
        connection().flatMap { [logger, queryTimeout] connection in
            let result = connection.query(query, logger: logger)
            let timer = connection.eventLoop.scheduleTask(in: queryTimeout) {
                let _: EventLoopFuture<Void> = connection.close()
            }
            result.whenComplete { _ in timer.cancel() }
            return result
        }
    }

    /// Runs a query, blocking this thread until it answers. Never call it from an event loop.
    func run(_ query: PostgresQuery, doing what: String) throws(StoreError) -> PostgresQueryResult {
        do {
            return try self.query(query).wait()
        } catch {
            throw storeError(error, doing: what)
        }
    }

    /// Runs a query without blocking the caller's thread.
    func perform(_ query: PostgresQuery, doing what: String) async throws(StoreError) -> PostgresQueryResult {
        do {
            return try await self.query(query).get()
        } catch {
            throw storeError(error, doing: what)
        }
    }

    /// Runs `body` with the session's connection (opening it if needed), for what only a connection
    /// does (`LISTEN`).
    func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await connection().get()
        return try await body(connection)
    }

    /// Runs `body` between BEGIN and COMMIT on this thread, rolling back when it throws.
    ///
    /// - Throws: `StoreError`; `ambiguousCommit` set when the connection broke while COMMIT was on
    ///   its way, so the transaction may or may not have committed.
    func transaction<T>(doing what: String, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        _ = try run("BEGIN", doing: what)
        let value: T
        do {
            value = try body()
        } catch {
            _ = try? run("ROLLBACK", doing: what)
            throw error
        }
        do {
            _ = try self.query("COMMIT").wait()
        } catch {
            var failure = storeError(error, doing: "\(what) (commit)")
            if Self.isConnectionFailure(error) { failure.message += " " + Self.ambiguityNote }
            throw failure
        }
        return value
    }

    /// Closes the connection and waits until it is closed (postgres-nio requires a connection to
    /// be closed before it is released).
    func close() {
        let connection = state.withLock { state in
            defer { state.connection = nil }
            return state.connection
        }
        guard let connection, !connection.isClosed else { return }
        let closed: EventLoopFuture<Void> = connection.close()
        if !connection.eventLoop.inEventLoop { try? closed.wait() }
    }

    deinit { close() }

    /// Appended to the message of a failure during COMMIT.
    static let ambiguityNote = "The connection broke during COMMIT."

    /// Whether an error is the connection failing (as opposed to the server refusing a statement).
    static func isConnectionFailure(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return true }
        return [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown].contains(
            error.code)
    }

    /// A `StoreError` that says what failed, where, and what to do.
    func storeError(_ error: any Error, doing what: String) -> StoreError {
        let place = "PostgreSQL at \(url.host):\(url.port) (database \(url.database))"
        guard let error = error as? PSQLError else {
            return StoreError(.io, "\(what) failed: \(place) is unreachable: \(error). Check that it runs.")
        }
        if let info = error.serverInfo {
            let state = info[.sqlState] ?? "?"
            let message = info[.message] ?? "no message"
            let kind: StoreError.Kind =
                switch state {
                case "53100": .full
                case "25006": .readOnly
                case "XX001", "XX002": .corrupt
                default: .io
                }
            var advice = ""
            switch state {
            case "28P01", "28000": advice = " Check the user and password in the URL."
            case "3D000": advice = " Create the database (createdb) or fix the URL."
            case "57P01", "57P02", "57P03": advice = " The server is shutting down or starting; try again."
            default: break
            }
            return StoreError(kind, "\(what) failed: \(place) answered \(state) \(message).\(advice)")
        }
        let detail = error.underlying.map { "\($0)" } ?? "\(error.code)"
        return StoreError(.io, "\(what) failed: \(place) is unreachable (\(detail)). Check that it runs.")
    }
}
