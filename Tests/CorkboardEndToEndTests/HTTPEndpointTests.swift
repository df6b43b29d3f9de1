import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Crypto
import Foundation
import Synchronization
import Testing

@testable import CorkboardApp

/// The HTTP endpoints of a `BoardService`: image uploads and board creation, end to end with the
/// WebSocket protocol (docs/PROTOCOL.md, "HTTP endpoints").
@Suite("HTTP endpoints", .timeLimit(.minutes(2)))
struct HTTPEndpointTests {
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1,
    ]

    static func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("corkboard-files-\(UUID().uuidString)").path
    }

    @Test("A board created over HTTP opens with its edit key as editor and its view key as viewer")
    func createdBoardOpens() async throws {
        try await withServer(endpoints: HTTPEndpoints(maxBoards: 10)) { server in
            let port = server.service.boundPort
            let health = try #require(await RawHTTP.request(port: port, "GET", "/healthz"))
            #expect(health.json["boardCreation"] as? Bool == true)
            #expect(health.json["uploadMaxBytes"] == nil, "no uploads without a files folder")
            let created = try #require(
                await RawHTTP.request(
                    port: port, "POST", "/api/boards", headers: ["Content-Type": "application/json"],
                    body: Array(#"{"title":"Field trip","template":"demo","id":"trip"}"#.utf8)))
            #expect(created.status == 201)
            let editKey = try #require(created.json["editKey"] as? String)
            let viewKey = try #require(created.json["viewKey"] as? String)
            #expect(created.json["id"] as? String == "trip")
            #expect(created.json["edit"] as? String == "http://127.0.0.1:\(port)/?board=trip&key=\(editKey)")
            #expect(created.json["view"] as? String == "http://127.0.0.1:\(port)/?board=trip&key=\(viewKey)")
            #expect(server.service.directory.records.contains { $0.id == "trip" && $0.title == "Field trip" })

            let editor = try await server.connect("trip", name: "Ada", key: editKey)
            #expect(editor.member?.role == .editor)
            #expect(editor.items(in: DemoIDs(board: "trip").toFind).count == 8)
            let viewer = try await server.connect("trip", name: "Bob", key: viewKey)
            #expect(viewer.member?.role == .viewer)
            await #expect(throws: BoardClientError.self) {
                _ = try await server.connect("trip", name: "Eve", key: "e-wrong")
            }
            let again = try #require(
                await RawHTTP.request(
                    port: port, "POST", "/api/boards", headers: ["Content-Type": "application/json"],
                    body: Array(#"{"title":"Again","id":"trip"}"#.utf8)))
            #expect(again.status == 409 && again.json["code"] as? String == "board-exists")
        }
    }

    @Test("An uploaded image is stored under its SHA-256 and served back with immutable caching")
    func uploadRoundTrip() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await withServer(endpoints: HTTPEndpoints(filesFolder: folder, maxUploadBytes: 4096)) { server in
            let port = server.service.boundPort
            #expect(await RawHTTP.request(port: port, "GET", "/healthz")?.json["uploadMaxBytes"] as? Int == 4096)
            let path = "/api/boards/b1/files?key=\(BoardSpec.editKey("b1"))"
            let stored = try #require(
                await RawHTTP.request(port: port, "POST", path, headers: ["Content-Type": "image/png"], body: Self.png))
            #expect(stored.status == 201)
            let name = SHA256.hex(Self.png) + ".png"
            #expect(stored.json["url"] as? String == "/files/b1/\(name)")
            #expect(stored.json["bytes"] as? Int == Self.png.count)
            #expect(FileManager.default.contents(atPath: "\(folder)/b1/\(name)") == Data(Self.png))
            let served = try #require(await RawHTTP.request(port: port, "GET", "/files/b1/\(name)"))
            #expect(served.status == 200 && served.body == Self.png)
            #expect(served.fields["content-type"] == "image/png")
            #expect(served.fields["cache-control"] == "public, max-age=31536000, immutable")
            #expect(served.fields["x-content-type-options"] == "nosniff")

            let viewer = "/api/boards/b1/files?key=\(BoardSpec.viewKey("b1"))"
            let refused = await RawHTTP.request(
                port: port, "POST", viewer, headers: ["Content-Type": "image/png"], body: Self.png)
            #expect(refused?.status == 403 && refused?.json["code"] as? String == "bad-key")
            let tooBig = await RawHTTP.request(
                port: port, "POST", path, headers: ["Content-Type": "image/png"],
                body: Self.png + [UInt8](repeating: 0, count: 4096))
            #expect(tooBig?.status == 413 && tooBig?.json["code"] as? String == "too-large")
            let wrongType = await RawHTTP.request(
                port: port, "POST", path, headers: ["Content-Type": "image/gif"], body: Self.png)
            #expect(wrongType?.status == 415 && wrongType?.json["code"] as? String == "unsupported-type")
            let nowhere = await RawHTTP.request(
                port: port, "POST", "/api/boards/nope/files", headers: ["Content-Type": "image/png"], body: Self.png)
            #expect(nowhere?.status == 404 && nowhere?.json["code"] as? String == "unknown-board")
            #expect(await RawHTTP.request(port: port, "GET", "/files/b1/../b1/\(name)")?.status == 200)
            #expect(await RawHTTP.request(port: port, "GET", "/files/b1/\(name.dropLast(4)).gif")?.status == 404)
            #expect(await RawHTTP.request(port: port, "GET", "/files/../../etc/passwd")?.status == 404)
        }
    }

    @Test("Board creation is limited per address per minute and by the board cap")
    func creationLimits() async throws {
        try await withServer(endpoints: HTTPEndpoints(maxBoards: 4, boardCreationsPerMinute: 2)) { server in
            let port = server.service.boundPort
            func create(_ title: String) async -> RawHTTP.Response? {
                await RawHTTP.request(
                    port: port, "POST", "/api/boards", headers: ["Content-Type": "application/json"],
                    body: Array(#"{"title":"\#(title)"}"#.utf8))
            }
            #expect(await create("One")?.status == 201)
            #expect(await create("Two")?.status == 201)
            let limited = try #require(await create("Three"))
            #expect(limited.status == 429 && limited.json["code"] as? String == "rate-limited")
            #expect(Int(limited.fields["retry-after"] ?? "") ?? 0 >= 1)
            #expect(server.service.directory.records.count == 3)
        }
        // The cap counts every board, the ones made elsewhere too.
        try await withServer([.demo("b1"), .empty("b2")], endpoints: HTTPEndpoints(maxBoards: 3)) { server in
            let port = server.service.boundPort
            let body = Array(#"{"title":"Third"}"#.utf8)
            let headers = ["Content-Type": "application/json"]
            #expect(
                await RawHTTP.request(port: port, "POST", "/api/boards", headers: headers, body: body)?.status == 201)
            let full = await RawHTTP.request(port: port, "POST", "/api/boards", headers: headers, body: body)
            #expect(full?.status == 409 && full?.json["code"] as? String == "board-limit")
        }
    }

    @Test("SHA-256 matches the FIPS 180-4 examples")
    func sha256Vectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // Lengths around the padding boundary.
        #expect(
            SHA256.hex([UInt8](repeating: 0, count: 55))
                == "02779466cdec163811d078815c633f21901413081449002f24aa3e80f0b88ef7")
        #expect(
            SHA256.hex([UInt8](repeating: 0, count: 56))
                == "d4817aa5497628e7c77e6b606107042bbba3130888c5f47a375e6179be789fbb")
        #expect(
            SHA256.hex([UInt8](repeating: 0, count: 64))
                == "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b")
    }
}
