import ArgumentParser
import CorkboardBots
import CorkboardCommandLine
import Foundation
import Logging

/// The `corkboard-bot` command: headless users that join a board, act on it, and check their
/// replicas against a fresh snapshot at the end.
@main
struct BotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corkboard-bot",
        abstract: "Bots that use a Corkboard board like people do, then check their replicas against the server.",
        discussion: """
            Each bot joins the board over ws:// or wss:// and, at --rate actions per second for --duration \
            seconds, reorders items, moves them between collections (respecting what each collection accepts; \
            refusals are counted), drags several items with drop proposals at 30 Hz before each drop, copies, \
            inserts Inbox placeholders that it then commits or deletes, and changes cards' details (done, comments, \
            assignees, descriptions on the version it sees). --conflicts makes bots grab items \
            their peers are dragging; --bad-input makes them send malformed messages that must each get an \
            error and change nothing.

            At the end every bot settles, a fresh connection takes a snapshot, and each bot's replica must equal \
            it at the same seq with the board's invariants intact. The summary goes to stdout; the exit status \
            is 0 only when every check passed, 1 otherwise (also when the board cannot be joined). SIGINT stops \
            the bots and still checks; a second SIGINT exits at once.
            """
    )

    @OptionGroup(title: "Server")
    var connection: ConnectionOptions

    @Option(help: "The board id.")
    var board = "demo"

    @Option(help: "The board's edit key (leave out for an open board, e.g. the demo under `serve --demo`).")
    var key: String?

    @Option(help: "The bots' display name; with several bots, bot n shows as \"NAME n\".")
    var name = "Bot"

    @Option(help: "How many bots to run in this process, each on its own connection (1 to \(BotSettings.maxBots)).")
    var bots = 1

    @Option(help: "How long the bots act, in seconds (up to \(Int(BotSettings.maxDurationSeconds))).")
    var duration = 10.0

    @Option(help: "Actions per second per bot (up to \(Int(BotSettings.maxRate))).")
    var rate = 2.0

    @Option(help: "Seed of every choice the bots make (printed, so a run can be repeated); random by default.")
    var seed: UInt64?

    @Flag(help: "Deliberately target items other members are dragging (lease conflicts, concurrent drops).")
    var conflicts = false

    @Option(help: "With --conflicts, the share of actions that target peers' items (0 to 1).")
    var conflictProbability = 0.3

    @Flag(help: "Also send malformed, unknown, oversized and out-of-range messages; each must get an error.")
    var badInput = false

    @Option(help: "Seconds to wait for any answer from the server.")
    var timeout = 10.0

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @Flag(help: "Show the live progress line on stderr even when it is not a terminal.")
    var progress = false

    @Flag(help: "Print only the summary (no progress line, no notices).")
    var quiet = false

    mutating func validate() throws {
        guard (1...BotSettings.maxBots).contains(bots) else {
            throw ValidationError("--bots must be between 1 and \(BotSettings.maxBots); got \(bots).")
        }
        guard duration > 0, duration <= BotSettings.maxDurationSeconds else {
            throw ValidationError(
                "--duration must be more than 0 and at most \(Int(BotSettings.maxDurationSeconds)) seconds; "
                    + "got \(duration).")
        }
        guard rate > 0, rate <= BotSettings.maxRate else {
            throw ValidationError(
                "--rate must be more than 0 and at most \(Int(BotSettings.maxRate)) actions per second; got \(rate).")
        }
        guard (0...1).contains(conflictProbability) else {
            throw ValidationError("--conflict-probability must be between 0 and 1; got \(conflictProbability).")
        }
        guard timeout > 0, timeout <= 300 else {
            throw ValidationError("--timeout must be more than 0 and at most 300 seconds; got \(timeout).")
        }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 56 else {
            throw ValidationError("--name must be 1 to 56 characters (room is left for the bot number).")
        }
    }

    func run() async throws {
        var settings = BotSettings(
            url: connection.url, board: board, key: key, name: name, bots: bots, duration: .seconds(duration),
            rate: rate,
            seed: seed ?? UInt64.random(in: 1...UInt64.max), conflictProbability: conflicts ? conflictProbability : 0,
            badInput: badInput, allowSelfSigned: connection.allowSelfSigned, timeout: .seconds(timeout))
        settings.alternateURLs = connection.alternateURLs
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = quiet ? .error : .warning
            return handler
        }
        let console = Console(
            quiet: quiet, showsProgress: !quiet && (progress || isatty(STDERR_FILENO) != 0),
            progressIsTerminal: isatty(STDERR_FILENO) != 0)
        console.notice(
            "corkboard-bot: \(settings.bots) bot\(settings.bots == 1 ? "" : "s") on board \(settings.board) at "
                + "\(settings.url) for \(duration) s at \(rate)/s each, seed \(settings.seed)")
        let fleet = BotFleet(settings: settings, console: console, logger: Logger(label: "corkboard-bot"))
        let summary = try await fleet.run()
        print(json ? summary.json() : summary.text(brief: quiet))
        if !summary.passed { throw ExitCode.failure }
    }
}
