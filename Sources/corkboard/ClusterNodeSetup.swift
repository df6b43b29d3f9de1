import ArgumentParser
import CorkboardApp
import CorkboardCommandLine
import CorkboardPostgres
import CorkboardStorage
import Foundation
import Logging

/// `corkboard serve --store postgres`: the shared store and this node's membership of the cluster,
/// opened before anything listens, so a wrong or unreachable database is a clear error at start.
struct ClusterNodeSetup {
    let store: PostgresBoardStore
    let cluster: ClusterSettings

    init(
        postgresURL: String?, publicURL: String?, leaseSeconds: Double, settings: ServeSettings, logger: Logger,
        environment: EnvironmentFallback = EnvironmentFallback()
    ) throws {
        guard let text = environment.optionalString(postgresURL, "CORKBOARD_POSTGRES_URL") else {
            throw ValidationError(
                "--store postgres needs the database: pass --postgres-url postgres://USER:PASSWORD@HOST:PORT/DATABASE "
                    + "or set CORKBOARD_POSTGRES_URL.")
        }
        let url: PostgresURL
        do {
            url = try PostgresURL(text)
        } catch {
            throw ValidationError("\(error)")
        }
        let publicURL = environment.optionalString(publicURL, "CORKBOARD_PUBLIC_URL")
        if let publicURL, !(publicURL.hasPrefix("ws://") || publicURL.hasPrefix("wss://")) {
            throw ValidationError("--public-url must be a WebSocket URL, ws://HOST:PORT/ws; got '\(publicURL)'.")
        }
        do {
            store = try PostgresBoardStore(
                url: url, migrate: true, transactionTimeout: .milliseconds(Int64(leaseSeconds * 500)), logger: logger)
            let coordinator = try PostgresCluster(
                url: url, leaseDuration: .milliseconds(Int64(leaseSeconds * 1000)), logger: logger)
            // Until the port is bound, the address given (or a placeholder the server replaces).
            cluster = ClusterSettings(
                coordinator: coordinator,
                publicURL: publicURL ?? "ws://\(settings.displayHost):\(settings.port)/ws")
        } catch {
            throw CommandFailure("Cannot use the PostgreSQL database \(url): \(error.message)")
        }
        logger.info("PostgreSQL store ready", metadata: ["database": "\(url)"])
    }
}
