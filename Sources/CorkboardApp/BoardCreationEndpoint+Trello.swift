import CorkboardModel
import CorkboardStorage
import CorkboardTransport
import Foundation
import Synchronization

extension BoardCreationEndpoint {
    /// The route of Trello imports, beside `POST /api/boards`.
    static let trelloImportPath = "/api/boards/import/trello"

    /// `POST /api/boards/import/trello`: a new board from a Trello board export (the JSON file as
    /// the body, at most `TrelloImport.maxFileBytes`), under the same origin rule, creation limits
    /// and board cap as `POST /api/boards`; answers the board's keys, links and the import report.
    /// A file that is not a Trello export creates nothing.
    func importTrello(_ request: HTTPRequest) async -> HTTPResponse {
        if let refusal = precheck(request, what: "the Trello export") { return refusal }
        guard request.body.count <= TrelloImport.maxFileBytes else {
            return HTTPJSON.error(
                .tooLarge, "a Trello export may have at most \(TrelloImport.maxFileBytes) bytes (50 MiB)")
        }
        // The ids inside the board start with a name of its own; the board's id is chosen below.
        let prefix = BoardRecord.generatedID("trello")
        let converted: TrelloImport.Converted
        do {
            converted = try TrelloImport.convert(Data(request.body), boardID: prefix)
        } catch {
            return HTTPJSON.error(.badRequest, error.message)
        }
        if let refusal = admitCreation(from: request) { return refusal }
        let record: BoardRecord
        do {
            record = try creating.withLock { _ throws(HTTPFailure) -> BoardRecord in
                try create(nil, converted.title, .empty, content: converted.board)
            }
        } catch {
            return error.response
        }
        return created(record, request: request, report: converted.report)
    }
}
