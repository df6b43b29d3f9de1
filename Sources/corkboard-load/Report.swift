import Foundation
import Synchronization

/// The result of a load run, as a table for people and JSON for machines.
struct Report: Codable, JSONReport {
    struct Connections: Codable {
        var requested: Int
        var joined: Int
        var failed: Int
        var checkers: Int
        var disconnects: Int
        var connectSeconds: Double
    }

    struct Delivery: Codable {
        /// Committed operations sent in the window, and rejected ones.
        var committed: Int
        var rejected: Int
        /// Peer deliveries of those committed operations that should have arrived, and that did.
        var expected: Int
        var delivered: Int
        /// delivered ÷ expected (1 when nothing was expected).
        var ratio: Double
        /// Committed operations some peer never got, and operations never answered.
        var incompleteOps: Int
        var unansweredOps: Int
        /// Peers that got a rejected operation or one twice.
        var unexpected: Int
    }

    struct Server: Codable {
        var pid: Int32
        var window: ProcessUsage
        /// Server CPU time per message delivered to the run's connections, in microseconds.
        var cpuMicrosPerDelivered: Double?
        /// Resident memory gained while the run's connections joined, per connection, in KiB.
        var rssKiBPerConnection: Double?
        /// Resident memory gained from before the connections joined to the window's end, per
        /// connection, in KiB (adds what the load left queued or allocated).
        var rssKiBPerConnectionAtEnd: Double?
        var rssBeforeMiB: Double
    }

    var scenario: String
    var shape: String
    var parameters: [String: String]
    var url: String
    /// The WebSocket client the light peers ran on: `lean` (ws://) or `lws` (libwebsockets).
    var client: String
    /// The threads the light peers ran on in each process of the run (`--threads`, by default one
    /// per CPU the process may run on).
    var clientThreads: Int
    var boards: Int
    var windowSeconds: Double
    var warmupSeconds: Double
    var connections: Connections
    var messagesDelivered: Int
    var deliveredPerSecond: Double
    var committedPerSecond: Double
    var delivery: Delivery
    var latencyMs: [String: LatencySummary]
    var hoversSent: Int
    var hoversSeen: Int
    var errors: Int
    var errorSamples: [String]
    var rejectionCodes: [String]
    var refusedGrants: Int
    var seqGaps: Int
    var hoverMismatches: Int
    var checkedBoards: Int
    var server: Server?
    var loadTool: ProcessUsage
    /// The load tool's own event loops over the window (lean client only): when they were busy
    /// most of the time, the latencies above include the tool's queueing.
    var loadToolLoops: LoopUsage?
    /// The periodic reports of a soak, in order.
    var intervals: [IntervalSample]?
    var passed: Bool
    var failures: [String]

    init(
        plan: ScenarioPlan, options: RunOptions, boards: [PlannedBoard], checkers: Int,
        window: (Window.Sample, Window.Sample), totals: RunTotals, checks: inout Checks, serverBefore: ProcessSample?,
        serverConnected: ProcessSample?, intervals: [IntervalSample]? = nil
    ) {
        self.intervals = intervals
        let shards = totals.shards
        let (start, end) = window
        let seconds = Double(end.at - start.at) / 1e9
        scenario = plan.name
        shape = plan.shape
        parameters = plan.parameters
        url = options.url
        client = shards.compactMap(\.client).first ?? options.peerClient.rawValue
        clientThreads = options.clientThreads
        self.boards = boards.count
        windowSeconds = seconds
        warmupSeconds = plan.warmup
        let joined = shards.map(\.joined).reduce(0, +)
        let failed = shards.map(\.failed).reduce(0, +)
        let disconnects = shards.map(\.disconnects).reduce(0, +)
        connections = Connections(
            requested: plan.clients, joined: joined, failed: failed, checkers: checkers,
            disconnects: disconnects, connectSeconds: shards.map(\.connectSeconds).max() ?? 0)
        messagesDelivered = shards.map(\.received).reduce(0, +)
        deliveredPerSecond = seconds > 0 ? Double(messagesDelivered) / seconds : 0
        committedPerSecond = seconds > 0 ? Double(totals.committed) / seconds : 0
        let losses = totals.losses
        delivery = Delivery(
            committed: totals.committed, rejected: totals.rejected, expected: totals.expectedDeliveries,
            delivered: totals.deliveries,
            ratio: totals.expectedDeliveries == 0 ? 1 : Double(totals.deliveries) / Double(totals.expectedDeliveries),
            incompleteOps: losses.incompleteOps, unansweredOps: losses.unanswered,
            unexpected: totals.unexpectedDeliveries)
        var latencies: [String: LatencySummary] = [:]
        for kind in LatencyKind.allCases {
            latencies[kind.rawValue] = LatencySummary(totals.histograms[kind] ?? LoadMetrics.makeHistogram())
        }
        latencyMs = latencies
        let tallies = LoadTallies(adding: shards.map(\.tallies))
        hoversSent = tallies.hoversSent
        hoversSeen = tallies.hoversSeen
        errors = tallies.errors
        errorSamples = tallies.errorSamples
        // Every code any process saw (the added tallies keep the first five).
        var codes: [String] = []
        for code in shards.flatMap(\.tallies.rejectionCodes) where !codes.contains(code) { codes.append(code) }
        rejectionCodes = codes
        refusedGrants = tallies.refusedGrants
        seqGaps = tallies.seqGaps
        hoverMismatches = tallies.hoverMismatches
        checkedBoards = checks.checkedBoards
        if let pid = options.pid, let a = start.server, let b = end.server, let before = serverBefore {
            let usage = ProcessUsage(from: a, to: b)
            let connected = joined + checkers
            server = Server(
                pid: pid, window: usage,
                cpuMicrosPerDelivered: messagesDelivered > 0 ? usage.cpuSeconds * 1e6 / Double(messagesDelivered) : nil,
                rssKiBPerConnection: serverConnected.flatMap { after in
                    connected > 0 ? Double(after.rssKiB - before.rssKiB) / Double(connected) : nil
                },
                rssKiBPerConnectionAtEnd: connected > 0 ? Double(b.rssKiB - before.rssKiB) / Double(connected) : nil,
                rssBeforeMiB: Double(before.rssKiB) / 1024)
        }
        let usages = shards.compactMap(\.usage)
        loadTool = usages.dropFirst().reduce(usages.first ?? ProcessUsage(from: start.me, to: end.me)) { $0.adding($1) }
        loadToolLoops = LoopUsage(shards.compactMap(\.loop))

        if failed > 0 { checks.fail("\(failed) connections failed to join") }
        if disconnects > 0 {
            checks.fail(
                "\(disconnects) connections were lost: "
                    + shards.flatMap(\.disconnectSamples).prefix(5).joined(separator: "; "))
        }
        if seqGaps > 0 {
            checks.fail("\(seqGaps) gaps in the committed stream: \(tallies.gapSamples)")
        }
        if losses.incompleteOps > 0 || losses.unanswered > 0 {
            checks.fail(
                "\(losses.incompleteOps) committed operations missed \(losses.missingDeliveries) peer deliveries, "
                    + "\(losses.unanswered) were never answered: \(losses.samples)")
        }
        if delivery.ratio < 1 { checks.fail("delivery ratio of committed operations \(delivery.ratio) < 1") }
        if totals.unexpectedDeliveries > 0 {
            checks.fail("\(totals.unexpectedDeliveries) deliveries of rejected or already delivered operations")
        }
        if errors > 0 { checks.fail("\(errors) error messages: \(errorSamples)") }
        if hoverMismatches > 0 { checks.fail("\(hoverMismatches) hovers matched no hover sent") }
        passed = checks.failures.isEmpty
        failures = checks.failures
    }

    /// Prints the report: JSON for machines, else the table.
    func print(json: Bool) {
        Swift.print(json ? self.json() : table())
    }

    func table() -> String {
        func count(_ n: Int) -> String { n.formatted(.number.grouping(.automatic)) }
        func rate(_ x: Double) -> String { x >= 100 ? count(Int(x.rounded())) : String(format: "%.1f", x) }
        var lines: [String] = []
        let threads = "\(clientThreads) thread" + (clientThreads == 1 ? "" : "s")
        lines.append("corkboard-load \(scenario): \(shape) (\(client) client, \(threads))")
        lines.append(
            String(
                format: "window %.1f s after %.1f s warm-up; %@ board(s)", windowSeconds, warmupSeconds, count(boards)))
        lines.append("")
        let c = connections
        lines.append(
            "connections      \(count(c.joined)) of \(count(c.requested)) joined in \(String(format: "%.1f", c.connectSeconds)) s"
                + " (+\(c.checkers) checkers), \(c.failed) failed, \(c.disconnects) lost")
        lines.append("delivered        \(rate(deliveredPerSecond)) messages/s (\(count(messagesDelivered)) messages)")
        lines.append(
            "committed ops    \(rate(committedPerSecond))/s (\(count(delivery.committed)) committed, "
                + "\(count(delivery.rejected)) rejected\(rejectionCodes.isEmpty ? "" : ": \(rejectionCodes.joined(separator: ", "))"))"
        )
        lines.append(
            String(
                format:
                    "delivery ratio   %.6f for committed ops (%@ of %@ peer deliveries; %d incomplete, %d unanswered)",
                delivery.ratio, count(delivery.delivered), count(delivery.expected), delivery.incompleteOps,
                delivery.unansweredOps))
        if hoversSent > 0 {
            lines.append(
                "hovers           \(count(hoversSent)) sent, \(count(hoversSeen)) seen by peers (coalesced per tick)")
        }
        lines.append("errors           \(errors)\(errorSamples.isEmpty ? "" : " e.g. \(errorSamples[0].prefix(160))")")
        lines.append("")
        lines.append("latency (ms)              count      p50      p90      p99    p99.9      max")
        for kind in LatencyKind.allCases {
            guard let s = latencyMs[kind.rawValue], s.count > 0 else { continue }
            lines.append(
                kind.label.padding(toLength: 22, withPad: " ", startingAt: 0)
                    + String(repeating: " ", count: max(0, 9 - count(Int(s.count)).count)) + count(Int(s.count))
                    + String(format: " %8.2f %8.2f %8.2f %8.2f %8.2f", s.p50, s.p90, s.p99, s.p999, s.max))
        }
        lines.append("")
        if let intervals, !intervals.isEmpty {
            lines.append("every \(intervals.count > 1 ? "interval" : "report")")
            for sample in intervals { lines.append("  " + sample.line) }
            if let growth = IntervalSample.rssGrowth(intervals) { lines.append("  " + growth) }
            lines.append("")
        }
        if let server {
            var text = String(
                format: "server pid %d     CPU %.1f%% of a core", server.pid, server.window.cpuCores * 100)
            if let per = server.cpuMicrosPerDelivered { text += String(format: ", %.2f µs per delivered message", per) }
            text += String(
                format: "; RSS %.1f MiB (%.1f MiB before connecting", server.window.rssMiB, server.rssBeforeMiB)
            if let per = server.rssKiBPerConnection {
                text += String(format: ", %.1f KiB per connection once joined", per)
            }
            if let per = server.rssKiBPerConnectionAtEnd { text += String(format: ", %.1f at the end", per) }
            lines.append(text + ")")
            let threads = server.window.busiestThreads()
            if !threads.isEmpty { lines.append("  server threads " + threads.joined(separator: ", ")) }
        } else {
            lines.append("server           (pass --pid for its CPU and memory)")
        }
        lines.append(
            String(
                format: "load tool        CPU %.1f%% of a core, RSS %.1f MiB", loadTool.cpuCores * 100, loadTool.rssMiB)
        )
        if let loops = loadToolLoops {
            lines.append(
                String(
                    format:
                        "  its loops      busy %.1f%% of the window (%d loop%@), rounds p50 %.2f ms, p99 %.1f ms, "
                        + "max %.1f ms; half the busy time in rounds over %.1f ms",
                    loops.busy * 100, loops.loops, loops.loops == 1 ? "" : "s", loops.roundP50Ms, loops.roundP99Ms,
                    loops.roundMaxMs, loops.busyTimeRoundP50Ms))
            if loops.saturated {
                lines.append(
                    String(
                        format:
                            "  note: the load tool's loops were busy over %.0f%% of the window; the latencies above "
                            + "include its own queueing (give it more cores, --threads, or --processes)",
                        LoopUsage.saturatedAbove * 100))
            }
        }
        lines.append(
            "checks           \(checkedBoards) board(s) checked by replica, \(seqGaps) seq gaps: "
                + (passed ? "passed" : "FAILED"))
        for failure in failures { lines.append("  - \(failure)") }
        return lines.joined(separator: "\n")
    }
}
