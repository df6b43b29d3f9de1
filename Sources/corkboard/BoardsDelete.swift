import ArgumentParser
import CorkboardApp
import CorkboardCommandLine
import CorkboardModel
import CorkboardStore
import Foundation

extension Corkboard.Boards {
    /// `corkboard boards delete ID`: a board and everything stored for it.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a board with its snapshots, operations and the uploaded files no other board uses.",
            discussion: """
                Stop the server first (or delete while it runs and restart it): a running server keeps \
                serving a board it has loaded until it stops. The demo board is created again at the next start.
                """)

        @Argument(help: "The id of the board to delete.")
        var id: String

        @OptionGroup var data: StoreLocationOption

        func run() throws {
            guard let store = try data.openStore(create: false) else {
                throw CommandFailure("There is no board store in \(data.place); check --data.")
            }
            let existed: Bool
            do {
                existed = try store.deleteBoard(id)
            } catch {
                throw CommandFailure("Could not delete \(id): \(error); nothing was deleted.")
            }
            guard existed else {
                throw CommandFailure("There is no board \(id) in \(data.place); `corkboard boards` lists them.")
            }
            print("deleted \(id)")
            // Its uploads live in DATA/files/<board>: those no other board refers to go with it (a
            // card moved or copied to another board keeps its file there).
            guard data.postgres == nil, BoardIDRule.isValid(id) else { return }
            let folder = (data.folder as NSString).appendingPathComponent("files")
            guard FileManager.default.fileExists(atPath: folder + "/" + id) else { return }
            do {
                let report = try FileCollector(folder: folder, grace: 0).collect(store: store.store, only: id)
                let kept = report.files - report.removed.count
                if kept > 0 { print("kept \(kept) of its files: other boards refer to them") }
                // Anything else there (a partial upload, a stray file) goes with the board.
                let boardFolder = folder + "/" + id
                for name in (try? FileManager.default.contentsOfDirectory(atPath: boardFolder)) ?? []
                where Attachment.StoredFile(path: Substring(id + "/" + name)) == nil {
                    try? FileManager.default.removeItem(atPath: boardFolder + "/" + name)
                }
                if (try? FileManager.default.contentsOfDirectory(atPath: boardFolder))?.isEmpty == true {
                    try? FileManager.default.removeItem(atPath: boardFolder)
                }
            } catch {
                throw CommandFailure(
                    "Deleted \(id), but could not read the other boards to see which of its files they use (\(error)); "
                        + "its files stay in \(folder)/\(id). `corkboard files collect` removes them later.")
            }
        }
    }
}
