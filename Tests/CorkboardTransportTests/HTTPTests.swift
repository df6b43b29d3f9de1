import CorkboardTesting
import CorkboardTransport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct HTTPTests {
    /// A temporary web root with an index page, a script and a nested page.
    static func makeWebRoot() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("corkboard-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try "<!doctype html><title>Corkboard</title>".write(
            to: dir.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "console.log(1)".write(to: dir.appendingPathComponent("app.js"), atomically: true, encoding: .utf8)
        try "{}".write(to: dir.appendingPathComponent("x.json"), atomically: true, encoding: .utf8)
        try Data([0, 97, 115, 109]).write(to: dir.appendingPathComponent("m.wasm"))
        try "<p>sub</p>".write(to: dir.appendingPathComponent("sub/index.html"), atomically: true, encoding: .utf8)
        return dir
    }

    /// Runs `body` with the port of a started server on a fresh ``makeWebRoot()``, then shuts the
    /// server down and removes the root, also when `body` throws.
    static func withWebRootServer(_ body: (Int) async throws -> Void) async throws {
        let root = try makeWebRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let h = try ServerHarness { $0.webRoot = root.path }
        do {
            try await body(h.server.boundPort)
        } catch {
            await h.server.shutdown()
            throw error
        }
        await h.server.shutdown()
    }

    @Test func rootServesIndexHTML() async throws {
        try await Self.withWebRootServer { port in
            let r = try #require(await RawHTTP.getAsync(port: port, "/"))
            #expect(r.status == 200)
            #expect(r.text == "<!doctype html><title>Corkboard</title>")
            #expect(RawHTTP.header("content-type", in: r.headers)?.hasPrefix("text/html") == true)
            let sub = try #require(await RawHTTP.getAsync(port: port, "/sub/"))
            #expect(sub.status == 200 && sub.text == "<p>sub</p>")
        }
    }

    @Test func contentTypesAnd404s() async throws {
        try await Self.withWebRootServer { port in
            let js = try #require(await RawHTTP.getAsync(port: port, "/app.js"))
            #expect(js.status == 200)
            #expect(RawHTTP.header("content-type", in: js.headers)?.hasPrefix("text/javascript") == true)
            #expect(
                RawHTTP.header("content-type", in: await RawHTTP.getAsync(port: port, "/x.json")?.headers ?? "")
                    == "application/json")
            #expect(
                RawHTTP.header("content-type", in: await RawHTTP.getAsync(port: port, "/m.wasm")?.headers ?? "")
                    == "application/wasm")
            #expect(await RawHTTP.getAsync(port: port, "/missing.css")?.status == 404)
            #expect(await RawHTTP.getAsync(port: port, "/../../etc/passwd")?.status != 200)
            #expect(await RawHTTP.getAsync(port: port, "/sub/../../etc/passwd")?.status != 200)
        }
    }

    @Test func customRoute() async throws {
        let h = try ServerHarness()
        h.server.addRoute("/hello") { req in .text("hi \(req.queryItems.first?.value ?? "?")") }
        let r = try #require(await RawHTTP.getAsync(port: h.server.boundPort, "/hello?name=ann"))
        #expect(r.status == 200 && r.text == "hi ann")
        #expect(await RawHTTP.getAsync(port: h.server.boundPort, "/nothing-here")?.status == 404)
        await h.server.shutdown()
    }
}
