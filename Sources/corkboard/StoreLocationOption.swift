import ArgumentParser
import CorkboardCommandLine
import CorkboardPostgres
import CorkboardStorage
import CorkboardStore
import Foundation
import Logging

/// Where the commands that open the board store find it: the SQLite file of a data folder
/// (`--data`), or a PostgreSQL database (`--postgres-url`, which wins when given).
struct StoreLocationOption: ParsableArguments {
    @Option(help: "Folder for the board store. [env: CORKBOARD_DATA] (default: data)")
    var data: String?

    @Option(
        name: .customLong("postgres-url"),
        help: """
            Use the PostgreSQL database of a cluster instead of --data, e.g. \
            postgres://corkboard:secret@db.example:5432/corkboard. [env: CORKBOARD_POSTGRES_URL]
            """)
    var postgresURL: String?

    /// The folder, after the environment fallback.
    var folder: String { EnvironmentFallback().string(data, "CORKBOARD_DATA", default: "data") }

    /// The PostgreSQL URL, after the environment fallback.
    var postgres: String? { EnvironmentFallback().optionalString(postgresURL, "CORKBOARD_POSTGRES_URL") }

    /// Where the store is, for messages.
    var place: String { postgres.map { (try? PostgresURL($0).description) ?? $0 } ?? "'\(folder)'" }

    /// Opens the store; `nil` when the data folder has no SQLite store and `create` is false.
    ///
    /// - Throws: `CommandFailure` with the store's explanation when it cannot be opened.
    func openStore(create: Bool) throws -> OpenedStore? {
        if let postgres { return .postgres(try openPostgres(postgres, migrate: create)) }
        let path = SQLiteBoardStore.path(inDataFolder: folder)
        if !FileManager.default.fileExists(atPath: path) {
            guard create else { return nil }
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure("Cannot create the data folder '\(folder)': \(error.localizedDescription)")
            }
        }
        do {
            return .sqlite(try SQLiteBoardStore(path: path))
        } catch {
            throw CommandFailure("Cannot open the board store \(path): \(error)")
        }
    }

    /// Opens the store for reading only (nothing is created or changed: a read-only SQLite file or
    /// mount works; a PostgreSQL schema is checked, not migrated); `nil` when the folder has none.
    ///
    /// - Throws: `CommandFailure` with the store's explanation when it cannot be opened.
    func openStoreForReading() throws -> OpenedStore? {
        if let postgres { return .postgres(try openPostgres(postgres, migrate: false)) }
        let path = SQLiteBoardStore.path(inDataFolder: folder)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return .sqlite(try SQLiteBoardStore(readingOnly: path))
        } catch {
            throw CommandFailure("Cannot read the board store \(path): \(error)")
        }
    }

    private func openPostgres(_ text: String, migrate: Bool) throws -> PostgresBoardStore {
        let url = try CommandFailure.reporting { try PostgresURL(text) }
        do {
            return try PostgresBoardStore(url: url, migrate: migrate, logger: Logger(label: "corkboard.postgres"))
        } catch {
            throw CommandFailure("Cannot open the board store in \(url): \(error.message)")
        }
    }
}

/// A board store the administration commands opened.
enum OpenedStore {
    case sqlite(SQLiteBoardStore)
    case postgres(PostgresBoardStore)

    /// The store.
    var store: any BoardStore {
        switch self {
        case .sqlite(let store): store
        case .postgres(let store): store
        }
    }

    /// Deletes a board with everything stored for it; `false` when there was no such board.
    func deleteBoard(_ id: String) throws(StoreError) -> Bool {
        switch self {
        case .sqlite(let store): try store.deleteBoard(id)
        case .postgres(let store): try store.deleteBoard(id)
        }
    }
}
