import ArgumentParser
import CorkboardCommandLine
import CorkboardPostgres
import CorkboardStorage
import Logging

extension Corkboard {
    /// `corkboard migrate`: creates or upgrades the PostgreSQL schema of a cluster.
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or upgrade Corkboard's tables in a PostgreSQL database.",
            discussion: """
                `corkboard serve --store postgres` does this at start too; run it by hand to prepare a \\
                database before the first node starts. Safe to run again and while nodes run.
                """)

        @Option(
            name: .customLong("postgres-url"),
            help: "The database, postgres://USER:PASSWORD@HOST:PORT/DATABASE. [env: CORKBOARD_POSTGRES_URL]")
        var postgresURL: String?

        func run() throws {
            guard let text = EnvironmentFallback().optionalString(postgresURL, "CORKBOARD_POSTGRES_URL") else {
                throw ValidationError("Pass --postgres-url or set CORKBOARD_POSTGRES_URL.")
            }
            let url = try CommandFailure.reporting { try PostgresURL(text) }
            do {
                let outcome = try PostgresBoardStore.migrate(url: url, logger: Logger(label: "corkboard.migrate"))
                if outcome.from == outcome.to {
                    print("\(url): schema \(outcome.to), already current")
                } else {
                    print("\(url): schema \(outcome.from) → \(outcome.to)")
                }
            } catch {
                throw CommandFailure("Cannot migrate \(url): \(error.message)")
            }
        }
    }
}
