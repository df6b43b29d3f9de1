import CorkboardLoadKit
import Foundation
import Histogram

/// The result of a `corkboard-load relay` run. The figures `crowd` also reports keep its names and
/// shape (``Report``): `deliveredPerSecond`, `messagesDelivered`, `server.cpuMicrosPerDelivered`,
/// `server.window.cpuCores`, `latencyMs.proposalPeers` (hover → peers), `errors`, `passed`.
struct RelayReport: Codable, JSONReport {
    var scenario = "relay"
    /// `lws-mirror` or `y-websocket`.
    var target: String
    var shape: String
    var parameters: [String: String]
    var url: String
    var client = "lean"
    var clientThreads: Int
    var windowSeconds: Double
    var warmupSeconds: Double
    var connections: Report.Connections
    /// Messages the run's clients read in the window (each a whole hover), and per second.
    var messagesDelivered: Int
    var deliveredPerSecond: Double
    /// Hover → peers (`proposalPeers`, as in `crowd`): from when a hover was due to when each other
    /// client read it.
    var latencyMs: [String: LatencySummary]
    var hoversSent: Int
    /// Hovers read in the window by every client, the sender's own copy included.
    var hoversSeen: Int
    /// hoversSeen ÷ (hoversSent × clients): about 1 when the relay kept up (hovers in flight at the
    /// window's edges make it a little off).
    var hoverDeliveryRatio: Double
    var errors: Int
    var errorSamples: [String]
    var server: Report.Server?
    var loadTool: ProcessUsage
    var loadToolLoops: LoopUsage?
    var passed: Bool
    var failures: [String]

    init(
        command: RelayCommand, lanes: [RelayLane], window: (RelaySample, RelaySample), connectSeconds: Double,
        serverBefore: ProcessSample?, serverConnected: ProcessSample?
    ) {
        let (start, end) = window
        let seconds = Double(end.at - start.at) / 1e9
        let total = command.receivers + command.senders
        target = command.target.rawValue
        shape =
            "\(command.receivers) receivers + \(command.senders) senders at \(command.hz) Hz, "
            + "\(command.bytes)-byte hovers, through \(command.target.rawValue)"
        parameters = [
            "target": command.target.rawValue, "receivers": "\(command.receivers)", "senders": "\(command.senders)",
            "hz": "\(command.hz)", "bytes": "\(command.bytes)",
        ]
        url = command.relayURL
        clientThreads = lanes.count
        windowSeconds = seconds
        warmupSeconds = command.warmup
        let counts = RelayLane.Counts.total(lanes)
        let (joined, failed, disconnects) = (counts.connected, counts.failed, counts.disconnects)
        connections = Report.Connections(
            requested: total, joined: joined, failed: failed, checkers: 0, disconnects: disconnects,
            connectSeconds: connectSeconds)
        messagesDelivered = end.received - start.received
        deliveredPerSecond = seconds > 0 ? Double(messagesDelivered) / seconds : 0
        let results = lanes.map(\.results)
        var latency = LoadMetrics.makeHistogram()
        for result in results { latency.add(result.latency) }
        latencyMs = [LatencyKind.proposalPeers.rawValue: LatencySummary(latency)]
        hoversSent = end.hoversSent - start.hoversSent
        hoversSeen = end.hoversSeen - start.hoversSeen
        hoverDeliveryRatio = hoversSent > 0 ? Double(hoversSeen) / Double(hoversSent * total) : 0
        errors = counts.errors
        errorSamples = Array(results.flatMap { $0.samples }.prefix(5))
        if let pid = command.process.pid, let a = start.server, let b = end.server {
            let usage = ProcessUsage(from: a, to: b)
            server = Report.Server(
                pid: pid, window: usage,
                cpuMicrosPerDelivered: messagesDelivered > 0 ? usage.cpuSeconds * 1e6 / Double(messagesDelivered) : nil,
                rssKiBPerConnection: serverBefore.flatMap { before in
                    serverConnected.map { Double($0.rssKiB - before.rssKiB) / Double(max(1, joined)) }
                },
                rssKiBPerConnectionAtEnd: serverBefore.map { Double(b.rssKiB - $0.rssKiB) / Double(max(1, joined)) },
                rssBeforeMiB: Double(serverBefore?.rssKiB ?? a.rssKiB) / 1024)
        }
        loadTool = ProcessUsage(from: start.me, to: end.me)
        loadToolLoops = LoopWindow(relay: start, to: end).flatMap { LoopUsage([$0]) }

        var failures: [String] = []
        if failed > 0 { failures.append("\(failed) of \(total) clients failed to connect") }
        if disconnects > 0 { failures.append("\(disconnects) clients were lost") }
        if errors > 0 { failures.append("\(errors) unreadable messages") }
        if hoversSent > 0 && latency.totalCount == 0 { failures.append("no hover reached another client") }
        self.failures = failures
        passed = failures.isEmpty
    }

    func table() -> String {
        func count(_ n: Int) -> String { n.formatted(.number.grouping(.automatic)) }
        var lines: [String] = []
        lines.append("corkboard-load relay: \(shape) (lean client, \(clientThreads) thread(s))")
        lines.append(String(format: "window %.1f s after %.1f s warm-up; %@", windowSeconds, warmupSeconds, url))
        lines.append("")
        let c = connections
        lines.append(
            "connections      \(count(c.joined)) of \(count(c.requested)) open in "
                + String(format: "%.1f s, %d failed, %d lost", c.connectSeconds, c.failed, c.disconnects))
        lines.append(
            "delivered        \(count(Int(deliveredPerSecond.rounded()))) messages/s (\(count(messagesDelivered)) messages)"
        )
        lines.append(
            "hovers           \(count(hoversSent)) sent, \(count(hoversSeen)) read by the clients "
                + String(format: "(%.4f of every client getting every hover)", hoverDeliveryRatio))
        if hoversSent > 0 && hoverDeliveryRatio < 0.95 {
            lines.append(
                String(
                    format: "  note: only %.0f%% of the hovers reached every client in the window: the relay fell "
                        + "behind, and its latencies grow with its backlog", hoverDeliveryRatio * 100))
        }
        lines.append("errors           \(errors)\(errorSamples.isEmpty ? "" : " e.g. \(errorSamples[0].prefix(160))")")
        lines.append("")
        lines.append("latency (ms)              count      p50      p90      p99    p99.9      max")
        if let s = latencyMs[LatencyKind.proposalPeers.rawValue] {
            lines.append(
                "hover → peers".padding(toLength: 22, withPad: " ", startingAt: 0)
                    + String(repeating: " ", count: max(0, 9 - count(Int(s.count)).count)) + count(Int(s.count))
                    + String(format: " %8.2f %8.2f %8.2f %8.2f %8.2f", s.p50, s.p90, s.p99, s.p999, s.max))
        }
        lines.append("")
        if let server {
            var text = String(
                format: "server pid %d     CPU %.1f%% of a core", server.pid, server.window.cpuCores * 100)
            if let per = server.cpuMicrosPerDelivered { text += String(format: ", %.2f µs per delivered message", per) }
            lines.append(text + String(format: "; RSS %.1f MiB", server.window.rssMiB))
        } else {
            lines.append("server           (pass --pid for its CPU and memory)")
        }
        lines.append(
            String(
                format: "load tool        CPU %.1f%% of a core, RSS %.1f MiB", loadTool.cpuCores * 100, loadTool.rssMiB)
        )
        if let loops = loadToolLoops, loops.saturated {
            lines.append(
                String(
                    format: "  note: the load tool's loops were busy %.0f%% of the window; the latencies include "
                        + "its own queueing (give it more cores or --threads)", loops.busy * 100))
        }
        lines.append("checks           " + (passed ? "passed" : "FAILED"))
        for failure in failures { lines.append("  - \(failure)") }
        return lines.joined(separator: "\n")
    }
}

extension LoopWindow {
    /// The relay run's loops between two samples.
    init?(relay start: RelaySample, to end: RelaySample) {
        guard end.loop.loops > 0, end.loop.loops == start.loop.loops, end.at > start.at else { return nil }
        loops = end.loop.loops
        windowNanos = end.at - start.at
        stats = end.loop.stats.since(start.loop.stats)
    }
}
