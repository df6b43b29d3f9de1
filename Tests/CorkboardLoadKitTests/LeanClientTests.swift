import CorkboardLoadKit
import Foundation
import Glibc
import Synchronization
import Testing

/// A one-connection WebSocket server on loopback written with blocking sockets, playing a script
/// against the lean client on a thread of its own.
final class ScriptedServer: Sendable {
    let listener: Int32
    /// Whether the listener was closed (``stopListening()``, or at deinit): closed exactly once, so
    /// a later close never hits a number another test's thread has been given since.
    private let closed = Atomic<Bool>(false)
    let port: Int
    /// What the script saw or failed at.
    let notes = Mutex<[String]>([])
    let done = Atomic<Bool>(false)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 4) == 0 else { throw LeanClientError("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { stopListening() }

    /// Closes the listening socket (once): nobody listens on the port any more.
    func stopListening() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { close(listener) }
    }

    var url: LeanURL { LeanURL(host: "127.0.0.1", port: port, path: "/ws") }

    /// A server that accepts one connection, answers its upgrade, then runs `script` on it.
    static func upgrading(_ script: @escaping @Sendable (ScriptedConnection) throws -> Void) throws -> ScriptedServer {
        let server = try ScriptedServer()
        server.play { connection in
            try connection.upgrade()
            try script(connection)
        }
        return server
    }

    /// Accepts one connection and runs `script` on it, on a thread.
    func play(_ script: @escaping @Sendable (ScriptedConnection) throws -> Void) {
        Thread.detachNewThread { [self] in
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 5000) == 1 {
                let fd = accept(listener, nil, nil)
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let connection = ScriptedConnection(fd: fd)
                do { try script(connection) } catch { notes.withLock { $0.append("script failed: \(error)") } }
                close(fd)
            } else {
                notes.withLock { $0.append("nobody connected") }
            }
            done.store(true, ordering: .releasing)
        }
    }

    func finished() async -> [String] {
        await eventually { self.done.load(ordering: .acquiring) }
        return notes.withLock { $0 }
    }
}

/// The server's side of one connection.
struct ScriptedConnection {
    let fd: Int32

    func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func write(_ text: String) { write(Array(text.utf8)) }

    /// Reads exactly `count` bytes.
    func read(_ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
            guard n > 0 else { throw LeanClientError("the client's side ended after \(got) of \(count) bytes") }
            got += n
        }
        return out
    }

    /// Reads the upgrade request; returns its `Sec-WebSocket-Key`.
    func readRequest() throws -> String {
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) { head += try read(1) }
        let text = String(decoding: head, as: UTF8.self)
        guard let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("Sec-WebSocket-Key: ") }) else {
            throw LeanClientError("no key in \(text)")
        }
        return String(line.dropFirst("Sec-WebSocket-Key: ".count))
    }

    /// Reads the request and answers 101 with the right accept (or `accept` if given).
    func upgrade(accept: String? = nil) throws {
        let key = try readRequest()
        write(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(accept ?? ClientHandshake.accept(for: key))\r\n"
                + "Sec-WebSocket-Protocol: corkboard.v1\r\n\r\n")
    }

    /// Reads one client frame: its opcode, whether it was masked, and the unmasked payload.
    func readFrame() throws -> (opcode: UInt8, masked: Bool, payload: [UInt8]) {
        let head = try read(2)
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            length = try read(2).reduce(0) { $0 << 8 | Int($1) }
        } else if length == 127 {
            length = try read(8).reduce(0) { $0 << 8 | Int($1) }
        }
        let masked = head[1] & 0x80 != 0
        let key = masked ? try read(4) : [0, 0, 0, 0]
        let payload = try read(length).enumerated().map { $0.element ^ key[$0.offset & 3] }
        return (head[0] & 0x0F, masked, payload)
    }
}

/// Records a client's events.
final class Recorder: LeanClientDelegate {
    enum Event: Equatable {
        case connected
        case message(String)
        case ended(LeanConnectionEnd)
    }

    let events = Mutex<[Event]>([])

    func leanConnected(_ id: LeanConnectionID) { events.withLock { $0.append(.connected) } }

    func leanReceived(_ id: LeanConnectionID, _ message: UnsafeRawBufferPointer) {
        let text = String(decoding: message, as: UTF8.self)
        events.withLock { $0.append(.message(text)) }
    }

    func leanEnded(_ id: LeanConnectionID, _ end: LeanConnectionEnd) { events.withLock { $0.append(.ended(end)) } }

    var ended: LeanConnectionEnd? {
        events.withLock { events in
            for case .ended(let end) in events { return end }
            return nil
        }
    }

    /// Waits (at most 5 s) until the connection ended; returns how.
    func end() async -> LeanConnectionEnd? {
        await eventually { self.ended != nil }
        return ended
    }
}

/// Polls `condition` until it holds or 20 s pass (as `CorkboardTesting.eventually`: only a failing
/// test waits that long, and the polls wait for the cooperative pool, which the parallel suites can
/// starve for seconds).
func eventually(_ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(20)
    while !condition() && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
}

/// A started client with a recorder, connected (as id 0) to `server`.
func client(
    to server: ScriptedServer, configuration: LeanClientConfiguration = LeanClientConfiguration()
) throws -> (LeanWebSocketClient, Recorder) {
    let client = LeanWebSocketClient(configuration: configuration)
    let recorder = Recorder()
    try client.start(delegate: recorder)
    try client.connect(to: server.url, subprotocol: "corkboard.v1", id: LeanConnectionID(slot: 0))
    return (client, recorder)
}

@Suite(.serialized) struct LeanClientTests {
    @Test func anHTTP503IsAFailedConnectionNamingTheStatus() async throws {
        let server = try ScriptedServer()
        server.play { connection in
            _ = try connection.readRequest()
            connection.write("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n")
        }
        let (client, recorder) = try client(to: server)
        guard case .failed(let text) = await recorder.end() else {
            Issue.record("expected a failure, got \(recorder.events.withLock { $0 })")
            return
        }
        #expect(text.contains("HTTP 503 Service Unavailable, Retry-After: 1"), "\(text)")
        #expect(!recorder.events.withLock { $0 }.contains(.connected))
        #expect(await server.finished() == [])
        await client.shutdown()
    }

    @Test func aWrongAcceptFailsTheConnection() async throws {
        let server = try ScriptedServer()
        server.play { try $0.upgrade(accept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") }
        let (client, recorder) = try client(to: server)
        guard case .failed(let text) = await recorder.end() else {
            Issue.record("expected a failure, got \(recorder.events.withLock { $0 })")
            return
        }
        #expect(text.contains("Sec-WebSocket-Accept"), "\(text)")
        _ = await server.finished()
        await client.shutdown()
    }

    @Test func aRefusedConnectFails() async throws {
        let server = try ScriptedServer()
        let url = LeanURL(host: "127.0.0.1", port: server.port, path: "/ws")
        server.stopListening()
        let client = LeanWebSocketClient()
        let recorder = Recorder()
        try client.start(delegate: recorder)
        try client.connect(to: url, subprotocol: "corkboard.v1", id: LeanConnectionID(slot: 3))
        guard case .failed(let text) = await recorder.end() else {
            Issue.record("expected a failure, got \(recorder.events.withLock { $0 })")
            return
        }
        #expect(text.contains("could not connect"), "\(text)")
        await client.shutdown()
    }

    @Test func messagesPingPongAndTheServersClose() async throws {
        let seen = Mutex<[String]>([])
        let server = try ScriptedServer.upgrading { connection in
            // A message and a ping in one write; the pong comes back masked with the ping's payload.
            connection.write(serverFrame(1, bytes("hello")) + serverFrame(9, bytes("p1")))
            let pong = try connection.readFrame()
            seen.withLock { $0.append("pong \(pong.masked) \(String(decoding: pong.payload, as: UTF8.self))") }
            guard pong.opcode == 0xA else { throw LeanClientError("expected a pong, got opcode \(pong.opcode)") }
            connection.write(serverFrame(8, [0x03, 0xE9] + bytes("bye")))
            let close = try connection.readFrame()
            seen.withLock { $0.append("close \(close.opcode) \(close.masked) \(close.payload)") }
        }
        let (client, recorder) = try client(to: server)
        #expect(await recorder.end() == .closed(code: 1001, reason: "bye"))
        #expect(await server.finished() == [])
        #expect(seen.withLock { $0 } == ["pong true p1", "close 8 true [3, 233]"])
        #expect(recorder.events.withLock { $0 }.prefix(2) == [.connected, .message("hello")])
        await client.shutdown()
    }

    @Test func sendsAreMaskedTextFramesInOrder() async throws {
        let payloads = Mutex<[String]>([])
        let server = try ScriptedServer.upgrading { connection in
            for _ in 0..<3 {
                let frame = try connection.readFrame()
                guard frame.opcode == 1, frame.masked else { throw LeanClientError("not a masked text frame") }
                payloads.withLock { $0.append(String(decoding: frame.payload, as: UTF8.self)) }
            }
            connection.write(serverFrame(8, [0x03, 0xE8]))
            _ = try connection.readFrame()
        }
        let (client, recorder) = try client(to: server)
        await eventually { recorder.events.withLock { $0.contains(.connected) } }
        for text in ["first", String(repeating: "x", count: 300), "third"] {
            client.send(text: Array(text.utf8), to: LeanConnectionID(slot: 0))
        }
        #expect(await recorder.end() == .closed(code: 1000, reason: ""))
        #expect(await server.finished() == [])
        #expect(payloads.withLock { $0 } == ["first", String(repeating: "x", count: 300), "third"])
        await client.shutdown()
        // The loop counted its rounds (the connect, the handshake, the sends, the close), and
        // published its final counts when it stopped.
        let stats = client.loopStats
        #expect(stats.rounds >= 3)
        #expect(stats.busyNanos > 0)
        #expect(stats.roundCounts.reduce(0, +) == stats.rounds)
        #expect(client.loopStats == stats)
    }

    @Test func aMaskedServerFrameFailsTheConnectionWith1002() async throws {
        let answer = Mutex<(UInt8, [UInt8])?>(nil)
        let server = try ScriptedServer.upgrading { connection in
            connection.write(serverFrame(1, bytes("masked!"), masked: true))
            let frame = try connection.readFrame()
            answer.withLock { $0 = (frame.opcode, frame.payload) }
        }
        let (client, recorder) = try client(to: server)
        guard case .closed(1002, let reason) = await recorder.end() else {
            Issue.record("expected 1002, got \(recorder.events.withLock { $0 })")
            return
        }
        #expect(reason.contains("masked"))
        #expect(await server.finished() == [])
        let (opcode, payload) = answer.withLock { $0 } ?? (0, [])
        #expect(opcode == 8 && payload.prefix(2) == [0x03, 0xEA], "the client says 1002 before it closes")
        #expect(!recorder.events.withLock { $0 }.contains(.message("masked!")))
        await client.shutdown()
    }

    @Test func anOversizedMessageFailsTheConnectionWith1009() async throws {
        let code = Mutex<[UInt8]>([])
        let server = try ScriptedServer.upgrading { connection in
            connection.write(serverFrame(1, Array(repeating: 65, count: 200)))
            let frame = try connection.readFrame()
            code.withLock { $0 = Array(frame.payload.prefix(2)) }
        }
        let (client, recorder) = try client(
            to: server, configuration: LeanClientConfiguration(maxMessageBytes: 100))
        guard case .closed(1009, _) = await recorder.end() else {
            Issue.record("expected 1009, got \(recorder.events.withLock { $0 })")
            return
        }
        _ = await server.finished()
        #expect(code.withLock { $0 } == [0x03, 0xF1])
        await client.shutdown()
    }

    @Test func aMessageSpanningManyWritesArrivesWhole() async throws {
        let big = (0..<200_000).map { UInt8(ascii: "a") &+ UInt8($0 % 26) }
        let server = try ScriptedServer.upgrading { connection in
            let frame = serverFrame(1, big) + serverFrame(1, bytes("small"))
            for start in stride(from: 0, to: frame.count, by: 7_777) {
                connection.write(Array(frame[start..<min(start + 7_777, frame.count)]))
                usleep(200)
            }
            connection.write(serverFrame(8, [0x03, 0xE8]))
            _ = try connection.readFrame()
        }
        let (client, recorder) = try client(
            to: server, configuration: LeanClientConfiguration(readBufferBytes: 4096))
        #expect(await recorder.end() == .closed(code: 1000, reason: ""))
        #expect(
            recorder.events.withLock { $0 }
                == [
                    .connected, .message(String(decoding: big, as: UTF8.self)), .message("small"),
                    .ended(.closed(code: 1000, reason: "")),
                ])
        _ = await server.finished()
        await client.shutdown()
    }

    @Test(arguments: [true, false])
    func shutdownSendsACloseFrame(_ edgeTriggered: Bool) async throws {
        let close = Mutex<(UInt8, [UInt8])?>(nil)
        let server = try ScriptedServer.upgrading { connection in
            connection.write(serverFrame(1, bytes("welcome")))
            let frame = try connection.readFrame()
            close.withLock { $0 = (frame.opcode, frame.payload) }
            connection.write(serverFrame(8, frame.payload))
        }
        let (client, recorder) = try client(
            to: server, configuration: LeanClientConfiguration(edgeTriggered: edgeTriggered))
        await eventually { recorder.events.withLock { $0.contains(.message("welcome")) } }
        await client.shutdown()
        #expect(await server.finished() == [])
        let (opcode, payload) = close.withLock { $0 } ?? (0, [])
        #expect(opcode == 8 && payload == [0x03, 0xE8] + bytes("load run finished"))
        #expect(recorder.ended == .closed(code: 1000, reason: "load run finished"))
    }
}
