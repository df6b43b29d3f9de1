import CorkboardTransport
import Foundation

/// JSON bodies of the HTTP endpoints, and their errors: `{"code": …, "message": …}`.
enum HTTPJSON {
    /// The error codes of the HTTP endpoints, with their status.
    enum Code: String, Sendable {
        case badRequest = "bad-request"
        case badOrigin = "bad-origin"
        case badKey = "bad-key"
        case notFound = "not-found"
        case unknownBoard = "unknown-board"
        case boardExists = "board-exists"
        case boardLimit = "board-limit"
        case tooLarge = "too-large"
        case unsupportedType = "unsupported-type"
        case rateLimited = "rate-limited"
        case `internal` = "internal"

        var status: Int {
            switch self {
            case .badRequest: return 400
            case .badOrigin, .badKey: return 403
            case .notFound, .unknownBoard: return 404
            case .boardExists, .boardLimit: return 409
            case .tooLarge: return 413
            case .unsupportedType: return 415
            case .rateLimited: return 429
            case .internal: return 500
            }
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `value` as a JSON response.
    static func response(_ value: some Encodable, status: Int = 200, headers: [HTTPHeader] = []) -> HTTPResponse {
        guard let data = try? encoder.encode(value) else {
            return .error(status: 500, code: Code.internal.rawValue, message: "the answer could not be encoded")
        }
        return HTTPResponse(status: status, contentType: "application/json", body: Array(data), headers: headers)
    }

    /// An error response with the code's status.
    static func error(_ code: Code, _ message: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        .error(status: code.status, code: code.rawValue, message: message, headers: headers)
    }
}
