import ArgumentParser
import CorkboardLoadKit

/// The relays Corkboard's hover path is compared with (docs/BENCHMARKS.md, "Side-by-side anchors").
enum RelayTarget: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// Debian's `libwebsockets-test-server`, protocol `lws-mirror-protocol`: every text frame a
    /// client sends goes to every client of the protocol, the sender included.
    case lwsMirror = "lws-mirror"
    /// The Node server of Yjs' y-websocket: an awareness update goes to every connection of the
    /// room (the URL's path), the sender included.
    case yWebsocket = "y-websocket"

    /// The WebSocket subprotocol to offer.
    var subprotocol: String? {
        switch self {
        case .lwsMirror: "lws-mirror-protocol"
        case .yWebsocket: nil
        }
    }

    /// Where each relay listens when started with its defaults.
    var defaultURL: String {
        switch self {
        case .lwsMirror: "ws://127.0.0.1:7681/"
        case .yWebsocket: "ws://127.0.0.1:1234/corkboard-relay"
        }
    }
}

/// `corkboard-load relay`: Corkboard's hover load (`crowd` with no drops) against another relay.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Hover load against another relay (the lws mirror or y-websocket), to compare with `crowd`.",
        discussion: """
            The load of `crowd --clients R+S --draggers S --drops-per-second 0`, for the relays \
            docs/BENCHMARKS.md compares Corkboard with: R receivers and S senders connect, then every sender \
            sends a hover of --bytes (JSON shaped like dragHover, with its sender and the time it was due) at \
            --hz, on an open-loop schedule. Every client reads everything; a hover's latency is from when it \
            was due to when each other client reads it (the sender's own copy is counted as delivered, not \
            timed). lws-mirror: Debian's `libwebsockets-test-server --port=7681` (package \
            libwebsockets-test-server), subprotocol lws-mirror-protocol, text frames. y-websocket: \
            `HOST=127.0.0.1 PORT=1234 NODE_PATH=/usr/share/nodejs y-websocket-server` (packages \
            node-y-websocket node-ws); each client sends sync step 1 of an empty document, senders send \
            awareness updates whose state is the hover; the room is the URL's path. The report has crowd's \
            figures under the same names: deliveredPerSecond, server.cpuMicrosPerDelivered (--pid) and \
            latencyMs.proposalPeers (hover → peers). scripts/bench_anchors.py runs both relays beside Corkboard.
            """)

    @Option(help: "The relay to load.")
    var target: RelayTarget

    @Option(
        help: """
            The relay's WebSocket URL (ws:// only). (default: ws://127.0.0.1:7681/ for lws-mirror, \
            ws://127.0.0.1:1234/corkboard-relay for y-websocket)
            """)
    var url: String?

    @Option(help: "Clients that only read.")
    var receivers = 100

    @Option(help: "Clients that send hovers (and read too).")
    var senders = 10

    @Option(help: "Hovers per second per sender.")
    var hz = 30.0

    @Option(help: "Bytes of each hover's JSON (padded; about 180 is the least).")
    var bytes = 200

    @Option(help: "Seconds measured.")
    var duration = 20.0

    @Option(help: "Seconds of load before measuring.")
    var warmup = 5.0

    @Option(help: "Seconds allowed for every client to connect.")
    var connectTimeout = 60.0

    @Option(
        help:
            "Threads running the connections. (default: one per CPU the process may run on, 1 with --cpu)")
    var threads: Int?

    @OptionGroup var process: ProcessOptions

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "No progress lines on standard error.")
    var quiet = false

    /// The URL to connect to: `--url`, else the target's default.
    var relayURL: String { url ?? target.defaultURL }

    func validate() throws {
        guard (0...20_000).contains(receivers), (1...1000).contains(senders) else {
            throw ValidationError("Need 0 ≤ --receivers ≤ 20,000 and 1 ≤ --senders ≤ 1,000.")
        }
        guard hz > 0, hz <= 1000 else { throw ValidationError("--hz must be in (0, 1000], got \(hz).") }
        guard (64...4096).contains(bytes) else { throw ValidationError("--bytes must be in 64…4096, got \(bytes).") }
        guard duration > 0, duration <= 3600, warmup >= 0, warmup <= 600, connectTimeout > 0 else {
            throw ValidationError(
                "--duration must be in (0, 3600] s, --warmup in [0, 600] s and --connect-timeout positive.")
        }
        if let threads, !(1...64).contains(threads) {
            throw ValidationError("--threads must be between 1 and 64, got \(threads).")
        }
        do {
            _ = try LeanURL(parsing: relayURL)
        } catch {
            throw ValidationError("--url \(relayURL): \(error) (relay speaks plain ws:// only).")
        }
    }

    func run() async throws {
        try process.pinThisProcess()
        let report = try await RelayRun(command: self).run()
        Swift.print(json ? report.json() : report.table())
        if !report.passed { throw ExitCode(1) }
    }
}
