import ArgumentParser
import CorkboardCommandLine
import CorkboardStore
import Foundation

extension Corkboard.Boards {
    /// `corkboard boards delete ID`: a board and everything stored for it.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a board with its snapshots, operations and uploaded files.",
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
            // Uploaded images live in DATA/files/<board>; ids never contain "/" or "..".
            guard data.postgres == nil else {
                print("deleted \(id)")
                return
            }
            let files = (data.folder as NSString).appendingPathComponent("files/\(id)")
            if !id.contains("/"), !id.contains(".."), FileManager.default.fileExists(atPath: files) {
                try? FileManager.default.removeItem(atPath: files)
            }
            print("deleted \(id)")
        }
    }
}
