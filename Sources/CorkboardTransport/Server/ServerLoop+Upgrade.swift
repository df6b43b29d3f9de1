import CLibWebSockets
import Logging

/// The upgrade request's checks, before libwebsockets answers 101.
extension ShardContext {
    /// Refuses bad upgrades with a real HTTP status: 404 wrong path, 403 bad origin, 400 missing
    /// subprotocol, 414/431 oversized headers, 429 refused for now by the application's gate, 503
    /// while shutting down or over a connection cap (429 and 503 with `Retry-After`). The echo
    /// path (``ServerConfiguration/echoPath``) needs no subprotocol and is never gated.
    func confirmUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let c = configuration
        let path = Lws.header(wsi, WSI_TOKEN_GET_URI) ?? ""
        let isEcho = c.echoPath != nil && path == c.echoPath
        var refusal: (Int, String)?
        var headers: [HTTPHeader] = []
        if loop.shuttingDown {
            refusal = (503, "server shutting down")
        } else if let oversized = RequestHeaderLimit.refusal(wsi, maxHead: c.maxRequestHeaderBytes) {
            refusal = oversized
        } else if !c.acceptsWebSockets {
            refusal = (404, "this port serves HTTP only; WebSockets are on the server's public port")
        } else if path != c.wsPath && !isEcho {
            refusal = (404, "WebSocket upgrades are served on \(c.wsPath) only")
        } else if !origins.allows(
            origin: Lws.header(wsi, WSI_TOKEN_ORIGIN), port: boundPort, hostHeader: Lws.header(wsi, WSI_TOKEN_HOST))
        {
            refusal = (403, "origin not allowed")
        } else if !isEcho
            && !(Lws.header(wsi, WSI_TOKEN_PROTOCOL) ?? "").split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: " \t") == c.subprotocol
            })
        {
            refusal = (400, "the Sec-WebSocket-Protocol header must offer \(c.subprotocol)")
        } else if loop.sockets[wsi]?.evicted == true {
            return -1
        } else if !isEcho, let gated = gateRefusal(wsi, kind: .webSocket, path: path) {
            refusal = (429, gated.sentence)
            headers = [HTTPHeader("retry-after", "\(gated.retryAfter)"), HTTPHeader("cache-control", "no-store")]
        } else if let full = admitUpgrade(wsi) {
            refusal = (503, full.message)
            headers = [HTTPHeader("retry-after", "\(c.refusalRetryAfter.wholeSecondsRoundedUp)")]
        }
        guard let (status, message) = refusal else { return 0 }
        guardRefused(wsi)
        logger.debug(
            "refused upgrade", metadata: ["status": "\(status)", "reason": "\(message)", "path": "\(path)"])
        // lws_return_http_status would answer "HTTP/1.0" here (the request version is not parsed
        // yet), which strict clients reject; write the whole response ourselves.
        return Lws.writeRawResponse(wsi, status: status, body: message, headers: headers) ? 1 : -1
    }
}

extension Substring {
    /// Drops leading and trailing characters in `set`.
    func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return s
    }
}
