import CorkboardModel
import CorkboardServer
import CorkboardStorage
import CorkboardTransport
import Foundation
import Synchronization

/// `POST /api/boards`: creates a board from the browser's start page and answers its keys and
/// share links.
///
/// Same-origin only, at most `perMinute` creations a minute per remote address, at most
/// `maxBoards` boards on the server. See docs/PROTOCOL.md, "HTTP endpoints".
final class BoardCreationEndpoint: Sendable {
    /// The request body.
    struct Request: Decodable {
        var title: String?
        var template: String?
        var id: String?
    }

    /// The answer: the new board with its keys and share links, one per role. Its creator gets
    /// the admin key and opens the board with it (R17).
    struct Created: Encodable {
        var id: String
        var title: String
        var adminKey: String
        var editKey: String
        var commentKey: String
        var viewKey: String
        /// The share link that opens the admin role.
        var admin: String?
        /// The share link that opens the editor role.
        var edit: String
        /// The share link that opens the commenter role.
        var comment: String?
        /// The share link that opens the viewer role.
        var view: String
        /// What a Trello import brought over and left out (imports only).
        var report: TrelloImport.Report?
    }

    /// The largest request body accepted.
    static let maxBodyBytes = 4096

    private let directory: BoardDirectory
    private let maxBoards: Int
    private let perMinute: Int
    private let totalPerMinute: Int
    private let clock: any BoardClock
    /// Creation times per remote address within the last minute; creations run one at a time.
    private let state = Mutex<[String: [BoardTime]]>([:])
    let creating = Mutex(())

    init(
        directory: BoardDirectory, maxBoards: Int, perMinute: Int, totalPerMinute: Int = 60,
        clock: any BoardClock = SystemBoardClock()
    ) {
        self.directory = directory
        self.maxBoards = maxBoards
        self.perMinute = perMinute
        self.totalPerMinute = totalPerMinute
        self.clock = clock
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if let refusal = precheck(request, what: "the board") { return refusal }
        let body: Request
        do {
            body = try JSONDecoder().decode(Request.self, from: Data(request.body))
        } catch {
            return HTTPJSON.error(.badRequest, "the body is not a JSON object {\"title\", \"template\", \"id\"?}")
        }
        let title = (body.title ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(title.count) else {
            return HTTPJSON.error(.badRequest, "title must be 1 to 100 characters, got \(title.count)")
        }
        guard !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return HTTPJSON.error(.badRequest, "title must not contain control characters such as line breaks")
        }
        let template: BoardTemplate
        switch body.template ?? "empty" {
        case "empty": template = .empty
        case "demo": template = .demo
        case let other: return HTTPJSON.error(.badRequest, "template must be \"empty\" or \"demo\", got \"\(other)\"")
        }
        if let id = body.id, !Self.isValidID(id) {
            return HTTPJSON.error(.badRequest, "id must be 1 to 64 of a-z, 0-9 and -, got \"\(id)\"")
        }
        if let refusal = admitCreation(from: request) { return refusal }
        let record: BoardRecord
        do {
            record = try creating.withLock { _ throws(HTTPFailure) -> BoardRecord in
                try create(body.id, title, template, content: nil)
            }
        } catch {
            return error.response
        }
        return created(record, request: request, report: nil)
    }

    /// An error answer carried out of the creation lock.
    struct HTTPFailure: Error {
        let response: HTTPResponse
    }

    /// Creates the board under the creation lock: `id`, or one made from the title; with `content`
    /// instead of the template's when given.
    func create(
        _ id: String?, _ title: String, _ template: BoardTemplate, content: Board?
    ) throws(HTTPFailure) -> BoardRecord {
        guard directory.records.count < maxBoards else {
            throw HTTPFailure(
                response: HTTPJSON.error(.boardLimit, "this server holds its maximum of \(maxBoards) boards"))
        }
        let exists = { (id: String) in self.directory.records.contains { $0.id == id } }
        if let id, exists(id) {
            throw HTTPFailure(
                response: HTTPJSON.error(.boardExists, "a board \"\(id)\" already exists; choose another id"))
        }
        var candidate = id ?? BoardRecord.generatedID(title)
        var attempts = 0
        while true {
            do {
                return try directory.create(id: candidate, title: title, template: template, content: content)
            } catch {
                attempts += 1
                // A store that failed to save an imported board's content is not retried under another id.
                if id != nil || attempts >= 5 || error is StoreError {
                    let taken = exists(candidate) || "\(error)".contains("already exists")
                    throw HTTPFailure(
                        response: taken
                            ? HTTPJSON.error(.boardExists, "a board \"\(candidate)\" already exists; choose another id")
                            : HTTPJSON.error(.internal, "the board could not be saved: \(error)"))
                }
                candidate = BoardRecord.generatedID(title)
            }
        }
    }

    /// Refuses a request from another origin or whose body is not JSON (`what` names the body).
    func precheck(_ request: HTTPRequest, what: String) -> HTTPResponse? {
        guard request.isOriginAllowed else {
            return HTTPJSON.error(
                .badOrigin,
                "boards are created from this server's own pages only (Origin \(request.header("origin") ?? "-"))")
        }
        let contentType = request.header("content-type")?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard contentType == "application/json" else {
            return HTTPJSON.error(.unsupportedType, "send \(what) as JSON with Content-Type: application/json")
        }
        return nil
    }

    /// The 201 answer for a created board: its keys and share links under the request's host.
    func created(_ record: BoardRecord, request: HTTPRequest, report: TrelloImport.Report?) -> HTTPResponse {
        let host = request.header("host").flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        let links = record.shareLinks(base: "\(request.scheme)://\(host)/")
        return HTTPJSON.response(
            Created(
                id: record.id, title: record.title, adminKey: record.keys.admin, editKey: record.keys.edit,
                commentKey: record.keys.comment, viewKey: record.keys.view, admin: links.admin, edit: links.edit,
                comment: links.comment, view: links.view, report: report),
            status: 201)
    }

    /// Counts a creation against both limits (everyone's, then the address's); the refusal when over one.
    func admitCreation(from request: HTTPRequest) -> HTTPResponse? {
        if let wait = admit(Self.everyone, limit: totalPerMinute) {
            return HTTPJSON.error(
                .rateLimited,
                "this server creates at most \(totalPerMinute) boards a minute for everyone; try again in \(wait) s",
                headers: [HTTPHeader("retry-after", "\(wait)")])
        }
        if let wait = admit(request.remoteAddress, limit: perMinute) {
            return HTTPJSON.error(
                .rateLimited,
                "at most \(perMinute) boards a minute may be created from one address; try again in \(wait) s",
                headers: [HTTPHeader("retry-after", "\(wait)")])
        }
        return nil
    }

    /// The key under which every creation counts against ``totalPerMinute`` (no address has it).
    private static let everyone = "*"

    /// Counts a creation for `address`; returns the seconds to wait when over `limit`.
    private func admit(_ address: String, limit: Int) -> Int? {
        let t = clock.now
        let minute = Duration.seconds(60)
        return state.withLock { recent -> Int? in
            var times = (recent[address] ?? []).filter { $0.duration(to: t) < minute }
            defer { recent[address] = times.isEmpty ? nil : times }
            if times.count >= limit {
                return max(1, Int(((minute - times[0].duration(to: t)) / .seconds(1)).rounded(.up)))
            }
            times.append(t)
            if recent.count > 10_000 { recent = recent.filter { $0.value.contains { $0.duration(to: t) < minute } } }
            return nil
        }
    }

    /// `[a-z0-9-]{1,64}`.
    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d }
    }
}
