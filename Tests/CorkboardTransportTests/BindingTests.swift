import CorkboardTesting
import CorkboardTransport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct BindingTests {
    /// Local addresses (hex, as in /proc/net/tcp) of listening sockets on `port`, IPv4 and IPv6.
    static func listeners(port: Int) -> [String] {
        let hexPort = String(format: "%04X", port)
        var found: [String] = []
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // /proc files report size 0: read to EOF (a one-shot read can stop after the first page,
            // missing the listener when parallel tests hold many sockets).
            guard let handle = FileHandle(forReadingAtPath: file) else { continue }
            let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            try? handle.close()
            for line in text.split(separator: "\n").dropFirst() {
                let cols = line.split(separator: " ")
                guard cols.count > 3, cols[3] == "0A" else { continue }
                let local = cols[1].split(separator: ":")
                if local.count == 2 && local[1] == hexPort { found.append(String(local[0])) }
            }
        }
        return found
    }

    @Test func defaultHostBindsLoopbackOnly() async throws {
        let h = try ServerHarness()
        let l = Self.listeners(port: h.server.boundPort)
        #expect(l == ["0100007F"], "listening sockets: \(l)")
        await h.server.shutdown()
    }

    @Test func anyHostBindsEveryInterface() async throws {
        let h = try ServerHarness { $0.host = "0.0.0.0" }
        let l = Self.listeners(port: h.server.boundPort)
        #expect(!l.isEmpty && l.allSatisfy { $0.allSatisfy { $0 == "0" } }, "listening sockets: \(l)")
        await h.server.shutdown()
    }

    @Test func portInUseThrowsAClearError() async throws {
        let h = try ServerHarness()
        let second = WebSocketServer(
            configuration: ServerConfiguration(port: h.server.boundPort), logger: testLogger())
        #expect {
            try second.start()
        } throws: { error in
            (error as? TransportError)?.kind == .listenFailed
                && "\(error)".contains("in use")
        }
        await h.server.shutdown()
    }

    @Test func invalidConfigurationIsRejected() {
        let s = WebSocketServer(
            configuration: ServerConfiguration(port: 0, pingInterval: .seconds(10), hangupAfter: .seconds(5)),
            logger: testLogger())
        #expect(throws: TransportError.self) { try s.start() }
    }
}
