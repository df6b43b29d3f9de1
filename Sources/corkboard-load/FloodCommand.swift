import ArgumentParser
import CorkboardClient
import CorkboardCommandLine
import CorkboardTransport
import Foundation
import Logging
import Synchronization

/// `corkboard-load flood`: while flooders send as fast as they can, do the bystanders on the same
/// board and on another board keep their round trips?
struct FloodCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flood",
        abstract: "One client floods a board as fast as it can; bystanders time their round trips, quiet and flooded.",
        discussion: """
            Two bystanders join, one on the flooded board (--board) and one on another (--other-board, or a \
            board created with POST /api/boards). Each sends a ping (--ping-hz) and a single-item move \
            (--move-hz) on a fixed schedule and times ping → pong and move → ack. After --quiet-seconds \
            the flooders join the flooded board and send cursors and moves (--flood) as fast as their \
            connections take them, reconnecting whenever the server closes them, for --flood-seconds. \
            The run passes when no bystander was refused or closed and every flooded p99 round trip is \
            within --max-ratio of the quiet one (0: report without judging). With the server's rate \
            limits on (the default) the flood is refused in the hub; start the server with --rate-ops 0 \
            --rate-ephemeral 0 to see what it costs the bystanders without them.
            """)

    @OptionGroup(title: "Server") var connection: ConnectionOptions

    @OptionGroup var process: ProcessOptions

    @Option(help: "The flooded board (open the demo board with `corkboard serve --demo`).") var board = "demo"
    @Option(help: "The edit key of --board (none for an open board).") var key: String?
    @Option(help: "The other bystander's board (default: a new one, made with POST /api/boards).") var otherBoard:
        String?
    @Option(help: "The edit key of --other-board.") var otherKey: String?
    @Option(help: "Seconds measured before the flood.") var quietSeconds = 10.0
    @Option(help: "Seconds measured while flooding.") var floodSeconds = 20.0
    @Option(help: "What the flooders send: mixed (cursors and moves), cursor or submit.") var flood = "mixed"
    @Option(help: "Flooding connections.") var flooders = 1
    @Option(help: "Pings per second from each bystander.") var pingHz = 20.0
    @Option(help: "Moves per second from each bystander (0: none).") var moveHz = 4.0
    @Option(help: "Largest flooded p99 ÷ quiet p99 that passes; 0 reports without judging.") var maxRatio = 2.0
    @Option(help: "Seed of the moves' random places.") var seed: UInt64 = 1
    @Flag(help: "Print the result as JSON on standard output.") var json = false
    @Flag(help: "No progress lines.") var quiet = false

    func validate() throws {
        guard (1...600).contains(quietSeconds), (1...600).contains(floodSeconds) else {
            throw ValidationError("--quiet-seconds and --flood-seconds must be between 1 and 600.")
        }
        guard FloodRun.Flood(rawValue: flood) != nil else {
            throw ValidationError("--flood must be mixed, cursor or submit, got '\(flood)'.")
        }
        guard (1...16).contains(flooders), pingHz > 0, pingHz <= 200, moveHz >= 0, moveHz <= 50, maxRatio >= 0 else {
            throw ValidationError(
                "Need 1 ≤ --flooders ≤ 16, 0 < --ping-hz ≤ 200, 0 ≤ --move-hz ≤ 50 and --max-ratio ≥ 0.")
        }
    }

    func run() async throws {
        try process.pinThisProcess()
        let logger = Logger.loadTool()
        let progress = Progress(quiet: quiet)
        let url = connection.url
        let client = try BoardClient(configuration: ClientConfiguration(tls: url.hasPrefix("wss://")), logger: logger)
        let other: (id: String, key: String?)
        if let otherBoard {
            other = (otherBoard, otherKey)
        } else {
            let created = try BoardCreation.create(serverURL: url, title: "flood bystander")
            other = (created.id, created.key)
            progress.note("created board \(created.id) for the other bystander")
        }
        let flooded = try await BoardPreparer.prepare(
            client: client, url: url, board: board, key: key, minItems: 10, itemType: "corkboard.card")
        let otherPlan = try await BoardPreparer.prepare(
            client: client, url: url, board: other.id, key: other.key, minItems: 10, itemType: "corkboard.card")
        await client.shutdown()
        guard url.hasPrefix("ws://") else {
            throw ValidationError("flood runs over ws:// only (its clients do not load TLS).")
        }

        let run = try FloodRun(
            url: url, flooded: flooded, other: otherPlan, flood: FloodRun.Flood(rawValue: flood)!, logger: logger)
        try await run.connectBystanders()
        run.startBystanders(pingHz: pingHz, moveHz: moveHz, seed: seed)
        try await Task.sleep(for: .seconds(1))  // settle: joins done, first answers in

        var phases: [FloodReport.PhaseUsage] = []
        for phase in FloodRun.Phase.allCases {
            let seconds = phase == .quiet ? quietSeconds : floodSeconds
            if phase == .flood {
                try run.startFlood(flooders: flooders, seed: seed &+ 1)
                try await Task.sleep(for: .milliseconds(500))  // the flood under way before measuring
            }
            let server = process.serverSample()
            run.enter(phase)
            let end = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(min(1000, Int(seconds * 1000))))
                let c = run.counts.withLock { $0.flooder }
                progress.line(
                    "\(phase.name): same board ping p99 \(String(format: "%.2f", run.summary(phase, .sameBoard, .ping).p99)) ms, "
                        + "other board \(String(format: "%.2f", run.summary(phase, .otherBoard, .ping).p99)) ms; "
                        + "flooder sent \(c.sent), \(c.rateLimited) rate-limited, "
                        + "\(c.closes.values.reduce(0, +)) closes")
            }
            run.enter(nil)
            phases.append(
                FloodReport.PhaseUsage(
                    phase: phase.name, seconds: seconds,
                    server: server.flatMap { start in
                        process.serverSample().map { ProcessUsage(from: start, to: $0) }
                    }))
            if phase == .flood { run.stopFlood() }
        }
        try await Task.sleep(for: .seconds(2))  // the last answers
        progress.finish()
        let report = FloodReport(
            command: self, flooded: flooded.id, other: other.id, run: run, phases: phases)
        await run.shutdown()
        Swift.print(json ? report.json() : report.table())
        if !report.passed { throw ExitCode(1) }
    }
}

/// What `corkboard-load flood` measured.
struct FloodReport: Codable, JSONReport {
    struct PhaseUsage: Codable {
        var phase: String
        var seconds: Double
        var server: ProcessUsage?
    }

    /// What the flooders did: `FloodRun` counts it, the report adds the connections, the kind and
    /// the rate.
    struct Flooder: Codable {
        var connections: Int
        var kind: String
        var sent: Int
        var sentPerSecond: Double
        var rateLimited: Int
        var otherErrors: Int
        var committed: Int
        var rejected: Int
        var closes: [String: Int]
        var joins: Int
    }

    var board: String
    var otherBoard: String
    var flooder: Flooder
    var phases: [PhaseUsage]
    /// `phase.bystander.trip` → round trips in ms.
    var roundTripMs: [String: LatencySummary]
    /// `bystander.trip` → flooded p99 ÷ quiet p99.
    var p99Ratio: [String: Double]
    var maxRatio: Double
    /// Round trips sent and answered, by `phase.bystander.trip`.
    var sent: [String: Int]
    var answered: [String: Int]
    var bystanderErrors: [String]
    var bystanderCloses: [String]
    var passed: Bool
    var failures: [String]

    init(command: FloodCommand, flooded: String, other: String, run: FloodRun, phases: [PhaseUsage]) {
        let counts = run.counts.withLock { $0 }
        board = flooded
        otherBoard = other
        let floodSeconds = command.floodSeconds
        flooder = counts.flooder
        flooder.connections = command.flooders
        flooder.kind = command.flood
        flooder.sentPerSecond = Double(flooder.sent) / floodSeconds
        self.phases = phases
        var trips: [String: LatencySummary] = [:]
        var ratios: [String: Double] = [:]
        var failures: [String] = []
        let trips2: [FloodRun.Trip] = command.moveHz > 0 ? [.ping, .ack] : [.ping]
        for bystander in FloodRun.Bystander.allCases {
            for trip in trips2 {
                let quiet = run.summary(.quiet, bystander, trip)
                let flooded = run.summary(.flood, bystander, trip)
                trips[FloodRun.key(.quiet, bystander, trip)] = quiet
                trips[FloodRun.key(.flood, bystander, trip)] = flooded
                let ratio = quiet.p99 > 0 ? flooded.p99 / quiet.p99 : 0
                ratios["\(bystander.name).\(trip.rawValue)"] = ratio
                if command.maxRatio > 0 && ratio > command.maxRatio {
                    failures.append(
                        String(
                            format: "%@ %@ p99 %.2f ms flooded vs %.2f ms quiet: %.2f× > %.1f×", bystander.name,
                            trip.rawValue, flooded.p99, quiet.p99, ratio, command.maxRatio))
                }
                for phase in FloodRun.Phase.allCases {
                    let key = FloodRun.key(phase, bystander, trip)
                    let sent = counts.sent[key, default: 0]
                    let answered = counts.answered[key, default: 0]
                    if answered < sent {
                        failures.append("\(key): \(sent - answered) of \(sent) never answered")
                    }
                }
            }
        }
        roundTripMs = trips
        p99Ratio = ratios
        maxRatio = command.maxRatio
        sent = counts.sent
        answered = counts.answered
        bystanderErrors = counts.bystanderErrors
        bystanderCloses = counts.bystanderCloses
        if !counts.bystanderErrors.isEmpty {
            failures.append("bystanders were refused: \(counts.bystanderErrors.prefix(3))")
        }
        if !counts.bystanderCloses.isEmpty {
            failures.append("bystanders were closed: \(counts.bystanderCloses.prefix(3))")
        }
        if flooder.sent == 0 { failures.append("the flooder sent nothing") }
        self.failures = failures
        passed = failures.isEmpty
    }

    func table() -> String {
        var lines = [
            "corkboard-load flood: \(flooder.connections) flooder(s) sending \(flooder.kind) on \(board); "
                + "bystanders on \(board) and \(otherBoard)",
            "",
            "round trip (ms)                     count      p50      p99      max",
        ]
        for key in roundTripMs.keys.sorted(by: {
            ($0.hasPrefix("quiet") ? 0 : 1, $0) < ($1.hasPrefix("quiet") ? 0 : 1, $1)
        }) {
            let s = roundTripMs[key]!
            lines.append(
                key.padding(toLength: 32, withPad: " ", startingAt: 0)
                    + String(format: "%9d %8.2f %8.2f %8.2f", Int(s.count), s.p50, s.p99, s.max))
        }
        lines.append("")
        for (key, ratio) in p99Ratio.sorted(by: { $0.key < $1.key }) {
            lines.append(String(format: "flooded p99 ÷ quiet p99, %@: %.2f×", key, ratio))
        }
        lines.append("")
        let closes = flooder.closes.map { "\($0.value) × \($0.key)" }.sorted().joined(separator: ", ")
        lines.append(
            String(
                format: "flooder          sent %d messages (%.0f/s); %d rate-limited answers, %d other errors; "
                    + "%d committed, %d rejected; closed %@; %d joins", flooder.sent, flooder.sentPerSecond,
                flooder.rateLimited, flooder.otherErrors, flooder.committed, flooder.rejected,
                closes.isEmpty ? "never" : closes, flooder.joins))
        for phase in phases {
            if let server = phase.server {
                lines.append(
                    String(
                        format: "server, %@      CPU %.1f%% of a core, RSS %.1f MiB", phase.phase,
                        server.cpuCores * 100,
                        server.rssMiB))
            }
        }
        lines.append("checks           " + (passed ? "passed" : "FAILED"))
        for failure in failures { lines.append("  - \(failure)") }
        return lines.joined(separator: "\n")
    }
}
