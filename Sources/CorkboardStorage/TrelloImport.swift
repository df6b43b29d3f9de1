public import CorkboardModel
public import Foundation

/// Converts a Trello board export (JSON) into a new Corkboard board: a pure conversion, no I/O.
///
/// Open lists become list collections in `pos` order, their open cards cards in `pos` order (name →
/// title, `desc` → description, labels, due and start dates, `dueComplete` → done, checklists with
/// their items checked or not); attachments by URL are appended to the description as markdown
/// links; `commentCard` actions become comments with their author's name and original time. Closed
/// lists and closed cards are left out (there is no Trash yet) and counted. Every Corkboard bound
/// holds: over-long text is cut with a marker and counted, never refused.
public enum TrelloImport {
    /// The largest export file accepted, in bytes (50 MiB).
    public static let maxFileBytes = 50 << 20
    /// The longest card title, in characters (what the browser's card editor takes).
    public static let cardTitleCharacters = 200
    /// The longest board title, in characters (what `POST /api/boards` takes).
    public static let boardTitleCharacters = 100
    /// The longest collection title, in UTF-8 bytes (the protocol's title bound).
    public static let collectionTitleBytes = 512
    /// The longest comment author name, in characters (the protocol's display name bound).
    public static let authorNameCharacters = 64
    /// What ends a text that was cut to fit.
    public static let truncationMarker = " … [cut on import]"

    /// What an import brought over and what it left out.
    public struct Report: Hashable, Codable, Sendable {
        /// Lists imported as collections.
        public var lists = 0
        /// Cards imported.
        public var cards = 0
        /// Labels imported.
        public var labels = 0
        /// Comments imported.
        public var comments = 0
        /// Checklists imported.
        public var checklists = 0
        /// Checklist items imported.
        public var checklistItems = 0
        /// Checklist items left out: blank ones, and those past `CardLimits.checklistItems` or on
        /// checklists past `CardLimits.checklists` on a card.
        public var checklistItemsLeftOut = 0
        /// Attachments written into descriptions as links.
        public var attachments = 0
        /// Closed (archived) lists left out, and the open cards on them.
        public var closedLists = 0
        /// Closed (archived) cards left out, and cards on no known list.
        public var closedCards = 0
        /// Labels past `CardLimits.labels` left out.
        public var labelsLeftOut = 0
        /// Comments left out: blank ones, and the oldest past `CardLimits.comments` on a card.
        public var commentsLeftOut = 0
        /// Cards left out because the board would pass its size limit (R14).
        public var cardsLeftOutForSize = 0
        /// Texts (titles, descriptions, comments, label names) cut to fit their bound.
        public var truncated = 0

        /// Creates an empty report.
        public init() {}

        /// The report as lines for people.
        public var lines: [String] {
            var lines = [
                "\(lists) lists, \(cards) cards, \(labels) labels, \(comments) comments",
                "\(checklists) checklists with \(checklistItems) items",
                "\(attachments) attachment links appended to descriptions",
            ]
            if checklistItemsLeftOut > 0 {
                lines.append(
                    "left out: \(checklistItemsLeftOut) blank checklist items or past \(CardLimits.checklists) "
                        + "checklists or \(CardLimits.checklistItems) items on a card")
            }
            if closedLists + closedCards > 0 {
                lines.append("left out: \(closedLists) closed lists and \(closedCards) closed cards (no Trash yet)")
            }
            if labelsLeftOut > 0 { lines.append("left out: \(labelsLeftOut) labels past \(CardLimits.labels)") }
            if commentsLeftOut > 0 {
                lines.append("left out: \(commentsLeftOut) blank comments or past \(CardLimits.comments) on a card")
            }
            if cardsLeftOutForSize > 0 {
                lines.append("left out: \(cardsLeftOutForSize) cards past the board size limit")
            }
            if truncated > 0 { lines.append("cut to fit: \(truncated) texts (ending \"\(truncationMarker)\")") }
            return lines
        }
    }

    /// A converted board: its title (for the board's record), the board and the report.
    public struct Converted: Sendable {
        /// The Trello board's name, cut to `boardTitleCharacters`.
        public var title: String
        /// The board.
        public var board: Board
        /// What was brought over and left out.
        public var report: Report
    }

    /// Converts an export's bytes into a board whose ids start with `boardID`.
    ///
    /// - Throws: `TrelloImportError` when the file is too large, not JSON, or not a Trello board
    ///   export; nothing is created then.
    public static func convert(
        _ data: Data, boardID: String, sizeLimit: Int = SnapshotSize.defaultLimit
    ) throws(TrelloImportError) -> Converted {
        guard data.count <= maxFileBytes else {
            throw TrelloImportError(
                "The file has \(data.count) bytes; a Trello export may have at most \(maxFileBytes) (50 MiB).")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) else {
            throw TrelloImportError("The file is not valid JSON; export the board from Trello as JSON and try again.")
        }
        guard let fields = object as? [String: Any], fields["lists"] is [Any], fields["cards"] is [Any] else {
            throw TrelloImportError(
                "The JSON is not a Trello board export: it has no \"lists\" and \"cards\" arrays. In Trello, "
                    + "use the board menu's \"Print, export and share\" → \"Export as JSON\".")
        }
        let export: TrelloExport
        do {
            export = try JSONDecoder().decode(TrelloExport.self, from: data)
        } catch {
            throw TrelloImportError("The Trello export has a field of an unexpected shape: \(describe(error)).")
        }
        var converter = Converter(export: export, boardID: boardID, sizeLimit: sizeLimit)
        let board: Board
        do {
            board = try converter.board()
        } catch {
            throw TrelloImportError("The converted board does not build: \(error).")
        }
        var title = cleanLine(export.name ?? "")
        if title.isEmpty { title = "Trello board" }
        if title.count > boardTitleCharacters {
            title = String(title.prefix(boardTitleCharacters - 1)) + "…"
            converter.report.truncated += 1
        }
        return Converted(title: title, board: board, report: converter.report)
    }

    /// A decoding error as a short path and reason.
    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return "\(path.isEmpty ? "the top level" : path): \(context.debugDescription)"
        default: return "\(error)"
        }
    }

    /// One line: control characters (line breaks, tabs) become spaces, the ends trimmed.
    static func cleanLine(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 })
        ).trimmingCharacters(in: .whitespaces)
    }

    /// `text` cut to at most `maxBytes` of UTF-8 (on a character boundary) ending with the marker,
    /// or `nil` when it fits as it is.
    static func fitting(_ text: String, maxBytes: Int) -> String? {
        guard text.utf8.count > maxBytes else { return nil }
        let budget = maxBytes - truncationMarker.utf8.count
        var used = 0
        var end = text.startIndex
        for character in text {
            let size = character.utf8.count
            if used + size > budget { break }
            used += size
            end = text.index(after: end)
        }
        return String(text[..<end]) + truncationMarker
    }

    /// The Corkboard colour of a Trello colour (`green`, `green_dark`, `lime_light`, `black`, `null`…).
    public static func color(_ trello: String?) -> LabelColor {
        let base = trello?.split(separator: "_").first.map(String.init) ?? ""
        switch base {
        case "lime": return .green
        case "black": return .gray
        default: return LabelColor(rawValue: base) ?? .gray
        }
    }
}

/// Why a Trello export cannot be imported; nothing was created.
public struct TrelloImportError: Error, CustomStringConvertible, Sendable {
    /// What is wrong and what to do.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
