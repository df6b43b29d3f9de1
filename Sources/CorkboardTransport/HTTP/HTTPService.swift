import CLibWebSockets
import Logging
import Synchronization

/// One HTTP request on a connection, from its headers until its handler has answered (service
/// thread only).
final class HTTPExchange {
    enum Phase {
        /// Collecting the body (`LWS_CALLBACK_HTTP_BODY`).
        case receiving
        /// The handler runs in a task; its response arrives through the outbox.
        case handling
    }

    let token: UInt64
    var request: HTTPRequest
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    /// Body bytes reserved against ``ServerConfiguration/maxBufferedRequestBytes``.
    let reserved: Int
    var phase: Phase
    var body: [UInt8] = []

    init(
        token: UInt64, request: HTTPRequest, handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
        reserved: Int, phase: Phase
    ) {
        self.token = token
        self.request = request
        self.handler = handler
        self.reserved = reserved
        self.phase = phase
        if reserved > 0 { body.reserveCapacity(reserved) }
    }
}

/// A response being written: headers in one writeable callback, then the body in slices.
struct OutgoingResponse {
    var response: HTTPResponse
    /// Close the connection once written (the request body was not read).
    var close: Bool
    /// A `HEAD` request: headers only.
    var headOnly: Bool
    var headersSent = false
    var offset = 0
}

/// Largest body slice written per writeable callback.
private let responseSliceBytes = 64 * 1024

/// The request headers copied for handlers, with the tokens lws parses them into.
private let requestHeaderTokens: [(String, lws_token_indexes)] = [
    ("host", WSI_TOKEN_HOST), ("origin", WSI_TOKEN_ORIGIN), ("content-type", WSI_TOKEN_HTTP_CONTENT_TYPE),
    ("content-length", WSI_TOKEN_HTTP_CONTENT_LENGTH), ("user-agent", WSI_TOKEN_HTTP_USER_AGENT),
    ("referer", WSI_TOKEN_HTTP_REFERER), ("accept", WSI_TOKEN_HTTP_ACCEPT),
    ("x-forwarded-for", WSI_TOKEN_X_FORWARDED_FOR), ("transfer-encoding", WSI_TOKEN_HTTP_TRANSFER_ENCODING),
]

/// Headers on every static file: revalidate so a new version of the web client shows at once.
private let staticFileHeaders = [
    HTTPHeader("cache-control", "no-cache"), HTTPHeader("x-content-type-options", "nosniff"),
]

extension ShardContext {
    /// `LWS_CALLBACK_HTTP`: the request line and headers are in. Answers synchronous routes, static
    /// files (a file asked for with a query only if the application's gate lets it through) and
    /// errors here; starts an exchange for an asynchronous route.
    func http(_ wsi: OpaquePointer, _ inp: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        let path: String
        if let inp {
            path = String(decoding: UnsafeRawBufferPointer(start: inp, count: len), as: UTF8.self)
        } else {
            path = "/"
        }
        let method = Self.method(wsi)
        // A request whose body we do not read closes its connection after the answer.
        let unreadBody = method != "GET" && method != "HEAD"
        if let (status, message) = RequestHeaderLimit.refusal(wsi, maxHead: configuration.maxRequestHeaderBytes) {
            let code = status == 414 ? "uri-too-long" : "headers-too-large"
            return startResponse(wsi, .error(status: status, code: code, message: message), close: true)
        }
        if let handler = server.routes.withLock({ $0[path] }) {
            let response = handler(HTTPRequest(path: path, queryItems: Lws.queryItems(wsi), method: method))
            return startResponse(wsi, response, close: unreadBody, headOnly: method == "HEAD")
        }
        switch HTTPRouter.match(server.asyncRoutes.withLock { $0 }, method: method, path: path) {
        case .route(let route):
            return beginExchange(wsi, route: route, request: request(wsi, method: method, path: path))
        case .wrongMethod(let allowed):
            let response = HTTPResponse.error(
                status: 405, code: "method-not-allowed",
                message: "\(path) does not answer \(method); use \(allowed.joined(separator: " or "))",
                headers: [HTTPHeader("allow", allowed.joined(separator: ", "))])
            return startResponse(wsi, response, close: unreadBody, headOnly: method == "HEAD")
        case .none:
            break
        }
        if method == "GET" || method == "HEAD", let files = staticFiles, let file = files.resolve(path) {
            if let refusal = gateRefusal(wsi, kind: .page, path: path) {
                let html = RefusalAnswer.wantsHTML(Lws.header(wsi, WSI_TOKEN_HTTP_ACCEPT))
                return startResponse(
                    wsi, RefusalAnswer.response(refusal, html: html), close: false, headOnly: method == "HEAD")
            }
            let n = Lws.serveFile(wsi, path: file, contentType: MIME.type(forPath: file), extra: staticFileHeaders)
            if n < 0 || (n > 0 && lws_http_transaction_completed(wsi) != 0) { return -1 }
            return 0
        }
        let response = HTTPResponse.error(status: 404, code: "not-found", message: "nothing is served at \(path)")
        return startResponse(wsi, response, close: unreadBody, headOnly: method == "HEAD")
    }

    /// The request method from the URI token lws filled.
    private static func method(_ wsi: OpaquePointer) -> String {
        if lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0 { return "GET" }
        if lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0 { return "POST" }
        if lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0 { return "HEAD" }
        return "OTHER"
    }

    /// The request as handlers see it (headers copied now: lws frees them with the transaction).
    private func request(_ wsi: OpaquePointer, method: String, path: String) -> HTTPRequest {
        var headers: [String: String] = [:]
        for (name, token) in requestHeaderTokens {
            if let value = Lws.header(wsi, token) { headers[name] = value }
        }
        let allowed = origins.allows(origin: headers["origin"], port: boundPort, hostHeader: headers["host"])
        return HTTPRequest(
            path: path, queryItems: Lws.queryItems(wsi), method: method, headers: headers,
            remoteAddress: clientAddress(wsi), scheme: configuration.usesTLS ? "https" : "http",
            isOriginAllowed: allowed)
    }

    /// Starts an exchange for an asynchronous route: a `GET` runs its handler now, a `POST` first
    /// checks `Content-Length` against the route's limit and collects the body.
    private func beginExchange(_ wsi: OpaquePointer, route: HTTPRoute, request: HTTPRequest) -> Int32 {
        forgetHTTP(wsi)
        let token = loop.nextExchangeToken
        loop.nextExchangeToken += 1
        guard route.method == .post else {
            let exchange = HTTPExchange(
                token: token, request: request, handler: route.handler, reserved: 0, phase: .handling)
            register(exchange, on: wsi)
            dispatch(exchange, on: wsi)
            return 0
        }
        let refusal: HTTPResponse?
        let length = request.headers["content-length"]
        if length == nil || request.headers["transfer-encoding"] != nil {
            refusal = .error(
                status: 411, code: "length-required",
                message: "send the body with a Content-Length header (chunked bodies are not accepted)")
        } else if let text = length, let n = Int(text), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            if n > route.maxBodyBytes {
                refusal = .error(
                    status: 413, code: "too-large",
                    message: "the body is \(n) bytes; the limit here is \(route.maxBodyBytes) bytes")
            } else if !server.reserveRequestBytes(n) {
                refusal = .error(
                    status: 503, code: "busy", message: "the server is receiving too much at once; try again shortly",
                    headers: [HTTPHeader("retry-after", "2")])
            } else {
                let exchange = HTTPExchange(
                    token: token, request: request, handler: route.handler, reserved: n, phase: .receiving)
                register(exchange, on: wsi)
                // A zero Content-Length gets HTTP_BODY and HTTP_BODY_COMPLETION right after this returns.
                return 0
            }
        } else {
            refusal = .error(status: 400, code: "bad-request", message: "Content-Length must be a decimal number")
        }
        logger.debug(
            "refused HTTP request body",
            metadata: ["path": "\(request.path)", "status": "\(refusal!.status)", "remote": "\(request.remoteAddress)"])
        return startResponse(wsi, refusal!, close: true)
    }

    private func register(_ exchange: HTTPExchange, on wsi: OpaquePointer) {
        loop.exchanges[wsi] = exchange
        loop.exchangeTokens[exchange.token] = wsi
    }

    /// `LWS_CALLBACK_HTTP_BODY`: one chunk of the body (lws never delivers more than the
    /// `Content-Length`). Bodies of refused requests are dropped as they arrive.
    func httpBody(_ wsi: OpaquePointer, _ inp: UnsafeMutableRawPointer?, _ len: Int) -> Int32 {
        guard let exchange = loop.exchanges[wsi], exchange.phase == .receiving, let inp, len > 0 else { return 0 }
        guard exchange.body.count + len <= exchange.reserved else {
            forgetHTTP(wsi)
            return startResponse(
                wsi, .error(status: 413, code: "too-large", message: "the body is longer than its Content-Length"),
                close: true)
        }
        exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: inp, count: len))
        return 0
    }

    /// `LWS_CALLBACK_HTTP_BODY_COMPLETION`: the whole body is in; run the handler.
    func httpBodyCompleted(_ wsi: OpaquePointer) -> Int32 {
        guard let exchange = loop.exchanges[wsi], exchange.phase == .receiving else { return 0 }
        exchange.phase = .handling
        exchange.request.body = exchange.body
        exchange.body = []
        dispatch(exchange, on: wsi)
        return 0
    }

    /// Runs the handler in a task; its response comes back through ``completeHTTP(token:response:)``.
    private func dispatch(_ exchange: HTTPExchange, on wsi: OpaquePointer) {
        Lws.dropAfter(wsi, seconds: configuration.httpHandlerTimeout.wholeSecondsRoundedUp)
        let (token, request, handler) = (exchange.token, exchange.request, exchange.handler)
        exchange.request.body = []
        let server = self.server
        Task {
            let response = await handler(request)
            server.completeHTTP(token: token, response: response)
        }
    }

    /// After a wake: writes a handler's response if its connection is still there.
    func httpCompleted(token: UInt64, response: HTTPResponse) {
        guard let wsi = loop.exchangeTokens[token], let exchange = loop.exchanges[wsi], exchange.token == token else {
            return  // the connection closed while the handler ran
        }
        let headOnly = exchange.request.method == "HEAD"
        forgetHTTP(wsi)
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
        if startResponse(wsi, response, close: false, headOnly: headOnly) != 0 {
            Lws.dropAfter(wsi, seconds: 1)
        }
    }

    /// Drops what is known about a connection's HTTP exchange and response.
    func forgetHTTP(_ wsi: OpaquePointer) {
        if let exchange = loop.exchanges.removeValue(forKey: wsi) {
            loop.exchangeTokens[exchange.token] = nil
            server.releaseRequestBytes(exchange.reserved)
        }
        loop.responses[wsi] = nil
    }

    /// Queues a response; it is written from the connection's writeable callbacks.
    @discardableResult
    func startResponse(_ wsi: OpaquePointer, _ response: HTTPResponse, close: Bool, headOnly: Bool = false) -> Int32 {
        loop.responses[wsi] = OutgoingResponse(response: response, close: close, headOnly: headOnly)
        lws_callback_on_writable(wsi)
        return 0
    }

    /// `LWS_CALLBACK_HTTP_WRITEABLE` with a response queued: headers first, then one body slice
    /// per callback, then the end of the transaction (or of the connection).
    func httpWriteable(_ wsi: OpaquePointer) -> Int32 {
        guard var out = loop.responses[wsi] else { return 0 }
        let response = out.response
        if let file = response.filePath, response.status == 200 {
            loop.responses[wsi] = nil
            let n = Lws.serveFile(wsi, path: file, contentType: response.contentType, extra: response.headers)
            if n < 0 || (n > 0 && lws_http_transaction_completed(wsi) != 0) { return -1 }
            return 0
        }
        if !out.headersSent {
            guard
                Lws.writeHTTPHeaders(
                    wsi, status: response.status, contentType: response.contentType, length: response.body.count,
                    extra: response.headers, close: out.close)
            else { return -1 }
            out.headersSent = true
            if response.body.isEmpty || out.headOnly { return finishResponse(wsi, out) }
            loop.responses[wsi] = out
            lws_callback_on_writable(wsi)
            return 0
        }
        let count = min(responseSliceBytes, response.body.count - out.offset)
        let last = out.offset + count == response.body.count
        var buf = [UInt8](repeating: 0, count: Lws.pre + count)
        let ok = buf.withUnsafeMutableBufferPointer { b -> Bool in
            response.body.withUnsafeBufferPointer {
                (b.baseAddress! + Lws.pre).update(from: $0.baseAddress! + out.offset, count: count)
            }
            return Lws.write(wsi, b.baseAddress! + Lws.pre, count, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        guard ok else { return -1 }
        out.offset += count
        if last { return finishResponse(wsi, out) }
        loop.responses[wsi] = out
        lws_callback_on_writable(wsi)
        return 0
    }

    private func finishResponse(_ wsi: OpaquePointer, _ out: OutgoingResponse) -> Int32 {
        loop.responses[wsi] = nil
        if out.close { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }
}
