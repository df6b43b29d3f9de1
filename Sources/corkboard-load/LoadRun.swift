import ArgumentParser
import CLinuxShim
import CorkboardClient
import CorkboardCommandLine
import CorkboardLoadKit
import CorkboardModel
import CorkboardProtocol
import CorkboardTransport
import Foundation
import Logging
import Synchronization

/// Options every scenario shares: where the server is, how long and how big the run may be, and
/// how to report.
struct RunOptions: ParsableArguments {
    @OptionGroup(title: "Server")
    var connection: ConnectionOptions

    /// The server's WebSocket URL; the run connects to this host only.
    var url: String { connection.url }

    @OptionGroup var process: ProcessOptions

    /// The server's process id (`--pid`).
    var pid: Int32? { process.pid }

    @Option(help: "Seconds measured (default: the scenario's).")
    var duration: Double?

    @Option(help: "Seconds of load before measuring (default: the scenario's).")
    var warmup: Double?

    @Option(help: "Seconds allowed after the window for outstanding operations to arrive.")
    var drain = 10.0

    @Option(help: "New connections per second while connecting.")
    var connectRate = 2000.0

    @Option(help: "Seconds allowed for every connection to join.")
    var connectTimeout = 120.0

    @Option(help: "Refuse to open more connections than this in one run.")
    var maxConnections = 20_000

    @Option(help: "Full clients (with replicas) that watch the boards and check them at the end.")
    var checkers = 1

    @Option(
        help:
            "Threads running the light peers' connections (each peer lives on one). (default: one per CPU the process may run on, 1 with --cpu)"
    )
    var threads: Int?

    @Option(
        help: "Split the run over this many processes, each with its share of the clients; one report merges them."
    )
    var processes = 1

    @Option(help: .hidden) var workerIndex: Int?
    @Option(help: .hidden) var workerPlan: String?

    @Option(
        help: """
            The WebSocket client of the light peers: lean (CorkboardLoadKit's own ws:// client on epoll, frames \
            read in place), lws (libwebsockets, ws:// and wss://), or auto (lean for ws://, lws for wss://). \
            The report's "client" says which ran.
            """)
    var client = LoadClient.auto

    /// The client the light peers run on (`--client` for `--url`).
    var peerClient: LoadClient { (try? client.resolved(for: url)) ?? .lws }

    /// The client threads to run: `--threads`, else one per CPU the process may run on (its affinity
    /// mask, so `taskset -c 1` gives one), and one when pinned with `--cpu`.
    var clientThreads: Int {
        threads ?? (process.cpu == nil ? Int(clinux_allowed_cpus()) : 1)
    }

    @Option(
        help: """
            Write every measured drop to this file, one line each: its send time and how long until its \
            last peer had it (CLOCK_MONOTONIC nanoseconds), to see when the slow ones happened \
            (scripts/drop_trace.py reads it). A run in one process only.
            """)
    var dropTrace: String?

    @Option(help: "Seed of the run's random choices.")
    var seed: UInt64 = 1

    @Flag(help: "Print the result as JSON on standard output (the progress line still goes to stderr).")
    var json = false

    @Flag(help: "No progress line.")
    var quiet = false

    /// Seconds measured at most, and connections at most, whatever the flags say.
    static let durationCap = 3600.0
    static let connectionCap = 60_000

    func validate(clients: Int, duration: Double, warmup: Double) throws {
        guard duration > 0, duration <= Self.durationCap, warmup >= 0, warmup <= 600, drain >= 0, drain <= 600 else {
            throw ValidationError(
                "--duration must be in (0, \(Int(Self.durationCap))] s, --warmup and --drain in [0, 600] s.")
        }
        let cap = min(maxConnections, Self.connectionCap)
        guard clients >= 1, clients + checkers <= cap else {
            throw ValidationError(
                "This run needs \(clients + checkers) connections; the cap is \(cap) (--max-connections, at most "
                    + "\(Self.connectionCap)).")
        }
        guard (1...64).contains(processes) else {
            throw ValidationError("--processes must be between 1 and 64, got \(processes).")
        }
        if let workerIndex, !(0..<processes).contains(workerIndex) {
            throw ValidationError("--worker-index must be below --processes.")
        }
        if dropTrace != nil && processes > 1 {
            throw ValidationError("--drop-trace needs a run in one process: drop --processes.")
        }
        if let threads, !(1...64).contains(threads) {
            throw ValidationError("--threads must be between 1 and 64, got \(threads).")
        }
        _ = try client.resolved(for: url)
        guard connectRate > 0, connectTimeout > 0, checkers >= 0 else {
            throw ValidationError("--connect-rate and --connect-timeout must be positive, --checkers at least 0.")
        }
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if Int(limit.rlim_max) < clients + checkers + 64 {
            throw ValidationError(
                "The file descriptor limit (\(limit.rlim_max)) is too low for \(clients + checkers) connections; "
                    + "raise it with `ulimit -n`.")
        }
    }
}

/// What a scenario asks of the runner.
struct ScenarioPlan {
    var name: String
    var shape: String
    var parameters: [String: String]
    /// Boards used when --boards is not given (0: the one --board).
    var defaultBoards = 0
    /// Light peers, spread round-robin over the boards (peer n is on board n mod boards).
    var clients: Int
    var duration: Double
    var warmup: Double
    /// Items each board needs, and their type.
    var minItems: Int
    var itemType: String
    /// Starts the load once every peer joined.
    var start: (LoadContext) throws -> (any LoadDriver)?
    /// A report every `interval` seconds of the window (the soak's minutes), single process only.
    var periodic: Periodic?

    /// What a scenario reports at a fixed interval during the window.
    struct Periodic {
        var interval: Double
        var sample: (IntervalContext) -> IntervalSample
    }
}

/// What a periodic report reads.
struct IntervalContext {
    /// Seconds since the window opened.
    var elapsed: Double
    var metrics: LoadMetrics
    var pid: Int32?
    /// The server's sample at the previous report (or the window's start).
    var previousServer: ProcessSample?
    var server: ProcessSample?
}

/// What a driver needs.
struct LoadContext: Sendable {
    var hub: PeerHub
    var metrics: LoadMetrics
    var roster: Roster
    var boards: [PlannedBoard]
    /// The board of every peer of the run (all processes).
    var peerBoards: [Int]
    var seed: UInt64
    /// Whether this process runs a peer (a run split with `--processes` gives each its share).
    var owns: @Sendable (Int) -> Bool
}

/// Runs a scenario: prepare the boards, connect, warm up, measure, drain, check, report. With
/// `--processes N` the run is split: this process (the coordinator) prepares the boards, starts N
/// workers (itself, with `--worker-index`), gives them one window, merges what they measured and
/// reports once.
struct LoadRunner {
    let options: RunOptions
    let selection: BoardSelection

    func run(_ plan: ScenarioPlan) async throws {
        try options.validate(clients: plan.clients, duration: plan.duration, warmup: plan.warmup)
        try options.process.pinThisProcess()
        let logger = Logger.loadTool()
        if let worker = options.workerIndex {
            try await SplitRun.worker(plan, index: worker, options: options, logger: logger)
            return
        }
        let progress = Progress(quiet: options.quiet)

        // Boards.
        let selected = try selection.resolve(defaultBoards: plan.defaultBoards)
        let tls = ClientConfiguration(tls: options.url.hasPrefix("wss://"))
        let setupClient = try BoardClient(configuration: tls, logger: logger)
        progress.note("preparing \(selected.count) board(s) with at least \(plan.minItems) items each")
        let boards = try await prepareBoards(selected, plan: plan, client: setupClient)
        await setupClient.shutdown()
        if options.processes > 1 {
            try await SplitRun.coordinate(plan, boards: boards, options: options, progress: progress, logger: logger)
            return
        }
        let peerBoards = (0..<plan.clients).map { $0 % boards.count }

        let metrics = LoadMetrics(peers: plan.clients, tracesDrops: options.dropTrace != nil)
        let roster = Roster(boards: boards.count)
        let serverBefore = try options.process.firstServerSample()

        // Connect.
        let peers = Array(peerBoards.indices)
        let hub = try PeerHub(
            peers: SplitRun.specs(peers, peerBoards: peerBoards, boards: boards), url: options.url,
            allowSelfSigned: options.connection.allowSelfSigned, threads: options.clientThreads,
            client: options.peerClient, metrics: metrics, roster: roster, logger: logger)
        let connectSeconds = try await SplitRun.connect(hub, peers: peers, options: options, progress: progress)
        let checkClient = try BoardClient(configuration: tls, logger: logger)
        let checkers = try await SplitRun.connectCheckers(
            client: checkClient, boards: boards, options: options, metrics: metrics)
        let (_, joined, failed) = hub.counts
        let serverConnected = options.process.serverSample()

        // Load: warm up, then measure.
        let context = LoadContext(
            hub: hub, metrics: metrics, roster: roster, boards: boards, peerBoards: peerBoards, seed: options.seed,
            owns: { _ in true })
        let driver = try plan.start(context)
        let warmupEnd = ContinuousClock.now + .seconds(plan.warmup)
        while ContinuousClock.now < warmupEnd {
            progress.line("warming up: \(joined) joined, \(metrics.received) messages")
            try await Task.sleep(for: .milliseconds(min(500, max(1, Int(plan.warmup * 1000)))))
        }
        metrics.openWindow()
        let windowStart = Window.Sample(metrics: metrics, pid: options.pid, hub: hub)
        var last = windowStart
        let windowEnd = ContinuousClock.now + .seconds(plan.duration)
        var intervals: [IntervalSample] = []
        var lastReport = windowStart
        while ContinuousClock.now < windowEnd {
            try await Task.sleep(for: .milliseconds(min(1000, Int(plan.duration * 1000))))
            let now = Window.Sample(metrics: metrics, pid: options.pid, hub: hub)
            progress.line(Window.progress(from: windowStart, last: last, to: now, metrics: metrics, plan: plan))
            last = now
            let elapsed = Double(now.at - windowStart.at) / 1e9
            // An interval is due half a second early at the latest; the window's end reports what is
            // left of the last one, unless that one was already reported (early) and nothing is left.
            if let periodic = plan.periodic,
                elapsed + 0.5 >= Double(intervals.count + 1) * periodic.interval
                    || (ContinuousClock.now >= windowEnd
                        && intervals.count < Int((plan.duration / periodic.interval).rounded(.up)))
            {
                let sample = periodic.sample(
                    IntervalContext(
                        elapsed: elapsed, metrics: metrics, pid: options.pid, previousServer: lastReport.server,
                        server: now.server))
                intervals.append(sample)
                lastReport = now
                progress.note(sample.line)
            }
        }
        metrics.closeWindow()
        let windowClose = Window.Sample(metrics: metrics, pid: options.pid, hub: hub)
        await driver?.stop()

        // Drain, then check.
        let drainDeadline = ContinuousClock.now + .seconds(options.drain)
        while metrics.outstandingMeasuredOps > 0 && ContinuousClock.now < drainDeadline {
            progress.line("draining: \(metrics.outstandingMeasuredOps) operations outstanding")
            try await Task.sleep(for: .milliseconds(50))
        }
        let shard = metrics.shard(
            peers: plan.clients, joined: joined, failed: failed, boards: boards.count, hub: hub, roster: roster,
            window: (windowStart, windowClose), connectSeconds: connectSeconds)
        var checks = await SplitRun.check(
            checkers, boards: boards, client: checkClient, peerSeqs: { hub.lastSeqs }, options: options)
        progress.finish()

        let report = Report(
            plan: plan, options: options, boards: boards, checkers: checkers.count,
            window: (windowStart, windowClose), totals: RunTotals([shard]), checks: &checks,
            serverBefore: serverBefore, serverConnected: serverConnected,
            intervals: plan.periodic == nil ? nil : intervals)
        await hub.shutdown()
        await checkClient.shutdown()
        if let path = options.dropTrace { try DropTrace.write(metrics.tracedDrops(), to: path) }
        report.print(json: options.json)
        if !report.passed { throw ExitCode(1) }
    }

    private func prepareBoards(
        _ selected: [(id: String, key: String?)], plan: ScenarioPlan, client: BoardClient
    ) async throws -> [PlannedBoard] {
        var boards = [PlannedBoard?](repeating: nil, count: selected.count)
        let (url, alternates) = (options.url, options.connection.alternateURLs)
        let allowSelfSigned = options.connection.allowSelfSigned
        let (minItems, itemType) = (plan.minItems, plan.itemType)
        var next = 0
        try await withThrowingTaskGroup(of: (Int, PlannedBoard).self) { group in
            func add(_ n: Int) {
                let (id, key) = selected[n]
                group.addTask {
                    (
                        n,
                        try await BoardPreparer.prepare(
                            client: client, url: url, alternateURLs: alternates, allowSelfSigned: allowSelfSigned,
                            board: id, key: key, minItems: minItems, itemType: itemType)
                    )
                }
            }
            while next < min(32, selected.count) {
                add(next)
                next += 1
            }
            while let (n, board) = try await group.next() {
                boards[n] = board
                if next < selected.count {
                    add(next)
                    next += 1
                }
            }
        }
        return boards.compactMap { $0 }
    }
}

/// The outcome of the end-of-run checks.
struct Checks {
    var checkedBoards = 0
    var failures: [String] = []

    mutating func fail(_ text: String) { failures.append(text) }
}

/// Samples at the edges of the measurement window.
enum Window {
    struct Sample {
        var at: UInt64
        var received: Int
        var committed: Int
        var server: ProcessSample?
        var me: ProcessSample
        /// The lean client's loops, when the peers run on it.
        var loop: LoopSnapshot?

        init(metrics: LoadMetrics, pid: Int32?, hub: PeerHub? = nil) {
            at = Monotonic.nanos()
            received = metrics.received
            committed = metrics.answered.committed
            server = pid.flatMap { ProcessSample.read(pid: $0) }
            me = ProcessSample.current()
            loop = hub?.loopSnapshot()
        }
    }

    static func progress(from start: Sample, last: Sample, to now: Sample, metrics: LoadMetrics, plan: ScenarioPlan)
        -> String
    {
        let seconds = Double(now.at - last.at) / 1e9
        let elapsed = Double(now.at - start.at) / 1e9
        var text = String(
            format: "%@ %.0fs/%.0fs: %.0f msg/s, %.0f ops/s", plan.name, elapsed, plan.duration,
            Double(now.received - last.received) / seconds, Double(now.committed - last.committed) / seconds)
        let drop = metrics.summary(.everyPeer)
        if drop.count > 0 { text += String(format: ", p99 drop→all %.1f ms", drop.p99) }
        let hover = metrics.summary(.proposalPeers)
        if hover.count > 0 { text += String(format: ", p99 proposal→peers %.1f ms", hover.p99) }
        let ack = metrics.summary(.ack)
        if ack.count > 0 { text += String(format: ", p99 ack %.1f ms", ack.p99) }
        if let a = last.server, let b = now.server {
            text += String(format: ", server %.0f%% CPU", ProcessUsage(from: a, to: b).cpuCores * 100)
        }
        text += String(format: ", me %.0f%%", ProcessUsage(from: last.me, to: now.me).cpuCores * 100)
        let errors = metrics.tallies.errors
        if errors > 0 { text += ", \(errors) errors" }
        return text
    }
}

/// The live progress line on standard error.
final class Progress: Sendable {
    let quiet: Bool
    let terminal: Bool
    private let lastLine = Mutex<UInt64>(0)

    init(quiet: Bool) {
        self.quiet = quiet
        terminal = isatty(2) != 0
    }

    func line(_ text: String) {
        guard !quiet else { return }
        if terminal {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
            return
        }
        // Into a file or pipe: at most one line a second.
        let now = Monotonic.nanos()
        let due = lastLine.withLock { last in
            guard now - last >= 950_000_000 else { return false }
            last = now
            return true
        }
        if due { FileHandle.standardError.write(Data("\(text)\n".utf8)) }
    }

    func note(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data("\(terminal ? "\r\u{1B}[K" : "")\(text)\n".utf8))
    }

    func finish() {
        if !quiet && terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
