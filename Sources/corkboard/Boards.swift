import ArgumentParser
import CorkboardCommandLine
import CorkboardServer
import CorkboardStorage
import CorkboardStore
import Foundation

extension Corkboard {
    /// `corkboard boards`: list the boards of a data folder with their share links, or create one.
    struct Boards: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List boards with their share links; create, import (from Trello), delete a board or rotate its keys; invite, list and revoke its people.",
            discussion: """
                Reads and writes the board list in the data folder's corkboard.sqlite (or the PostgreSQL \
                database of --postgres-url); a running server \
                picks up a new board the first time someone opens it. Each board has four links, one per role: the admin \
                link (keep it: it hands out every other link), the edit link (change the board), the comment link \
                (comment on cards, nothing else) and the view link (see it live, read-only). Keys are 128-bit random \
                tokens: share them like passwords.
                """,
            subcommands: [
                List.self, Create.self, Import.self, Delete.self, RotateKeys.self, Invite.self, Members.self,
                Revoke.self,
            ],
            defaultSubcommand: List.self
        )

        struct Location: ParsableArguments {
            @OptionGroup var data: StoreLocationOption

            @Option(
                help: """
                    The server's address, used in the links. [env: CORKBOARD_BASE_URL] (default: the address \
                    the data folder's last `corkboard serve` listened on, else CORKBOARD_HOST and CORKBOARD_PORT, \
                    else http://127.0.0.1:8080/)
                    """)
            var baseURL: String?

            /// The base of the printed links (``ServedAddress/linkBase(given:dataFolder:environment:)``).
            var linkBase: String { ServedAddress.linkBase(given: baseURL, dataFolder: data.folder) }

            /// Prints a board's links, one per role, indented under the line that names it: the admin
            /// link first (it hands out every other), then edit, comment and view.
            func printLinks(of record: BoardRecord) {
                let links = record.shareLinks(base: linkBase)
                // An admin turned the anyone-with-the-link row off: those links open nothing (issue 45).
                let off = record.people.linksEnabled ? "" : "  (off: the board's share links are turned off)"
                if let admin = links.admin { print("  admin: \(admin)") }
                print("  edit: \(links.edit)\(off)")
                if let comment = links.comment { print("  comment: \(comment)\(off)") }
                print("  view: \(links.view)\(off)")
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List every board with its admin, edit, comment and view links (the default).")

            @OptionGroup var location: Location

            @Flag(help: "Print JSON instead of a table.")
            var json = false

            func run() throws {
                guard let store = try location.data.openStore(create: false)?.store else {
                    print("No boards yet in \(location.data.place); `corkboard serve` creates the demo board.")
                    return
                }
                let records = try store.load()
                let sizes = records.map { BoardSize.of($0, in: store) }
                if json {
                    let rows = zip(records, sizes).map { record, size -> [String: Any] in
                        let links = record.shareLinks(base: location.linkBase)
                        var row: [String: Any] = [
                            "id": record.id, "title": record.title, "edit": links.edit, "view": links.view,
                        ]
                        if let admin = links.admin { row["admin"] = admin }
                        if let comment = links.comment { row["comment"] = comment }
                        switch size {
                        case .bytes(let bytes, let seq):
                            row["bytes"] = bytes
                            row["seq"] = seq
                        case .unreadable(let why): row["error"] = why
                        }
                        return row
                    }
                    let data = try JSONSerialization.data(
                        withJSONObject: rows, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
                    print(String(decoding: data, as: UTF8.self))
                    return
                }
                guard !records.isEmpty else {
                    print("No boards yet in \(location.data.place); `corkboard serve` creates the demo board.")
                    return
                }
                for (record, size) in zip(records, sizes) {
                    print("\(record.id)  \(record.title)  (\(size))")
                    location.printLinks(of: record)
                }
            }
        }

        struct Create: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create a board with fresh keys.")

            @Argument(help: "The board id: letters, digits, '-' or '_'.")
            var id: String

            @Option(help: "The title shown on the board. (default: the id)")
            var title: String?

            @Option(help: "The starting content: demo or empty.")
            var template: String = "empty"

            @OptionGroup var location: Location

            func run() throws {
                guard let template = BoardTemplate(rawValue: template) else {
                    let names = BoardTemplate.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ValidationError("Unknown template '\(self.template)'; use one of: \(names).")
                }
                guard let store = try location.data.openStore(create: true)?.store else { return }
                let record = BoardRecord(
                    id: id, title: title ?? id, keys: .random(), template: template,
                    createdAt: Date().timeIntervalSince1970)
                try CommandFailure.reporting { try store.add(record) }
                print("created \(record.id)")
                location.printLinks(of: record)
            }
        }
    }
}
