import ArgumentParser
import CorkboardCommandLine
import CorkboardLoadKit
import CorkboardModel
import Foundation
import Logging
import Synchronization

/// `corkboard-load soak`: a mix of the scenarios for a bounded number of minutes, reporting the
/// server's memory, open files and the committed-op delivery ratio every minute.
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract:
            "A mix of the scenarios for --minutes (default 30), with the server's RSS, files and ratio per minute.",
        discussion: """
            On one board (--board, the demo board by default): --watchers clients that only watch; --draggers \
            that drag at --hover-hz and drop (crowd); --movers that each submit a single-item move --move-hz \
            times a second (storm, paced to stay under the server's rate limits); and --churn connections \
            that keep joining, staying --churn-seconds and leaving. Every --interval-seconds (60) it prints \
            the server's RSS, open file descriptors and CPU (--pid, from /proc), the operations committed \
            and the committed-op delivery ratio of the interval and so far (an operation not complete \
            10 s after it was sent counts as missing until it is). At the end every operation must have \
            reached every peer (ratio exactly 1) and the checkers' replicas must equal the board.
            """)

    @OptionGroup var run: RunOptions
    @OptionGroup var selection: BoardSelection

    @Option(help: "Minutes to run (1 to 60).") var minutes = 30.0
    @Option(help: "Seconds between reports.") var intervalSeconds = 60.0
    @Option(help: "Clients that only watch.") var watchers = 100
    @Option(help: "Clients that drag and drop.") var draggers = 4
    @Option(help: "Hovers (dropUpdate) per second per dragger.") var hoverHz = 30.0
    @Option(help: "Seconds from one drag's start to the next (each drags most of it).") var dragCycle = 2.0
    @Option(help: "Clients that submit moves.") var movers = 4
    @Option(help: "Moves per second per mover.") var moveHz = 5.0
    @Option(help: "Connections that keep joining and leaving at any time.") var churn = 10
    @Option(help: "Seconds each churning connection stays.") var churnSeconds = 5.0
    @Option(help: "Items the board must hold (inserted over the protocol if missing).") var items = 200

    func validate() throws {
        guard minutes > 0, minutes <= 60 else { throw ValidationError("--minutes must be in (0, 60], got \(minutes).") }
        guard intervalSeconds >= 5, intervalSeconds <= 600 else {
            throw ValidationError("--interval-seconds must be between 5 and 600.")
        }
        guard watchers >= 0, draggers >= 0, movers >= 0, churn >= 0, watchers + draggers + movers >= 2 else {
            throw ValidationError("Need at least two clients among --watchers, --draggers and --movers.")
        }
        guard hoverHz > 0, hoverHz <= 1000, dragCycle > 0, moveHz > 0, moveHz <= 1000, churnSeconds >= 0.5 else {
            throw ValidationError(
                "Need 0 < --hover-hz ≤ 1000, --drag-cycle > 0, 0 < --move-hz ≤ 1000, --churn-seconds ≥ 0.5.")
        }
        guard run.processes == 1 else { throw ValidationError("soak runs in one process (--processes 1).") }
    }

    func run() async throws {
        let clients = watchers + draggers + movers
        let (draggers, movers, churn, hz, cycle, moveHz) = (draggers, movers, churn, hoverHz, dragCycle, moveHz)
        let stay = Duration.milliseconds(Int(churnSeconds * 1000))
        let url = run.url
        let churnBox = ChurnBox()
        let plan = ScenarioPlan(
            name: "soak",
            shape: "\(watchers) watching, \(draggers) dragging at \(hz) Hz, \(movers) moving \(moveHz)/s each, "
                + "\(churn) joining and leaving every \(churnSeconds) s, for \(minutes) min",
            parameters: [
                "minutes": "\(minutes)", "watchers": "\(watchers)", "draggers": "\(draggers)", "hoverHz": "\(hz)",
                "movers": "\(movers)", "moveHz": "\(moveHz)", "churn": "\(churn)", "churnSeconds": "\(churnSeconds)",
            ],
            clients: clients, duration: run.duration ?? minutes * 60, warmup: run.warmup ?? 0,
            minItems: max(items, draggers + movers), itemType: "corkboard.card",
            start: { context in
                var drivers: [any LoadDriver] = []
                // Peers 0..<draggers drag, the next `movers` move, the rest watch.
                if draggers > 0 {
                    drivers.append(
                        DragDriver.started(
                            context, draggers: draggers,
                            timing: DragDriver.Timing(hoverHz: hz, dragSeconds: cycle * 0.8, cycleSeconds: cycle)))
                }
                if movers > 0 {
                    let moving = PacedMoveDriver(
                        context, movers: (draggers..<draggers + movers).map { ($0, context.peerBoards[$0]) },
                        perSecond: moveHz, seed: context.seed &+ 7)
                    moving.start()
                    drivers.append(moving)
                }
                if churn > 0 {
                    let logger = Logger.loadTool()
                    let churning = try ChurnDriver(url: url, boards: context.boards, stay: stay, logger: logger)
                    churning.start(concurrent: churn)
                    churnBox.driver = churning
                    drivers.append(churning)
                }
                return CompositeDriver(drivers: drivers)
            },
            periodic: ScenarioPlan.Periodic(interval: intervalSeconds) { context in
                let sample = IntervalSample(
                    context, churnJoins: churnBox.driver?.joins.load(ordering: .relaxed) ?? 0, previous: churnBox.last)
                churnBox.last = sample
                return sample
            })
        try await LoadRunner(options: run, selection: selection).run(plan)
        if let failures = churnBox.driver.map({ $0.failures.load(ordering: .relaxed) }), failures > 0 {
            let samples = churnBox.driver?.failureSamples.withLock { $0 } ?? []
            FileHandle.standardError.write(Data("soak: \(failures) churning connections failed: \(samples)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// The soak's churn driver and last interval, reachable from the plan's closures.
final class ChurnBox: @unchecked Sendable {
    // Set once by `start` before the window opens, read by the periodic reports on the same task.
    var driver: ChurnDriver?
    var last: IntervalSample?
}

/// One periodic report of a soak.
struct IntervalSample: Codable {
    /// Minutes since the window opened.
    var minute: Double
    /// The server's resident memory, open file descriptors and CPU over the interval (`--pid`).
    var serverRSSMiB: Double?
    var serverFileDescriptors: Int?
    var serverCPUCores: Double?
    /// Committed operations completed in the interval, and per second.
    var committed: Int
    var committedPerSecond: Double
    /// Peer deliveries of the interval's completed operations, and what operations more than 10 s
    /// old still miss.
    var deliveries: Int
    var lateOps: Int
    var lateMissing: Int
    /// Delivery ratio of the interval and of the run so far.
    var ratio: Double
    var cumulativeRatio: Double
    /// p99 latencies so far, in ms.
    var p99DropEveryPeerMs: Double
    var p99AckMs: Double
    /// Churning connections that joined, in all.
    var churnJoins: Int

    init(_ context: IntervalContext, churnJoins: Int, previous: IntervalSample?) {
        minute = context.elapsed / 60
        if let pid = context.pid {
            serverRSSMiB = context.server.map { Double($0.rssKiB) / 1024 }
            serverFileDescriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
            if let a = context.previousServer, let b = context.server {
                serverCPUCores = ProcessUsage(from: a, to: b).cpuCores
            }
        }
        let status = context.metrics.deliveryStatus(sentBefore: Monotonic.nanos() &- 10_000_000_000)
        let seconds = (context.elapsed - (previous?.minute ?? 0) * 60)
        committed = status.committed - (previous?.totalCommitted ?? 0)
        committedPerSecond = seconds > 0 ? Double(committed) / seconds : 0
        deliveries = status.deliveries - (previous?.totalDeliveries ?? 0)
        lateOps = status.lateOps
        lateMissing = status.lateMissing
        ratio = deliveries + lateMissing == 0 ? 1 : Double(deliveries) / Double(deliveries + lateMissing)
        cumulativeRatio =
            status.deliveries + lateMissing == 0
            ? 1 : Double(status.deliveries) / Double(status.deliveries + lateMissing)
        p99DropEveryPeerMs = context.metrics.summary(.everyPeer).p99
        p99AckMs = context.metrics.summary(.ack).p99
        self.churnJoins = churnJoins
        totalCommitted = status.committed
        totalDeliveries = status.deliveries
    }

    /// Running totals behind the interval's figures.
    var totalCommitted: Int
    var totalDeliveries: Int

    /// One line for people.
    var line: String {
        var text = String(format: "minute %5.1f:", minute)
        if let rss = serverRSSMiB { text += String(format: " server RSS %.1f MiB", rss) }
        if let fds = serverFileDescriptors { text += ", \(fds) fds" }
        if let cpu = serverCPUCores { text += String(format: ", CPU %.0f%%", cpu * 100) }
        text += String(
            format: "; %d ops committed (%.1f/s), delivery ratio %.6f (so far %.6f, %d late)", committed,
            committedPerSecond, ratio, cumulativeRatio, lateOps)
        text += String(
            format: "; p99 drop→all %.1f ms, ack %.1f ms; %d churn joins", p99DropEveryPeerMs, p99AckMs, churnJoins)
        return text
    }

    /// How the server's RSS moved from the first report (after warm-up) to the last.
    static func rssGrowth(_ samples: [IntervalSample]) -> String? {
        guard samples.count >= 2, let first = samples.first?.serverRSSMiB, let last = samples.last?.serverRSSMiB
        else { return nil }
        let peak = samples.compactMap(\.serverRSSMiB).max() ?? last
        return String(
            format: "server RSS %.1f MiB at the first report, %.1f MiB at the last (%+.1f%%), peak %.1f MiB", first,
            last,
            (last - first) / first * 100, peak)
    }
}
