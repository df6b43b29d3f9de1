import Foundation

// libFuzzer target: the transport's HTTP request handling that is ours (libwebsockets parses the
// request line and headers): query strings, route matching, static-file paths (never outside the
// root) and origins. Input: "METHOD PATH?QUERY\nORIGIN\nHOST" (missing parts are empty).
@testable import CorkboardTransport

private let routes: [HTTPRoute] = [
    HTTPRoute(method: .post, pattern: .prefix("/api/boards/"), maxBodyBytes: 10) { _ in .text("") },
    HTTPRoute(method: .post, pattern: .exact("/api/boards"), maxBodyBytes: 10) { _ in .text("") },
    HTTPRoute(method: .get, pattern: .prefix("/files/"), maxBodyBytes: 0) { _ in .text("") },
]
private let webRoot: String = {
    let root = NSTemporaryDirectory() + "corkboard-fuzz-web"
    try? FileManager.default.createDirectory(atPath: root + "/js", withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: root + "/index.html", contents: Data("hi".utf8))
    FileManager.default.createFile(atPath: root + "/js/app.js", contents: Data("1".utf8))
    return root
}()
private let files = StaticFiles(root: webRoot)
private let origins = OriginPolicy(allowedOrigins: ["https://board.example"], allowMissing: true, usesTLS: false)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
    let requestLine = lines.first ?? ""
    let parts = requestLine.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
    let method = String(parts.first ?? "")
    let target = parts.count > 1 ? parts[1] : ""
    let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    let query = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first ?? ""
    _ = QueryString.parse(query)
    _ = HTTPRouter.match(routes, method: method, path: String(path))
    if let file = files.resolve(String(path)) {
        let real = URL(fileURLWithPath: file).resolvingSymlinksInPath().path
        let realRoot = URL(fileURLWithPath: webRoot).resolvingSymlinksInPath().path
        guard real.hasPrefix(realRoot + "/") else { fatalError("\(path) resolved outside the web root: \(file)") }
    }
    let origin = lines.count > 1 ? String(lines[1]) : nil
    let host = lines.count > 2 ? String(lines[2]) : nil
    _ = origins.allows(origin: origin, port: 8080, hostHeader: host)
    return 0
}
