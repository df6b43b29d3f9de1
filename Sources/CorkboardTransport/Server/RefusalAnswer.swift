/// The whole answer to a connection from a refused address (``RefusedAddresses``), written at
/// accept before any request is read: `HTTP/1.1 429 Too Many Requests`, `Retry-After`, and one
/// line saying why and how long to wait. Only the numbers and the sentence change between answers;
/// the rest is encoded once.
enum RefusalAnswer {
    private static let statusLine = Array("HTTP/1.1 429 Too Many Requests\r\nRetry-After: ".utf8)
    private static let headers = Array(
        "\r\nContent-Type: text/plain; charset=utf-8\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: "
            .utf8)
    private static let endOfHead = Array("\r\n\r\n".utf8)

    /// The answer's bytes.
    static func bytes(_ refusal: RefusedAddresses.Refusal) -> [UInt8] {
        let wait = String(refusal.retryAfter)
        let body = Array("\(refusal.message); try again in \(wait) s\n".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(statusLine.count + headers.count + endOfHead.count + body.count + 16)
        bytes += statusLine
        bytes += wait.utf8
        bytes += headers
        bytes += String(body.count).utf8
        bytes += endOfHead
        bytes += body
        return bytes
    }
}
