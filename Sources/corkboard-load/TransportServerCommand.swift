import ArgumentParser
import CorkboardCommandLine
import CorkboardTransport
import Foundation
import Logging
import Synchronization

/// `corkboard-load transport-server`: a bare transport server for interop tests and benchmarks.
///
/// Echoes every message. A text message `{"bench":{"count":N,"size":S}}` makes it broadcast N
/// binary frames of S bytes to every connected client, wait until they are written, and answer the
/// sender with `{"benchDone":N,"recipients":R,"cpuMicros":C,"seconds":T}` where C is this
/// process's CPU time (user + system, getrusage) spent from the command to the last write.
struct TransportServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transport-server",
        abstract: "Run a raw transport echo/broadcast server (prints 'listening on PORT' once bound).")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port (0 = any free port).") var port = 0
    @Option(help: "Pin the server process to this CPU (-1 = no pinning).") var cpu = -1
    @Flag(help: "Log at debug level.") var verbose = false

    func run() async throws {
        var logger = Logger(label: "transport-server")
        logger.logLevel = verbose ? .debug : .warning
        let configuration = ServerConfiguration(
            host: host, port: port, maxQueuedBytes: 1 << 30, maxQueuedFrames: 10_000_000)
        let box = Mutex<WebSocketServer?>(nil)
        let bench = BenchRunner()
        let server = WebSocketServer(configuration: configuration, logger: logger) { event in
            guard case .message(let id, let message) = event, let server = box.withLock({ $0 }) else { return }
            if message.isText, let request = BenchRequest(message.text) {
                bench.start(request, server: server, replyTo: id)
            } else {
                server.send(
                    message.isText ? OutboundFrame(utf8: message.bytes) : OutboundFrame(binary: message.bytes), to: id)
            }
        }
        box.withLock { $0 = server }
        try server.start()
        if cpu >= 0 { ProcessCPU.pin(toCPU: cpu) }
        print("listening on \(server.boundPort)")
        fflush(nil)
        for await _ in await InterruptSignals.trap() { break }
        await server.shutdown(timeout: .seconds(3))
    }
}

/// A parsed `{"bench":{"count":N,"size":S}}` command.
struct BenchRequest {
    var count: Int
    var size: Int

    init?(_ text: String) {
        guard text.hasPrefix("{\"bench\""), let c = Self.int("count", in: text), let s = Self.int("size", in: text)
        else { return nil }
        count = c
        size = s
    }

    static func int(_ key: String, in text: String) -> Int? {
        guard let r = text.range(of: "\"\(key)\":") else { return nil }
        return Int(text[r.upperBound...].prefix { $0.isNumber })
    }
}

/// Runs one broadcast benchmark at a time on its own thread.
final class BenchRunner: Sendable {
    private let running = Mutex(false)

    func start(_ request: BenchRequest, server: WebSocketServer, replyTo: ConnectionID) {
        guard
            running.withLock({ r in
                if r { return false }
                r = true
                return true
            })
        else { return }
        let targets = server.connectionIDs
        Thread.detachNewThread { [self] in
            let cpu0 = ProcessCPU.microseconds()
            let t0 = ContinuousClock.now
            let payload = [UInt8](repeating: 0x42, count: max(1, request.size))
            // Keep at most `window` frames queued overall so memory stays bounded.
            let window = max(200_000, targets.count * 200)
            for _ in 0..<request.count {
                server.broadcast(OutboundFrame(binary: payload), to: targets)
                while server.queuedFrameCount > window { usleep(50) }
            }
            let deadline = ContinuousClock.now + .seconds(120)
            while server.queuedFrameCount > 0 && ContinuousClock.now < deadline { usleep(100) }
            let cpu = ProcessCPU.microseconds() - cpu0
            let seconds = (ContinuousClock.now - t0) / .seconds(1)
            server.send(
                OutboundFrame(
                    text:
                        "{\"benchDone\":\(request.count),\"recipients\":\(targets.count),\"cpuMicros\":\(cpu),\"seconds\":\(seconds)}"
                ), to: replyTo)
            running.withLock { $0 = false }
        }
    }
}
