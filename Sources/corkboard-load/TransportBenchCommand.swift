import ArgumentParser
import CorkboardTransport
import Foundation
import Logging
import Synchronization

/// `corkboard-load transport`: delivered frames/s and server CPU per frame for broadcasts.
///
/// Spawns `corkboard-load transport-server` pinned to one core, pins itself (the clients) to
/// another, connects the clients with one ``WebSocketClient``, asks the server to broadcast, and
/// counts delivered frames until every client has every frame (bounded by `--timeout`).
struct TransportBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transport",
        abstract: "Benchmark broadcast fan-out: delivered frames/s and server CPU µs per frame.")

    @Option(help: "Number of WebSocket clients.") var clients = 100
    @Option(help: "Broadcasts per run (each goes to every client).") var broadcasts = 20_000
    @Option(help: "Payload bytes per frame.") var size = 100
    @Option(help: "Number of runs.") var runs = 3
    @Option(help: "CPU for the server process.") var serverCPU = 0
    @Option(help: "CPU for this process (the clients).") var clientCPU = 1
    @Option(help: "Seconds allowed per run before it is reported as incomplete.") var timeout = 60.0
    @Option(help: "Path of the corkboard-load binary for the server (default: this binary).") var serverBinary: String?

    func run() async throws {
        var logger = Logger(label: "transport-bench")
        logger.logLevel = .warning
        let out = Pipe()
        let server = try ChildProcess.start(
            serverBinary ?? ChildProcess.selfPath,
            ["transport-server", "--port", "0", "--host", "127.0.0.1", "--cpu", "\(serverCPU)"], output: out,
            what: "the transport server")
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        guard let port = Self.readPort(out.fileHandleForReading) else {
            throw ValidationError("the transport-server child did not report its port")
        }
        let received = Atomic<Int>(0)
        let connected = Atomic<Int>(0)
        let report = Mutex<String?>(nil)
        let client = WebSocketClient(
            configuration: ClientConfiguration(receiveBufferBytes: 16 * 1024), logger: logger
        ) { event in
            switch event {
            case .connected: connected.add(1, ordering: .relaxed)
            case .message(_, let m):
                if m.isText {
                    report.withLock { $0 = m.text }
                } else {
                    received.add(1, ordering: .relaxed)
                }
            default: break
            }
        }
        try client.start()
        let pinned = ProcessCPU.pin(toCPU: clientCPU)
        var ids: [ClientConnectionID] = []
        for _ in 0..<clients { ids.append(try client.connect(to: "ws://127.0.0.1:\(port)/ws")) }
        let clock = ContinuousClock()
        let allConnected = try await waitUntil(.now + .seconds(60), every: .milliseconds(10)) {
            connected.load(ordering: .relaxed) >= clients
        }
        guard allConnected else {
            throw ValidationError("only \(connected.load(ordering: .relaxed)) of \(clients) clients connected")
        }
        print(
            "transport bench: \(clients) clients, \(broadcasts) broadcasts of \(size) B, \(runs) runs; "
                + "server on CPU \(serverCPU), clients on CPU \(clientCPU)\(pinned ? "" : " (pinning failed)")")
        var rates: [Double] = []
        var cpuPerFrame: [Double] = []
        for run in 1...runs {
            received.store(0, ordering: .relaxed)
            report.withLock { $0 = nil }
            let expected = broadcasts * clients
            let start = clock.now
            client.send(text: "{\"bench\":{\"count\":\(broadcasts),\"size\":\(size)}}", to: ids[0])
            let deadline = start + .seconds(timeout)
            _ = try await waitUntil(deadline, every: .microseconds(200)) {
                received.load(ordering: .relaxed) >= expected
            }
            let elapsed = (clock.now - start) / .seconds(1)
            let got = received.load(ordering: .relaxed)
            _ = try await waitUntil(deadline + .seconds(5), every: .milliseconds(5)) {
                report.withLock { $0 } != nil
            }
            let cpuMicros = report.withLock { $0 }.flatMap { BenchRequest.int("cpuMicros", in: $0) }
            let rate = Double(got) / elapsed
            let perFrame = cpuMicros.map { Double($0) / Double(max(got, 1)) }
            rates.append(rate)
            if let perFrame { cpuPerFrame.append(perFrame) }
            print(
                String(
                    format: "run %d: delivered %d/%d frames in %.3f s = %.0f frames/s; server CPU %@ µs/frame",
                    run, got, expected, elapsed, rate, perFrame.map { String(format: "%.3f", $0) } ?? "n/a"))
        }
        print(
            String(
                format: "median %.0f frames/s (spread %.0f–%.0f); median server CPU %.3f µs/frame (spread %.3f–%.3f)",
                Self.median(rates), rates.min() ?? 0, rates.max() ?? 0, Self.median(cpuPerFrame),
                cpuPerFrame.min() ?? 0, cpuPerFrame.max() ?? 0))
        await client.shutdown()
    }

    static func median(_ xs: [Double]) -> Double {
        guard !xs.isEmpty else { return 0 }
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Reads `listening on PORT` from the child's stdout (EOF ends the wait).
    static func readPort(_ handle: FileHandle) -> Int? {
        var text = ""
        while !text.contains("\n") {
            let d = handle.availableData
            if d.isEmpty { break }
            text += String(decoding: d, as: UTF8.self)
        }
        guard let r = text.range(of: "listening on ") else { return nil }
        return Int(text[r.upperBound...].prefix { $0.isNumber })
    }
}
