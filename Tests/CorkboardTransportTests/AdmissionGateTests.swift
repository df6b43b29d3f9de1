import CorkboardTesting
import Foundation
import Synchronization
import Testing

@testable import CorkboardTransport

/// The application's gate (issue 39): a refused address gets 429 with `Retry-After` for its new
/// WebSockets and for gated pages (HTML for a browser), while files without a query, routes and
/// the WebSockets it already has keep working.
@Suite(.timeLimit(.minutes(1))) struct AdmissionGateTests {
    @Test func aRefusedUpgradeIs429WhileHTTPAndOpenWebSocketsGoOn() async throws {
        let web = try Self.webFolder()
        let h = try ServerHarness(echo: true) { $0.webRoot = web }
        let port = h.server.boundPort
        let refused = Mutex<Set<String>>([])
        let asked = Mutex<[AdmissionRequest.Kind]>([])
        h.server.setAdmissionGate { request in
            asked.withLock { $0.append(request.kind) }
            guard refused.withLock({ $0.contains(request.address) }) else { return nil }
            return AdmissionRefusal(
                reason: .rateLimitCloses, retryAfter: 42, message: "connections from your address keep passing",
                detail: "Boards already open <keep> working.")
        }
        // Open before the refusal: stays open and served.
        let open = h.rawWebSocket()
        defer { close(open) }
        #expect(await eventually("the first WebSocket is reported") { h.connectedIDs.count == 1 })
        refused.withLock { _ = $0.insert("127.0.0.1") }

        let upgrade = try #require(await Self.answer(port: port, RawHTTP.upgrade(port: port)))
        #expect(upgrade.status == 429)
        #expect(upgrade.header("retry-after") == "42")
        #expect(upgrade.text == "connections from your address keep passing; try again in 42 s")
        #expect(h.connectedIDs.count == 1, "no refused upgrade became a connection")
        #expect(h.server.connectionCounts(from: "127.0.0.1").webSockets == 1)

        // Routes and files without a query are never asked about.
        #expect(await RawHTTP.getAsync(port: port, "/ping")?.status == 200)
        #expect(await RawHTTP.getAsync(port: port, "/")?.status == 200)
        // A page with a query is: one line for a script, a readable page for a browser.
        let plain = try #require(await RawHTTP.getAsync(port: port, "/?board=b1"))
        #expect(plain.status == 429 && plain.header("retry-after") == "42")
        #expect(plain.text == "connections from your address keep passing; try again in 42 s\n")
        let page = try #require(
            await io {
                RawHTTP.exchange(
                    port: port,
                    "GET /?board=b1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html,*/*;q=0.8\r\nConnection: close\r\n\r\n"
                )
            })
        #expect(page.status == 429)
        #expect(page.header("content-type")?.hasPrefix("text/html") == true)
        #expect(page.text.contains("<h1>Please wait 42 seconds</h1>"))
        #expect(page.text.contains("Connections from your address keep passing."))
        #expect(page.text.contains("Boards already open &lt;keep&gt; working."), "the detail is escaped")
        #expect(asked.withLock { $0 } == [.webSocket, .webSocket, .page, .page])
        #expect(h.server.refusedConnectionCounts[.rateLimitCloses] == 3)

        // The open WebSocket still echoes.
        RawHTTP.sendAll(open, Self.maskedText("still here"))
        #expect(await eventually("the open WebSocket's message arrives") { h.messages.count == 1 })

        refused.withLock { $0.removeAll() }
        #expect(await Self.answer(port: port, RawHTTP.upgrade(port: port))?.status == 101)
        await h.server.shutdown()
    }

    /// A short masked text frame, as a client sends it.
    static func maskedText(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return [0x81, 0x80 | UInt8(payload.count)] + mask
            + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// A web folder with an index page.
    static func webFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "<!doctype html><title>board</title>".write(
            to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        return folder.path
    }

    /// Sends `request` and reads the answer: a 101's head, or anything else until the server closes.
    static func answer(port: Int, _ request: String) async -> RawHTTP.Response? {
        await io {
            let fd = RawHTTP.connect(port: port)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            RawHTTP.sendAll(fd, Array(request.utf8))
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                if bytes.starts(with: Array("HTTP/1.1 101".utf8)), bytes.suffix(4) == Array("\r\n\r\n".utf8) { break }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                bytes += buffer[0..<n]
            }
            return RawHTTP.parse(bytes)
        }
    }
}
