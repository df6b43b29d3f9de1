import ArgumentParser
import CorkboardCommandLine
import CorkboardStorage

extension Corkboard.Boards {
    /// `corkboard boards rotate-keys ID`: new share keys for a board; the old links stop working.
    struct RotateKeys: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-keys",
            abstract: "Replace a board's four keys (admin, edit, comment, view); the old share links stop working.",
            discussion: """
                A running server picks the new keys up within a second and closes every member who \
                joined with an old key (close 1008, saying the links were replaced). Share the new links.
                """)

        @Argument(help: "The id of the board whose keys to replace.")
        var id: String

        @OptionGroup var location: Corkboard.Boards.Location

        func run() throws {
            guard let store = try location.data.openStore(create: false)?.store else {
                throw CommandFailure("There is no board store in \(location.data.place); check --data.")
            }
            let record = try CommandFailure.reporting { try store.rotateKeys(of: id) }
            print("new keys for \(record.id); the old links no longer open it")
            location.printLinks(of: record)
        }
    }
}
