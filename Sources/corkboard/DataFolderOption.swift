import ArgumentParser
import CorkboardCommandLine
import CorkboardStorage
import CorkboardStore
import Foundation

/// `--data`, shared by the commands that open the board store.
struct DataFolderOption: ParsableArguments {
    @Option(help: "Folder for the board store. [env: CORKBOARD_DATA] (default: data)")
    var data: String?

    /// The folder, after the environment fallback.
    var folder: String { EnvironmentFallback().string(data, "CORKBOARD_DATA", default: "data") }

    /// Opens the folder's SQLite store; `nil` when it has none and `create` is false.
    ///
    /// - Throws: `CommandFailure` with the store's explanation when it cannot be opened.
    func openStore(create: Bool) throws -> SQLiteBoardStore? {
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
            return try SQLiteBoardStore(path: path)
        } catch {
            throw CommandFailure("Cannot open the board store \(path): \(error)")
        }
    }

    /// Opens the folder's SQLite store for reading only (nothing is created or changed, so a
    /// read-only file or mount works); `nil` when the folder has no store.
    ///
    /// - Throws: `CommandFailure` with the store's explanation when it cannot be opened.
    func openStoreForReading() throws -> SQLiteBoardStore? {
        let path = SQLiteBoardStore.path(inDataFolder: folder)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try SQLiteBoardStore(readingOnly: path)
        } catch {
            throw CommandFailure("Cannot read the board store \(path): \(error)")
        }
    }
}
