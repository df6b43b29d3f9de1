import ArgumentParser
import CorkboardClient
import CorkboardCommandLine
import CorkboardLoadKit
import CorkboardModel
import CorkboardTransport
import Foundation
import Logging
import Synchronization

/// A run split over several processes (`--processes N`), and the steps every run shares.
///
/// The coordinator prepares the boards, writes them to a plan file and starts N workers (this
/// executable with the same arguments plus `--worker-index K --worker-plan FILE`). Worker K runs
/// the peers whose number is K mod N, with the draggers among them: names, sessions and opIds
/// carry the global peer number, so they are distinct across processes. Over their standard
/// input and output the workers report when they are connected, receive the one measurement
/// window (absolute `CLOCK_MONOTONIC` times, shared by every process on the machine), and finally
/// print what they measured as one JSON line (a ``RunShard``); the coordinator merges the shards
/// into one report.
enum SplitRun {
    /// What a worker says on its standard output, one JSON object per line.
    struct WorkerLine: Codable {
        /// Sent once its peers are connected.
        var ready: Bool?
        /// Sent at the end.
        var shard: RunShard?
    }

    /// What the coordinator sends a worker: the window, and when to start the load.
    struct Go: Codable {
        var start: UInt64
        var end: UInt64
    }

    // MARK: Steps every run shares

    /// The plans of light peers `peers` (global numbers), each on its board.
    static func specs(_ peers: [Int], peerBoards: [Int], boards: [PlannedBoard]) -> [PeerSpec] {
        peers.map { peer in
            let board = boards[peerBoards[peer]]
            return PeerSpec(
                global: peer, board: peerBoards[peer], boardID: board.id, key: board.key, name: "load \(peer)",
                url: board.url)
        }
    }

    /// Opens `peers` (global numbers, the hub's) at `--connect-rate` and waits until they joined
    /// or failed; returns the seconds it took.
    static func connect(_ hub: PeerHub, peers: [Int], options: RunOptions, progress: Progress) async throws -> Double {
        let connectStart = Monotonic.nanos()
        for (n, peer) in peers.enumerated() {
            try hub.open(peer)
            let due = connectStart + UInt64(Double(n + 1) / options.connectRate * 1e9)
            let now = Monotonic.nanos()
            if due > now { try await Task.sleep(for: .nanoseconds(Int(due - now))) }
            if n % 500 == 499 { progress.line("connecting: \(n + 1) of \(peers.count) opened") }
        }
        let connectDeadline = ContinuousClock.now + .seconds(options.connectTimeout)
        while ContinuousClock.now < connectDeadline {
            let (opened, joined, failed) = hub.counts
            progress.line("connecting: \(joined) of \(opened) joined, \(failed) failed")
            if joined + failed >= opened { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return Double(Monotonic.nanos() - connectStart) / 1e9
    }

    /// Joins `--checkers` full clients (with replicas), round robin over the boards.
    static func connectCheckers(
        client: BoardClient, boards: [PlannedBoard], options: RunOptions, metrics: LoadMetrics?
    ) async throws -> [(board: Int, connection: BoardConnection)] {
        var checkers: [(board: Int, connection: BoardConnection)] = []
        for n in 0..<options.checkers {
            let board = n % boards.count
            let connection = try await client.connect(
                BoardConnection.Options(
                    url: options.url, board: boards[board].id, key: boards[board].key, name: "load checker \(n)",
                    allowSelfSigned: options.connection.allowSelfSigned, timeout: .seconds(60),
                    alternateURLs: options.connection.alternateURLs,
                    onMessage: { _ in metrics?.shared.received.add(1, ordering: .relaxed) }))
            // A checker decodes everything in full, so it is slower than the light peers: it is not
            // counted among an operation's expected peers nor timed. Its replica, compared with a
            // fresh join at the end, shows it got every operation.
            checkers.append((board, connection))
        }
        return checkers
    }

    /// End-of-run checks: the checkers' replicas settle and match a fresh join of their board;
    /// every light peer of a board saw the same last seq.
    ///
    /// - Parameter peerSeqs: read once the checkers settled, so the light peers had the same time
    ///   to catch up.
    static func check(
        _ checkers: [(board: Int, connection: BoardConnection)], boards: [PlannedBoard], client: BoardClient,
        peerSeqs: () -> [RunShard.PeerSeq], options: RunOptions
    ) async -> Checks {
        var checks = Checks()
        var heads: [Int: Int] = [:]
        for (board, connection) in checkers {
            let plan = boards[board]
            do {
                let settled = try await connection.settle(timeout: .seconds(30))
                let fresh = try await client.connect(
                    BoardConnection.Options(
                        url: options.url, board: plan.id, key: plan.key, name: "load verifier",
                        allowSelfSigned: options.connection.allowSelfSigned, timeout: .seconds(60),
                        alternateURLs: options.connection.alternateURLs))
                let reference = fresh.replica
                fresh.close()
                heads[board] = reference.confirmedSeq
                if !settled.streamProblems.isEmpty {
                    checks.fail("checker of \(plan.id): \(settled.streamProblems.prefix(2).joined(separator: "; "))")
                }
                if settled.replica.confirmedSeq != reference.confirmedSeq {
                    checks.fail(
                        "checker of \(plan.id) settled at seq \(settled.replica.confirmedSeq), the board is at "
                            + "\(reference.confirmedSeq)")
                } else if settled.replica.confirmed != reference.confirmed {
                    checks.fail("checker of \(plan.id) diverged from the board at seq \(reference.confirmedSeq)")
                }
                let violations = reference.confirmed.checkInvariants()
                if !violations.isEmpty {
                    checks.fail("board \(plan.id) breaks invariants: \(violations.prefix(2).map(\.description))")
                }
                checks.checkedBoards += 1
            } catch {
                checks.fail("checker of \(plan.id): \(error)")
            }
        }
        var lastByBoard: [Int: Int] = [:]
        let seqs = peerSeqs().filter(\.joined)
        for entry in seqs { lastByBoard[entry.board] = max(lastByBoard[entry.board] ?? 0, entry.lastSeq) }
        for (board, head) in heads { lastByBoard[board] = max(lastByBoard[board] ?? 0, head) }
        var behind = 0
        var sample: String?
        for entry in seqs where entry.lastSeq < lastByBoard[entry.board] ?? 0 {
            behind += 1
            sample =
                sample
                ?? "peer \(entry.peer) of \(boards[entry.board].id) at seq \(entry.lastSeq) of \(lastByBoard[entry.board] ?? 0)"
        }
        if behind > 0 { checks.fail("\(behind) peers did not reach their board's last seq (\(sample ?? ""))") }
        return checks
    }

    // MARK: Coordinator

    static func coordinate(
        _ plan: ScenarioPlan, boards: [PlannedBoard], options: RunOptions, progress: Progress, logger: Logger
    ) async throws {
        let planFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "corkboard-load-plan-\(getpid()).json")
        try JSONEncoder().encode(boards).write(to: planFile)
        defer { try? FileManager.default.removeItem(at: planFile) }
        let serverBefore = try options.process.firstServerSample()
        var workers: [Worker] = []
        defer { for worker in workers { worker.terminate() } }
        for index in 0..<options.processes {
            workers.append(try Worker.start(index: index, planFile: planFile.path))
        }
        progress.note("split over \(options.processes) processes; waiting for their peers to join")
        for worker in workers {
            let line = try await worker.nextLine(timeout: options.connectTimeout + 60)
            guard line.ready == true else { throw CommandFailure("worker \(worker.index) did not get ready") }
        }
        let tls = ClientConfiguration(tls: options.url.hasPrefix("wss://"))
        let checkClient = try BoardClient(configuration: tls, logger: logger)
        let checkers = try await connectCheckers(client: checkClient, boards: boards, options: options, metrics: nil)
        let serverConnected = options.process.serverSample()

        // One window for every process: warm-up from now, then the measured duration.
        let start = Monotonic.nanos() + UInt64((0.2 + plan.warmup) * 1e9)
        let end = start + UInt64(plan.duration * 1e9)
        for worker in workers { try worker.send(Go(start: start, end: end)) }
        let idle = LoadMetrics(peers: 0)
        try await sleep(until: start)
        let windowStart = Window.Sample(metrics: idle, pid: options.pid)
        progress.line("measuring for \(plan.duration) s in \(options.processes) processes")
        try await sleep(until: end)
        let windowClose = Window.Sample(metrics: idle, pid: options.pid)
        var shards: [RunShard] = []
        for worker in workers {
            let line = try await worker.nextLine(timeout: options.drain + 60)
            guard let shard = line.shard else { throw CommandFailure("worker \(worker.index) sent no result") }
            shards.append(shard)
        }
        var checks = await check(
            checkers, boards: boards, client: checkClient, peerSeqs: { shards.flatMap(\.peerSeqs) }, options: options)
        progress.finish()
        let report = Report(
            plan: plan, options: options, boards: boards, checkers: checkers.count,
            window: (windowStart, windowClose), totals: RunTotals(shards), checks: &checks,
            serverBefore: serverBefore, serverConnected: serverConnected)
        await checkClient.shutdown()
        report.print(json: options.json)
        if !report.passed { throw ExitCode(1) }
    }

    /// Sleeps until a monotonic time.
    static func sleep(until time: UInt64) async throws {
        let now = Monotonic.nanos()
        if time > now { try await Task.sleep(for: .nanoseconds(Int(time - now))) }
    }

    // MARK: Worker

    static func worker(_ plan: ScenarioPlan, index: Int, options: RunOptions, logger: Logger) async throws {
        guard let path = options.workerPlan, let data = FileManager.default.contents(atPath: path),
            let boards = try? JSONDecoder().decode([PlannedBoard].self, from: data)
        else {
            throw ValidationError("--worker-index needs --worker-plan with the coordinator's board plan.")
        }
        let processes = options.processes
        let owns: @Sendable (Int) -> Bool = { $0 % processes == index }
        let peerBoards = (0..<plan.clients).map { $0 % boards.count }
        let mine = peerBoards.indices.filter(owns)
        let metrics = LoadMetrics(completesLocally: false, peers: plan.clients)
        let roster = Roster(boards: boards.count)
        let hub = try PeerHub(
            peers: specs(mine, peerBoards: peerBoards, boards: boards), url: options.url,
            allowSelfSigned: options.connection.allowSelfSigned, threads: options.clientThreads,
            client: options.peerClient, metrics: metrics, roster: roster, logger: logger)
        let quiet = Progress(quiet: true)
        let connectSeconds = try await connect(hub, peers: mine, options: options, progress: quiet)
        say(WorkerLine(ready: true))
        guard let text = readLine(), let go = try? JSONDecoder().decode(Go.self, from: Data(text.utf8)) else {
            throw CommandFailure("worker \(index): no window from the coordinator")
        }
        metrics.setWindow(start: go.start, end: go.end)
        let context = LoadContext(
            hub: hub, metrics: metrics, roster: roster, boards: boards, peerBoards: peerBoards, seed: options.seed,
            owns: owns)
        let driver = try plan.start(context)
        try await sleep(until: go.start)
        let windowStart = Window.Sample(metrics: metrics, pid: nil, hub: hub)
        try await sleep(until: go.end)
        let windowClose = Window.Sample(metrics: metrics, pid: nil, hub: hub)
        await driver?.stop()
        // Own operations answered, then a moment for the other processes' last deliveries.
        let drainDeadline = ContinuousClock.now + .seconds(options.drain)
        while metrics.unansweredOps > 0 && ContinuousClock.now < drainDeadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(Int(min(options.drain, 1) * 1000)))
        let (_, joined, failed) = hub.counts
        let shard = metrics.shard(
            peers: mine.count, joined: joined, failed: failed, boards: boards.count, hub: hub, roster: roster,
            window: (windowStart, windowClose), connectSeconds: connectSeconds)
        say(WorkerLine(shard: shard))
        await hub.shutdown()
    }

    private static func say(_ line: WorkerLine) {
        let data = (try? JSONEncoder().encode(line)) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

/// A worker process of a split run, seen from the coordinator (used by its one task).
final class Worker {
    let index: Int
    private let process: Process
    private let input: FileHandle
    private var lines: AsyncStream<String>.AsyncIterator

    private init(index: Int, process: Process, input: FileHandle, output: FileHandle) {
        self.index = index
        self.process = process
        self.input = input
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        lines = stream.makeAsyncIterator()
        // A thread of its own reads the worker's output, which may stay quiet for the whole run.
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 10) {
                    continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            continuation.finish()
        }
    }

    /// Starts worker `index`: this executable with the coordinator's arguments and the worker's.
    static func start(index: Int, planFile: String) throws -> Worker {
        let input = Pipe()
        let output = Pipe()
        let process = try ChildProcess.start(
            ChildProcess.selfPath,
            Array(CommandLine.arguments.dropFirst()) + [
                "--worker-index", "\(index)", "--worker-plan", planFile, "--quiet",
            ], input: input, output: output, what: "worker \(index)")
        return Worker(
            index: index, process: process, input: input.fileHandleForWriting, output: output.fileHandleForReading)
    }

    /// Sends a JSON line to the worker.
    func send(_ value: some Encodable) throws {
        input.write(try JSONEncoder().encode(value) + Data("\n".utf8))
    }

    /// The worker's next line, within `timeout` seconds.
    func nextLine(timeout: Double) async throws -> SplitRun.WorkerLine {
        let pid = process.processIdentifier
        let deadline = Task {
            try await Task.sleep(for: .seconds(timeout))
            kill(pid, SIGTERM)
        }
        defer { deadline.cancel() }
        guard let line = await lines.next() else {
            throw CommandFailure("worker \(index) ended without answering (see its error output above)")
        }
        guard let decoded = try? JSONDecoder().decode(SplitRun.WorkerLine.self, from: Data(line.utf8)) else {
            throw CommandFailure("worker \(index) said something unexpected: \(line.prefix(200))")
        }
        return decoded
    }

    /// Stops the worker if it still runs.
    func terminate() {
        if process.isRunning { process.terminate() }
    }
}
