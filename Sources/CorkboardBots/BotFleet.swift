import CorkboardClient
import CorkboardCommandLine
import CorkboardModel
import CorkboardProtocol
import CorkboardTransport
public import Logging

/// Runs the bots of one process: joins the board with one connection per bot (one shared
/// ``BoardClient``), lets them act until the deadline or a signal, then checks every replica and
/// builds the summary.
public struct BotFleet: Sendable {
    let settings: BotSettings
    let console: Console
    let logger: Logger

    /// A fleet for one run.
    public init(settings: BotSettings, console: Console, logger: Logger) {
        self.settings = settings
        self.console = console
        self.logger = logger
    }

    /// What each bot's task hands back.
    private struct BotResult: Sendable {
        var index: Int
        var ending: BotBehavior.Ending
        var badRefs: [String]
    }

    /// Runs the whole thing.
    ///
    /// - Throws: ``CommandFailure`` when the client cannot start or a bot cannot join the board.
    public func run() async throws -> BotSummary {
        let client: BoardClient
        do {
            client = try BoardClient(
                configuration: ClientConfiguration(connectTimeout: settings.timeout, tls: settings.usesTLS),
                logger: logger)
        } catch {
            throw CommandFailure("The WebSocket client could not start: \(error.message)")
        }
        let stop = StopFlag()
        let console = self.console
        let signals = await watchInterrupts(stop: stop) { console.notice($0) }
        let monitors = (0..<settings.bots).map { _ in BotMonitor() }
        let connections: [BoardConnection]
        do {
            connections = try await join(client: client, monitors: monitors)
        } catch {
            await client.shutdown()
            throw error
        }
        let tallies = (0..<settings.bots).map { _ in LiveTally() }
        let started = ContinuousClock.now
        let deadline = started + settings.duration
        let progress = Task {
            await showProgress(started: started, tallies: tallies, connections: connections, stop: stop)
        }
        let results = await withTaskGroup(of: BotResult.self) { group in
            for index in connections.indices {
                group.addTask { [settings, logger] in
                    var bot = BotBehavior(
                        index: index, connection: connections[index], settings: settings, tally: tallies[index],
                        logger: logger)
                    let ending = await bot.run(until: deadline, stop: stop)
                    bot.finish()
                    return BotResult(index: index, ending: ending, badRefs: bot.badRefs)
                }
            }
            var results: [BotResult] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.index < $1.index }
        }
        let elapsed = ContinuousClock.now - started
        let interruption = stop.interruption
        stop.set()
        await progress.value
        console.endProgress()

        var lost: [String] = []
        var checked: [(name: String, connection: BoardConnection)] = []
        for result in results {
            if case .lost(let why) = result.ending {
                lost.append(why)
            } else {
                checked.append((settings.name(ofBot: result.index), connections[result.index]))
            }
        }
        let check = await FleetCheck.run(bots: checked, client: client, settings: settings)
        var tally = BotTally()
        for live in tallies { tally.add(live.value) }
        if settings.badInput {
            tally.badInput.changes += badInputChanges(results: results, monitors: monitors)
        }
        let states = connections.map(\.state)
        await client.shutdown()
        signals.cancel()
        return BotSummary(
            seed: settings.seed, url: settings.url, board: settings.board, bots: settings.bots,
            durationSeconds: settings.duration.seconds, elapsedSeconds: elapsed.seconds, interruptedBy: interruption,
            tally: tally, errorsReceived: states.map(\.errorCount).reduce(0, +),
            messagesReceived: monitors.map(\.received).reduce(0, +),
            resumes: states.map { max(0, $0.joinCount - 1) }.reduce(0, +), lostBots: lost, check: check,
            badInputEnabled: settings.badInput)
    }

    /// Opens every bot's connection at once and waits for each welcome.
    ///
    /// - Throws: ``CommandFailure`` naming the board, the URL and the server's answer.
    private func join(client: BoardClient, monitors: [BotMonitor]) async throws -> [BoardConnection] {
        var connections: [BoardConnection] = []
        do {
            for (index, monitor) in monitors.enumerated() {
                let options = BoardConnection.Options(
                    url: settings.url, board: settings.board, key: settings.key, name: settings.name(ofBot: index),
                    allowSelfSigned: settings.allowSelfSigned,
                    // Like a browser, a bot whose link is lost or goes silent resumes by itself (on
                    // the next entry URL when a node is gone), so an operation awaiting its ack is
                    // resent and answered instead of waiting out the timeout.
                    reconnect: .standard, timeout: settings.timeout,
                    alternateURLs: settings.alternateURLs, onMessage: monitor.observe)
                connections.append(try client.open(options))
            }
            for connection in connections { try await connection.waitUntilJoined(timeout: settings.timeout) }
        } catch {
            for connection in connections { connection.close() }
            throw CommandFailure(
                "Cannot join board \(settings.board) at \(settings.url): \(error.message) Check that the server "
                    + "runs at that URL (ending in /ws), that the board exists, and that --key opens it for editing.")
        }
        if let reader = connections.first(where: { $0.member?.role.may(.edit) != true }) {
            for connection in connections { connection.close() }
            throw CommandFailure(
                "\(reader.options.name) joined board \(settings.board) as a \(reader.member?.role.rawValue ?? "viewer"), "
                    + "so its moves would be refused; pass the board's edit or admin key with --key.")
        }
        return connections
    }

    /// Redraws the progress line until the bots stop.
    private func showProgress(
        started: ContinuousClock.Instant, tallies: [LiveTally], connections: [BoardConnection], stop: StopFlag
    ) async {
        guard console.showsProgress else { return }
        let interval: Duration = console.progressIsTerminal ? .milliseconds(250) : .seconds(1)
        let total = settings.duration.seconds
        // Bounded: the run lasts at most its duration plus the last actions and the check.
        let ticks = Int((settings.duration + .seconds(600)) / interval)
        for _ in 0..<ticks {
            await stop.sleep(until: .now + interval)
            if stop.isSet { return }
            var tally = BotTally()
            for live in tallies { tally.add(live.value) }
            let errors = connections.map(\.state.errorCount).reduce(0, +)
            let elapsed = (ContinuousClock.now - started).seconds
            let rate = elapsed > 0 ? Double(tally.committed) / elapsed : 0
            console.progress(
                "[\(format(min(elapsed, total)))/\(format(total)) s] \(settings.bots) bots · \(tally.actionCount) actions · "
                    + "\(tally.committed) committed · \(tally.rejectedCount) rejected · \(tally.proposals) proposals · "
                    + "\(errors) errors · \(format(rate)) ops/s")
        }
    }

    private func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// With `--bad-input`: every bad message must have been answered by nothing but one error, no
    /// operation of one may have committed.
    private func badInputChanges(results: [BotResult], monitors: [BotMonitor]) -> [String] {
        var changes: [String] = []
        for result in results {
            let monitor = monitors[result.index]
            for ref in result.badRefs {
                let answers = monitor.answers(to: ref)
                if answers.contains(where: { $0 != "error" }) || answers.count > 1 {
                    changes.append("\(ref) was answered by \(answers.joined(separator: ", "))")
                }
            }
            changes += monitor.badCommits
        }
        return Array(changes.prefix(20))
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
