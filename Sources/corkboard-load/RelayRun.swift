import ArgumentParser
import CLinuxShim
import CorkboardLoadKit
import Foundation
import Synchronization

/// One `corkboard-load relay` run: connect every client, start the senders, warm up, measure,
/// stop, report.
struct RelayRun {
    let command: RelayCommand

    func run() async throws -> RelayReport {
        let url = try LeanURL(parsing: command.relayURL)
        let total = command.receivers + command.senders
        let lanes = min(total, command.threads ?? (command.process.cpu == nil ? Int(clinux_allowed_cpus()) : 1))
        let progress = Progress(quiet: command.quiet)
        let relay = (0..<lanes).map { RelayLane(index: $0, lanes: lanes, target: command.target) }
        for lane in relay { try lane.client.start(delegate: lane) }
        let serverBefore = try command.process.firstServerSample()

        // Connect every client, then wait until each has opened or failed.
        let connectStart = Monotonic.nanos()
        for n in 0..<total {
            try relay[n % lanes].client.connect(
                to: url, subprotocol: command.target.subprotocol, id: LeanConnectionID(slot: n / lanes))
        }
        let connectDeadline = ContinuousClock.now + .seconds(command.connectTimeout)
        while ContinuousClock.now < connectDeadline {
            let counts = RelayLane.Counts.total(relay)
            guard counts.connected + counts.failed < total else { break }
            progress.line("connecting: \(counts.connected) of \(total) open")
            try await Task.sleep(for: .milliseconds(20))
        }
        let connectSeconds = Double(Monotonic.nanos() - connectStart) / 1e9
        guard RelayLane.Counts.total(relay).connected > 0 else {
            let why = relay.flatMap { $0.results.samples }.first ?? "none opened in \(command.connectTimeout) s"
            for lane in relay { await lane.client.shutdown() }
            throw RelayFailure(
                description: "No client could connect to \(url) (\(why)). Is the \(command.target.rawValue) relay "
                    + "running there? See `corkboard-load relay --help` for how to start it.")
        }
        let serverConnected = command.process.serverSample()

        // Send; warm up; measure.
        let senders = RelaySenders(command: command, lanes: relay)
        senders.start()
        let warmupEnd = ContinuousClock.now + .seconds(command.warmup)
        while ContinuousClock.now < warmupEnd {
            progress.line("warming up: \(RelayLane.Counts.total(relay).received) messages read")
            try await Task.sleep(for: .milliseconds(min(500, max(1, Int(command.warmup * 1000)))))
        }
        let start = RelaySample(relay, senders: senders, pid: command.process.pid)
        for lane in relay { lane.measuring.store(true, ordering: .relaxed) }
        var last = start
        let windowEnd = ContinuousClock.now + .seconds(command.duration)
        while ContinuousClock.now < windowEnd {
            try await Task.sleep(for: .milliseconds(min(1000, Int(command.duration * 1000))))
            let now = RelaySample(relay, senders: senders, pid: command.process.pid)
            progress.line(now.progress(since: last, start: start, duration: command.duration))
            last = now
        }
        for lane in relay { lane.measuring.store(false, ordering: .relaxed) }
        let end = RelaySample(relay, senders: senders, pid: command.process.pid)
        await senders.stop()
        for lane in relay { lane.closing.store(true, ordering: .relaxed) }
        for lane in relay { await lane.client.shutdown() }
        progress.finish()
        return RelayReport(
            command: command, lanes: relay, window: (start, end), connectSeconds: connectSeconds,
            serverBefore: serverBefore, serverConnected: serverConnected)
    }
}

/// Why a relay run could not be made.
struct RelayFailure: Error, CustomStringConvertible {
    var description: String
}

/// The counts at one edge of the window (or at a progress line).
struct RelaySample {
    var at: UInt64
    var received: Int
    var hoversSeen: Int
    var hoversSent: Int
    var server: ProcessSample?
    var me: ProcessSample
    var loop: LoopSnapshot

    init(_ lanes: [RelayLane], senders: RelaySenders, pid: Int32?) {
        at = Monotonic.nanos()
        let counts = RelayLane.Counts.total(lanes)
        received = counts.received
        hoversSeen = counts.hoversSeen
        hoversSent = senders.sent.load(ordering: .relaxed)
        server = pid.flatMap { ProcessSample.read(pid: $0) }
        me = ProcessSample.current()
        let stats = lanes.map(\.client.loopStats)
        loop = LoopSnapshot(loops: lanes.count, stats: stats.dropFirst().reduce(stats[0]) { $0.adding($1) })
    }

    /// The progress line: rates since `last`.
    func progress(since last: RelaySample, start: RelaySample, duration: Double) -> String {
        let seconds = max(1e-9, Double(at - last.at) / 1e9)
        var text = String(
            format: "relay %.0fs/%.0fs: %.0f msg/s read, %.0f hovers/s sent", Double(at - start.at) / 1e9, duration,
            Double(received - last.received) / seconds, Double(hoversSent - last.hoversSent) / seconds)
        if let a = last.server, let b = server {
            text += String(format: ", server %.0f%% CPU", ProcessUsage(from: a, to: b).cpuCores * 100)
        }
        return text + String(format: ", me %.0f%%", ProcessUsage(from: last.me, to: me).cpuCores * 100)
    }
}

/// The senders of a relay run, on one thread: sender `i` (connection `i` of the run) sends its
/// hover number `k` when it is due, at start + k ÷ hz + i ÷ (hz × senders) (the senders spread
/// evenly over each period). Open loop: nothing waits for an answer, and a hover carries the
/// time it was due, so one sent late counts its lateness.
final class RelaySenders: Sendable {
    private let lanes: [RelayLane]
    private let count: Int
    private let target: RelayTarget
    private let bytes: Int
    private let interval: UInt64
    private let thread = DriverThread()
    /// Hovers sent so far.
    let sent = Atomic<Int>(0)

    init(command: RelayCommand, lanes: [RelayLane]) {
        self.lanes = lanes
        count = command.senders
        target = command.target
        bytes = command.bytes
        interval = UInt64(1e9 / command.hz)
    }

    /// Starts the sending thread.
    func start() {
        thread.start { [self] in loop(start: Monotonic.nanos()) }
    }

    /// Stops sending and waits for the thread to end.
    func stop() async { await thread.stop() }

    /// The y-websocket client id of sender `i`: ids in a range Yjs' random 32-bit ids rarely use.
    static func clientID(_ sender: Int) -> UInt64 { 0xC0_0000 + UInt64(sender) }

    private func loop(start: UInt64) {
        var next = 0
        while !thread.isStopping {
            let now = Monotonic.nanos()
            while due(next, start: start) <= now {
                send(sender: next % count, number: next / count, due: due(next, start: start))
                next += 1
            }
            DriverThread.sleep(from: now, until: min(due(next, start: start), now + 5_000_000))
        }
    }

    /// When send number `n` of the run (sender n mod count, its hover n ÷ count) is due.
    private func due(_ n: Int, start: UInt64) -> UInt64 {
        start + UInt64(n / count) * interval + UInt64(n % count) * interval / UInt64(count)
    }

    private func send(sender: Int, number: Int, due: UInt64) {
        let lane = lanes[sender % lanes.count]
        let id = LeanConnectionID(slot: sender / lanes.count)
        let hover = RelayHover.json(from: sender, seq: number, sent: due, bytes: bytes)
        switch target {
        case .lwsMirror:
            lane.client.send(text: hover, to: id)
        case .yWebsocket:
            // Clocks start at 1: the server holds 0 for a client it has not seen.
            lane.client.send(
                binary: YjsMessage.awarenessUpdate(
                    clientID: Self.clientID(sender), clock: UInt64(number) + 1, state: hover),
                to: id)
        }
        sent.add(1, ordering: .relaxed)
    }
}
