import ArgumentParser
import CorkboardCommandLine
import CorkboardModel
import CorkboardStorage
import CorkboardStore
import Foundation

extension Corkboard.Boards {
    /// `corkboard boards import --trello FILE`: a new board from a Trello board export.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a new board from a Trello board export (JSON).",
            discussion: """
                Open lists become collections and their open cards cards, with descriptions, labels, due \
                dates, done flags and comments; checklists and attachment links are appended to each \
                description (Corkboard has no checklists yet). Closed lists and cards are left out. Text \
                past a Corkboard limit is cut with a marker; the report says how much. A file that is not \
                a Trello export, or larger than 50 MiB, creates nothing.
                """)

        @Option(
            help: "The Trello export: in Trello, the board menu's \"Print, export and share\" → \"Export as JSON\".")
        var trello: String

        @Option(help: "The new board's id: letters, digits, '-' or '_'. (default: from the Trello board's name)")
        var id: String?

        @Option(help: "The title shown on the board. (default: the Trello board's name)")
        var title: String?

        @OptionGroup var location: Corkboard.Boards.Location

        func run() throws {
            let url = URL(fileURLWithPath: trello)
            let attributes = try? FileManager.default.attributesOfItem(atPath: trello)
            if let size = attributes?[.size] as? Int, size > TrelloImport.maxFileBytes {
                throw CommandFailure(
                    "'\(trello)' has \(size) bytes; a Trello export may have at most \(TrelloImport.maxFileBytes) "
                        + "(50 MiB). Nothing was created.")
            }
            let bytes: Data
            do {
                bytes = try Data(contentsOf: url)
            } catch {
                throw CommandFailure("Cannot read '\(trello)': \(error.localizedDescription)")
            }
            // The ids inside the board start with its id when given, else with a name of their own.
            let converted: TrelloImport.Converted
            do {
                converted = try TrelloImport.convert(bytes, boardID: id ?? BoardRecord.generatedID("trello"))
            } catch {
                throw CommandFailure("'\(trello)' cannot be imported: \(error.message) Nothing was created.")
            }
            let board = converted.board
            let finalID = id ?? BoardRecord.generatedID(title ?? converted.title)
            guard let store = try location.data.openStore(create: true)?.store else { return }
            let record = BoardRecord(
                id: finalID, title: title ?? converted.title, keys: .random(), template: .empty,
                createdAt: Date().timeIntervalSince1970)
            try CommandFailure.reporting {
                try BoardArchive(board: record, snapshot: Snapshot(seq: 0, board: board)).importing(into: store)
            }
            print("imported \(record.id) from Trello: \(record.title)")
            for line in converted.report.lines { print("  \(line)") }
            location.printLinks(of: record)
        }
    }
}
