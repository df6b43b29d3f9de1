import CorkboardTesting
import CorkboardTransport
import Foundation
import Testing

/// Serialized: libwebsockets 4.1.6 re-takes OpenSSL's process-wide ex-data indexes whenever a TLS
/// context is created, so TLS contexts created concurrently could stall each other's handshakes.
@Suite(.serialized, .timeLimit(.minutes(1))) struct TLSTests {
    /// Generates a P-256 self-signed certificate for `localhost` with the openssl CLI.
    static func makeCertificate(in dir: URL) throws -> (cert: String, key: String) {
        let key = dir.appendingPathComponent("k.pem").path
        let cert = dir.appendingPathComponent("c.pem").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-days", "1", "-subj", "/CN=localhost", "-keyout", key, "-out", cert,
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw TransportError.invalidConfiguration("openssl req failed with status \(p.terminationStatus)")
        }
        return (cert, key)
    }

    @Test func wssHandshakeAndEchoWithP256Certificate() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("corkboard-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, key) = try Self.makeCertificate(in: dir)
        let h = try ServerHarness(echo: true) {
            $0.tlsCertificatePath = cert
            $0.tlsPrivateKeyPath = key
        }
        let c = try ClientHarness(configuration: ClientConfiguration(tls: true))
        let id = try c.client.connect(
            to: "wss://127.0.0.1:\(h.server.boundPort)/ws", origin: "https://localhost:\(h.server.boundPort)",
            allowSelfSigned: true)
        #expect(await eventually(timeout: .seconds(10)) { c.connected(id) }, "events: \(c.events.all)")
        c.client.send(text: "over tls", to: id)
        let big = [UInt8](repeating: 0x5A, count: 200_000)
        c.client.send(bytes: big, isText: false, to: id)
        #expect(await eventually { c.messages(id).count == 2 })
        #expect(c.messages(id).first?.text == "over tls")
        #expect(c.messages(id).last?.bytes.elementsEqual(big) == true)
        await c.client.shutdown()
        await h.server.shutdown()
    }

    @Test func selfSignedIsRefusedUnlessAllowed() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("corkboard-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, key) = try Self.makeCertificate(in: dir)
        let h = try ServerHarness {
            $0.tlsCertificatePath = cert
            $0.tlsPrivateKeyPath = key
        }
        let c = try ClientHarness(configuration: ClientConfiguration(tls: true))
        let id = try c.client.connect(to: "wss://127.0.0.1:\(h.server.boundPort)/ws")
        #expect(await eventually { c.failure(id) != nil })
        await c.client.shutdown()
        await h.server.shutdown()
    }

    @Test func wssNeedsATLSClient() async throws {
        let c = try ClientHarness()
        #expect(throws: TransportError.self) { try c.client.connect(to: "wss://127.0.0.1:1/ws") }
        await c.client.shutdown()
    }

    @Test func missingCertificateFileIsAClearError() {
        let s = WebSocketServer(
            configuration: ServerConfiguration(
                port: 0, tlsCertificatePath: "/nonexistent/c.pem", tlsPrivateKeyPath: "/nonexistent/k.pem"),
            logger: testLogger())
        #expect(throws: TransportError.self) { try s.start() }
    }
}
