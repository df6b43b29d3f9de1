import CorkboardJSON

/// One response header.
public struct HTTPHeader: Sendable, Hashable {
    /// The name, for example `cache-control`.
    public var name: String
    /// The value.
    public var value: String

    /// Creates a header.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether the header can be written as it is: a token name and a value without line breaks.
    var isWellFormed: Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }
            && !value.utf8.contains { $0 == 0x0d || $0 == 0x0a || $0 == 0 }
    }
}

/// The response an HTTP route handler returns.
public struct HTTPResponse: Sendable {
    /// The status code, for example 200.
    public var status: Int
    /// The `Content-Type` header.
    public var contentType: String
    /// The body bytes.
    public var body: [UInt8]
    /// More headers (`Content-Type` and `Content-Length` are written by the server). Malformed ones
    /// (line breaks, a colon in the name) are dropped.
    public var headers: [HTTPHeader]
    /// A file to send as the body instead of ``body`` (status 200; the server streams it). A file
    /// that cannot be opened is answered 404.
    public var filePath: String?

    /// Creates a response.
    public init(
        status: Int = 200, contentType: String = "text/plain; charset=utf-8", body: [UInt8] = [],
        headers: [HTTPHeader] = []
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
        self.filePath = nil
    }

    /// A UTF-8 text response.
    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// A JSON response from already-encoded JSON text.
    public static func json(_ json: String, status: Int = 200, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array(json.utf8), headers: headers)
    }

    /// A JSON error `{"code": code, "message": message}`, the shape of every error the transport
    /// itself answers (411 `length-required`, 413 `too-large`, …).
    public static func error(
        status: Int, code: String, message: String, headers: [HTTPHeader] = []
    ) -> HTTPResponse {
        .json(JSONString.object([("code", code), ("message", message)]), status: status, headers: headers)
    }

    /// A file streamed from disk with status 200.
    public static func file(_ path: String, contentType: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        var response = HTTPResponse(status: 200, contentType: contentType, headers: headers)
        response.filePath = path
        return response
    }
}
