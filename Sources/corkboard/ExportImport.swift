import ArgumentParser
import CorkboardCommandLine
import CorkboardModel
import CorkboardPostgres
import CorkboardServer
import CorkboardStorage
import CorkboardStore
import Foundation

extension Corkboard {
    /// `corkboard export BOARD`: a board as a versioned JSON file.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a board (its record, keys and current content) as a versioned JSON file.")

        @Argument(help: "The board id.")
        var board: String

        @Option(name: .shortAndLong, help: "The file to write; - for standard output. (default: BOARD.corkboard.json)")
        var output: String?

        @OptionGroup var data: StoreLocationOption

        func run() throws {
            guard let store = try data.openStore(create: false)?.store else {
                throw CommandFailure("There is no board store in \(data.place); check --data.")
            }
            let archive = try BoardArchive(exporting: board, from: store)
            let bytes = try archive.jsonData()
            let path = output ?? "\(board).corkboard.json"
            if path == "-" {
                FileHandle.standardOutput.write(bytes)
                return
            }
            do {
                try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw CommandFailure("Cannot write '\(path)': \(error.localizedDescription)")
            }
            FileHandle.standardError.write(
                Data(
                    "exported \(board) at seq \(archive.snapshot.seq) (\(archive.snapshot.board.itemCount) items) to \(path)\n"
                        .utf8))
        }
    }

    /// `corkboard import FILE`: adds an exported board to the store.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a board from a file written by `corkboard export` (validated first).",
            discussion: "A running server picks the board up the first time someone opens it.")

        @Argument(help: "The file written by `corkboard export`.")
        var file: String

        @Option(help: "Import under another id (the original id must otherwise be free).")
        var id: String?

        @Flag(help: "Give the imported board fresh edit and view keys (old share links stop working).")
        var newKeys = false

        @OptionGroup var data: StoreLocationOption

        func run() throws {
            let bytes: Data
            do {
                bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("Cannot read '\(file)': \(error.localizedDescription)")
            }
            var archive: BoardArchive
            do {
                archive = try BoardArchive(jsonData: bytes)
            } catch {
                throw CommandFailure("'\(file)' is not a board archive this build can import: \(error.message)")
            }
            if let id { archive.board.id = id }
            if newKeys { archive.board.keys = .random() }
            guard let store = try data.openStore(create: true)?.store else { return }
            try CommandFailure.reporting { try archive.importing(into: store) }
            print(
                "imported \(archive.board.id) at seq \(archive.snapshot.seq) (\(archive.snapshot.board.itemCount) items)"
            )
        }
    }

    /// `corkboard check`: verifies the store and every board in it.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check the board store: SQLite integrity (or the PostgreSQL schema), every board's log, invariants and activity feed.",
            discussion: "Exits 0 when everything is sound, 1 otherwise, printing one line per board.")

        @OptionGroup var data: StoreLocationOption

        func run() throws {
            // Read only: checking never writes, so a store on a read-only file or mount can be checked.
            guard let opened = try data.openStoreForReading() else {
                throw CommandFailure("There is no board store in \(data.place); check --data.")
            }
            var sound = true
            let store = opened.store
            switch opened {
            case .sqlite(let sqlite):
                let integrity = try sqlite.integrityCheck()
                if integrity == ["ok"] {
                    print("sqlite integrity: ok")
                } else {
                    sound = false
                    print("sqlite integrity: \(integrity.joined(separator: "; "))")
                }
            case .postgres(let postgres):
                print("postgres: \(try postgres.describe())")
            }
            for record in try store.load() {
                do {
                    let stored = try store.load(board: record.id)
                    let archive = try BoardArchive(record: record, stored: stored)
                    let activity = ActivityAudit(stored?.activity ?? [], head: archive.snapshot.seq)
                    let problems = archive.snapshot.board.checkInvariants().map(\.description) + activity.problems
                    if problems.isEmpty {
                        print(
                            "\(record.id): ok at seq \(archive.snapshot.seq), \(archive.snapshot.board.itemCount) items, "
                                + activity.summary)
                    } else {
                        sound = false
                        print("\(record.id): \(problems.joined(separator: "; "))")
                    }
                } catch {
                    sound = false
                    print("\(record.id): \(error)")
                }
            }
            if !sound { throw ExitCode.failure }
        }
    }
}
