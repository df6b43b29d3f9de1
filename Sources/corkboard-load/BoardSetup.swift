import ArgumentParser
import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import Foundation

/// A board a run uses: where its draggable items are, and which sections take them.
struct PlannedBoard: Codable, Sendable {
    /// A section and its collection.
    struct Place: Codable, Sendable {
        var collection: CollectionID
        var section: SectionID
    }

    var id: String
    var key: String?
    /// Sections whose collection accepts the run's item type, with their collection.
    var sections: [Place]
    /// Top-level items of those sections.
    var items: [ItemID]
    /// Items in the largest such section (a drop index is drawn below it plus one).
    var itemsPerSection: Int
    /// The URL of the node that sequences the board (where a cluster's redirects led the setup
    /// connection); the run's light peers connect there directly.
    var url: String?
}

/// Which boards a run uses: one named board (the demo board by default), or `--boards N` boards
/// whose ids start with `--board-prefix`, listed from the server's data folder with
/// `corkboard boards list --json` (create them first with `corkboard-load setup`).
struct BoardSelection: ParsableArguments {
    @Option(help: "The board to use when --boards is 0 (open it with `corkboard serve --demo` for the demo board).")
    var board = "demo"

    @Option(help: "The edit key of --board (none for an open board).")
    var key: String?

    @Option(
        help: """
            Use this many boards named --board-prefix… from the data folder instead of --board (0 = --board; \
            default: the scenario's).
            """)
    var boards: Int?

    @Option(help: "The id prefix of the boards made by `corkboard-load setup`.")
    var boardPrefix = "load-"

    @Option(help: "The server's data folder, to list board keys from (with --boards).")
    var data: String?

    @Option(help: "A file holding `corkboard boards list --json` output, instead of --data.")
    var boardList: String?

    @Option(help: "The corkboard executable (default: the one next to this binary).")
    var corkboard: String?

    /// The boards' ids and keys.
    func resolve(defaultBoards: Int = 0) throws -> [(id: String, key: String?)] {
        let boards = self.boards ?? defaultBoards
        guard boards > 0 else { return [(board, key)] }
        let listed = try BoardList.read(file: boardList, data: data, corkboard: corkboard)
        let matching = listed.filter { $0.id.hasPrefix(boardPrefix) }.sorted { $0.id < $1.id }
        guard matching.count >= boards else {
            throw ValidationError(
                "Only \(matching.count) boards named \(boardPrefix)… exist; create \(boards) with "
                    + "`corkboard-load setup --boards \(boards) --data DIR` before starting the server.")
        }
        return Array(matching.prefix(boards)).map { ($0.id, $0.key) }
    }
}

/// Reads board ids and edit keys from `corkboard boards list --json`.
enum BoardList {
    struct Row: Decodable {
        var id: String
        var edit: String
    }

    static func read(file: String?, data: String?, corkboard: String?) throws -> [(id: String, key: String?)] {
        let bytes: Data
        if let file {
            guard let read = FileManager.default.contents(atPath: file) else {
                throw ValidationError("Cannot read the board list '\(file)'.")
            }
            bytes = read
        } else if let data {
            let output = try Shell.run(
                corkboardPath(corkboard), ["boards", "list", "--json", "--data", data])
            bytes = Data(output.utf8)
        } else {
            throw ValidationError("--boards needs --data (the server's data folder) or --board-list.")
        }
        guard let rows = try? JSONDecoder().decode([Row].self, from: bytes) else {
            if String(decoding: bytes, as: UTF8.self).hasPrefix("No boards") { return [] }
            throw ValidationError("The board list is not the JSON of `corkboard boards list --json`.")
        }
        return rows.map { row in
            let key = URLComponents(string: row.edit)?.queryItems?.first { $0.name == "key" }?.value
            return (row.id, key)
        }
    }

    /// The corkboard executable: the given path, or the one next to this binary.
    static func corkboardPath(_ given: String?) -> String {
        if let given { return given }
        let me = ChildProcess.selfPath
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("corkboard").path
    }
}

/// Runs a command and returns its standard output; throws with its standard error on failure.
enum Shell {
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let out = Pipe()
        let err = Pipe()
        let process = try ChildProcess.start(
            executable, arguments, output: out, errors: err, what: "the corkboard CLI", hint: "; pass --corkboard PATH."
        )
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError(
                "`\(executable) \(arguments.joined(separator: " "))` failed: \(String(decoding: errors, as: UTF8.self))"
            )
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Brings boards up to the number of items a run needs, over the protocol, and reads their layout.
enum BoardPreparer {
    /// Joins `board`, inserts items of `itemType` until the accepting sections hold `minItems`
    /// (spread over those sections), and returns the board's plan.
    static func prepare(
        client: BoardClient, url: String, alternateURLs: [String] = [], allowSelfSigned: Bool = false, board: String,
        key: String?, minItems: Int, itemType: String
    ) async throws -> PlannedBoard {
        let connection = try await client.connect(
            BoardConnection.Options(
                url: url, board: board, key: key, name: "load setup", allowSelfSigned: allowSelfSigned,
                timeout: .seconds(60), alternateURLs: alternateURLs))
        defer { connection.close() }
        var plan = layout(connection.replica.confirmed, board: board, key: key, itemType: itemType)
        guard !plan.sections.isEmpty else {
            throw ValidationError("Board \(board) has no section that accepts \(itemType) items.")
        }
        var missing = minItems - plan.items.count
        var batch = 0
        while missing > 0 {
            let count = min(missing, 250)
            let target = plan.sections[batch % plan.sections.count]
            let items = (0..<count).map { n in
                NewItem(representations: [
                    Representation(
                        type: itemType, value: itemType == "corkboard.card" ? "{\"name\":\"load \(n)\"}" : "load \(n)")
                ])
            }
            let outcome = try await connection.perform(
                .insert(
                    BoardOperation.Insert(
                        items: items,
                        destination: Destination(collection: target.collection, section: target.section, index: 0))),
                timeout: .seconds(60))
            guard case .committed = outcome else {
                throw ValidationError("Inserting items into \(board) was rejected: \(outcome).")
            }
            missing -= count
            batch += 1
        }
        if batch > 0 {
            try await connection.settle(timeout: .seconds(60))
            plan = layout(connection.replica.confirmed, board: board, key: key, itemType: itemType)
        }
        plan.url = connection.currentURL
        return plan
    }

    static func layout(_ board: Board, board id: String, key: String?, itemType: String) -> PlannedBoard {
        var sections: [PlannedBoard.Place] = []
        var items: [ItemID] = []
        var largest = 0
        for collection in board.collectionIDs {
            let accepts = board.accepts(of: collection) ?? []
            guard accepts.isEmpty || accepts.contains(itemType) else { continue }
            for section in board.sectionIDs(in: collection) ?? [] {
                sections.append(PlannedBoard.Place(collection: collection, section: section))
                let here = board.itemIDs(in: section) ?? []
                items += here.filter { !board.isPlaceholder($0) }
                largest = max(largest, here.count)
            }
        }
        return PlannedBoard(id: id, key: key, sections: sections, items: items, itemsPerSection: largest)
    }
}
