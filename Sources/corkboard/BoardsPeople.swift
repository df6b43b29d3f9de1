import ArgumentParser
import CorkboardCommandLine
import CorkboardModel
import CorkboardStorage
import Foundation

extension Corkboard.Boards {
    /// `corkboard boards invite BOARD --name NAME --role ROLE`: a personal invite link (issue 45).
    struct Invite: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a personal invite for one named person with a role, and print its link.",
            discussion: """
                The first browser that opens the link claims it: the person appears on the board under \
                NAME, with ROLE (admin, editor, commenter or viewer). The link carries a 128-bit token: \
                send it to that person only. `corkboard boards revoke` disables it.
                """)

        @Argument(help: "The id of the board.")
        var board: String

        @Option(help: "The person's name, 1 to 64 characters: the board shows it on everything they do.")
        var name: String

        @Option(help: "What the person may do: admin, editor, commenter or viewer.")
        var role: String

        @Option(help: "The invite stops working after this many days (from now).")
        var expiresDays: Double?

        @Flag(help: "Only one browser may claim the invite.")
        var oneUse = false

        @OptionGroup var location: Corkboard.Boards.Location

        func run() throws {
            guard let role = Role(rawValue: role) else {
                throw ValidationError("Unknown role '\(self.role)'; use admin, editor, commenter or viewer.")
            }
            if let expiresDays, !(expiresDays > 0) {
                throw ValidationError("--expires-days must be more than 0, got \(expiresDays).")
            }
            let store = try location.openCatalog()
            let now = Date().timeIntervalSince1970
            let expiresAt = expiresDays.map { now + $0 * 86_400 }
            var created: CorkboardStorage.Invite?
            let record = try CommandFailure.reporting {
                try store.updateRecord(board) { record in
                    created = try record.apply(
                        .createInvite(name: name, role: role, expiresAt: expiresAt, oneUse: oneUse), now: now)
                }
            }
            guard let created else { return }
            print("invite \(created.id) for \(created.name) as \(created.role.rawValue) on \(record.id)")
            print("  link: \(record.inviteLink(created, base: location.linkBase))")
        }
    }

    /// `corkboard boards members BOARD`: the board's people, invites and links row.
    struct Members: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a board's people, its personal invites (with their links) and its anyone-with-the-link row."
        )

        @Argument(help: "The id of the board.")
        var board: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        @OptionGroup var location: Corkboard.Boards.Location

        func run() throws {
            let store = try location.openCatalog()
            guard let record = try store.load().first(where: { $0.id == board }) else {
                throw CommandFailure(CatalogError.noBoard(board).description)
            }
            let people = record.people
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(people), as: UTF8.self))
                return
            }
            print("\(record.id): anyone with the link \(people.linksEnabled ? "on" : "off")")
            print(people.people.isEmpty ? "no people yet" : "people:")
            for person in people.people {
                var line =
                    "  \(person.id)  \(person.name)  \(person.role.rawValue)  joined \(Self.date(person.joinedAt))"
                if let seen = person.lastSeen { line += ", last seen \(Self.date(seen))" }
                if person.removed { line += "  (removed)" }
                print(line)
            }
            print(people.invites.isEmpty ? "no invites yet" : "invites:")
            for invite in people.invites {
                var line = "  \(invite.id)  \(invite.name)  \(invite.role.rawValue)  used \(invite.uses)"
                if let maxUses = invite.maxUses { line += " of \(maxUses)" }
                if let expiresAt = invite.expiresAt { line += ", expires \(Self.date(expiresAt))" }
                if invite.disabled { line += "  (disabled)" }
                print(line)
                if !invite.disabled { print("    link: \(record.inviteLink(invite, base: location.linkBase))") }
            }
        }

        static func date(_ seconds: Double) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
            return formatter.string(from: Date(timeIntervalSince1970: seconds))
        }
    }

    /// `corkboard boards revoke BOARD ID`: removes a person or disables an invite.
    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a person (p-…) or disable an invite (i-…) of a board.",
            discussion: """
                A running server closes a removed person's connections within a second (close 1008, \
                saying why) and leaves everyone else connected; their invite stops working. A disabled \
                invite cannot be claimed any more; people who claimed it keep their access. \
                `corkboard boards members` lists the ids.
                """)

        @Argument(help: "The id of the board.")
        var board: String

        @Argument(help: "The person (p-…) or invite (i-…) to revoke.")
        var id: String

        @OptionGroup var location: Corkboard.Boards.Location

        func run() throws {
            let change: PeopleChange
            if id.hasPrefix("p-") {
                change = .removePerson(id)
            } else if id.hasPrefix("i-") {
                change = .updateInvite(id: id, disabled: true)
            } else {
                throw ValidationError(
                    "'\(id)' is neither a person (p-…) nor an invite (i-…); `corkboard boards members \(board)` lists them."
                )
            }
            let store = try location.openCatalog()
            let now = Date().timeIntervalSince1970
            _ = try CommandFailure.reporting { try store.updateRecord(board) { try $0.apply(change, now: now) } }
            print(id.hasPrefix("p-") ? "removed \(id) from \(board)" : "disabled invite \(id) of \(board)")
        }
    }
}

extension Corkboard.Boards.Location {
    /// The board list of the data folder or database, which must exist.
    func openCatalog() throws -> any BoardCatalog {
        guard let store = try data.openStore(create: false)?.store else {
            throw CommandFailure("There is no board store in \(data.place); check --data.")
        }
        return store
    }
}

extension BoardRecord {
    /// The link that claims `invite`: `BASE?board=ID&invite=TOKEN`.
    func inviteLink(_ invite: CorkboardStorage.Invite, base: String) -> String {
        let root = base.hasSuffix("/") ? base : base + "/"
        let board = id.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? id
        return "\(root)?board=\(board)&invite=\(invite.token)"
    }
}
