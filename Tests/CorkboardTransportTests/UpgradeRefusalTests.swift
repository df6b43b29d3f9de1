import CorkboardTesting
import CorkboardTransport
import Glibc
import Testing

@Suite(.timeLimit(.minutes(1))) struct UpgradeRefusalTests {
    @Test func wrongOriginGets403() async throws {
        let h = try ServerHarness()
        let port = h.server.boundPort
        let r = await RawHTTP.exchangeAsync(port: port, RawHTTP.upgrade(port: port, origin: "https://evil.example"))
        #expect(r?.status == 403)
        #expect(h.server.connectionCount == 0)
        await h.server.shutdown()
    }

    @Test func ownOriginIsAccepted() async throws {
        let h = try ServerHarness()
        let port = h.server.boundPort
        let fd = RawHTTP.connect(port: port)
        defer { _ = close(fd) }
        RawHTTP.sendAll(fd, Array(RawHTTP.upgrade(port: port, origin: "http://localhost:\(port)").utf8))
        let head = await io {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            return String(decoding: buf.prefix(max(n, 0)), as: UTF8.self)
        }
        #expect(head.hasPrefix("HTTP/1.1 101"))
        #expect(head.lowercased().contains("sec-websocket-protocol: corkboard.v1"))
        #expect(await eventually { h.server.connectionCount == 1 })
        await h.server.shutdown()
    }

    @Test func configuredAllowListIsEnforced() async throws {
        let h = try ServerHarness { $0.allowedOrigins = ["https://board.example"] }
        let port = h.server.boundPort
        #expect(
            await RawHTTP.exchangeAsync(port: port, RawHTTP.upgrade(port: port, origin: "http://127.0.0.1:\(port)"))?
                .status == 403
        )
        let c = try ClientHarness()
        let id = try c.client.connect(to: h.url, origin: "https://board.example")
        #expect(await eventually { c.connected(id) })
        await c.client.shutdown()
        await h.server.shutdown()
    }

    @Test func wrongPathGets404() async throws {
        let h = try ServerHarness()
        let port = h.server.boundPort
        #expect(await RawHTTP.exchangeAsync(port: port, RawHTTP.upgrade(port: port, path: "/elsewhere"))?.status == 404)
        await h.server.shutdown()
    }

    @Test func missingSubprotocolGets400() async throws {
        let h = try ServerHarness()
        let port = h.server.boundPort
        #expect(await RawHTTP.exchangeAsync(port: port, RawHTTP.upgrade(port: port, subprotocol: nil))?.status == 400)
        #expect(
            await RawHTTP.exchangeAsync(port: port, RawHTTP.upgrade(port: port, subprotocol: "chat"))?.status == 400)
        await h.server.shutdown()
    }

    @Test func projectClientSeesTheRefusal() async throws {
        let h = try ServerHarness()
        let c = try ClientHarness()
        let id = try c.client.connect(to: "ws://127.0.0.1:\(h.server.boundPort)/nope")
        #expect(await eventually { c.failure(id) != nil })
        #expect(c.failure(id)?.kind == .connectFailed)
        await c.client.shutdown()
        await h.server.shutdown()
    }

    @Test func missingOriginCanBeRefused() async throws {
        let h = try ServerHarness { $0.allowMissingOrigin = false }
        let port = h.server.boundPort
        #expect(await RawHTTP.exchangeAsync(port: port, RawHTTP.upgrade(port: port))?.status == 403)
        await h.server.shutdown()
    }
}
