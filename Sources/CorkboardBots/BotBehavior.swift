import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import Logging

/// One bot: a user that acts on the board at a steady rate, choosing each action from what its
/// replica shows.
///
/// A bot performs one action at a time, so its live drag and its open placeholder are always known;
/// when an action fails (a timeout, a lost link) the drag is cancelled and the placeholder deleted
/// before the next one. The actions themselves are in `BotActions.swift`.
struct BotBehavior {
    /// How a bot's run ended.
    enum Ending: Sendable {
        /// It ran until the deadline or the stop signal.
        case finished
        /// Its connection closed for good (the reason); its replica cannot be checked.
        case lost(String)
    }

    /// The bot's number, from 0.
    let index: Int
    /// Its connection.
    let connection: BoardConnection
    /// The run's settings.
    let settings: BotSettings
    /// What it did so far, shared with the progress line.
    let tally: LiveTally
    let logger: Logger
    var random: SplitMix64
    /// Above this many items, copies give way to tidying, so a long run's board stays small:
    /// 60, or a quarter more than the board held when the bot joined.
    let itemLimit: Int
    /// A drag in progress: its session and the link it lives on (the count of links lost before it).
    struct LiveDrag {
        var session: String
        var link: Int
    }

    /// The drag in progress, cancelled if an action fails half-way.
    var liveSession: LiveDrag?
    /// A placeholder inserted and not yet committed or deleted.
    var openPlaceholder: ItemID?
    /// Bad messages sent so far; the next case is `(index + badInputCount) % catalog.count`.
    var badInputCount = 0
    var lastBadInput: ContinuousClock.Instant?
    /// The refs of the bad messages sent, for the check that nothing but an error answered them.
    var badRefs: [String] = []

    init(
        index: Int, connection: BoardConnection, settings: BotSettings, tally: LiveTally, logger: Logger
    ) {
        self.index = index
        self.connection = connection
        self.settings = settings
        self.tally = tally
        var logger = logger
        logger[metadataKey: "bot"] = "\(index + 1)"
        self.logger = logger
        random = SplitMix64.stream(index, seed: settings.seed)
        let count = connection.replica.view.itemCount
        itemLimit = max(60, count + count / 4)
    }

    /// What the bot sees now.
    var choices: BoardChoices { BoardChoices(board: connection.replica.view) }

    // MARK: Running

    /// Acts at `settings.rate` until `deadline` or until `stop` is set, then finishes the action
    /// in hand.
    mutating func run(until deadline: ContinuousClock.Instant, stop: StopFlag) async -> Ending {
        let clock = ContinuousClock()
        let interval = Duration.seconds(1 / settings.rate)
        var next = clock.now
        // Bounded by the deadline; the count is a second bound should the clock misbehave.
        let limit = Int((settings.duration / interval).rounded(.up)) + 2
        for _ in 0..<limit {
            guard !stop.isSet, clock.now < deadline else { break }
            let kind = chooseAction(now: clock.now)
            tally.update { $0.start(kind) }
            if let ending = await attempt(kind, stop: stop) { return ending }
            next += interval
            // A bot that fell behind (a slow answer) does not burst to catch up.
            if next < clock.now - .seconds(1) { next = clock.now }
            await stop.sleep(until: min(next, deadline))
        }
        return .finished
    }

    /// Picks the next action.
    mutating func chooseAction(now: ContinuousClock.Instant) -> ActionKind {
        if settings.badInput, lastBadInput.map({ now - $0 >= BadInput.minimumInterval }) ?? true,
            random.chance(0.3)
        {
            return .badInput
        }
        if random.chance(settings.conflictProbability) { return .conflict }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<25: return .reorder
        case 25..<50: return .move
        case 50..<72: return .multiDrag
        case 72..<85: return connection.replica.view.itemCount < itemLimit ? .copy : .tidy
        case 85..<93: return .placeholder
        default: return .details
        }
    }

    /// Performs one action; returns an ending when the bot cannot go on.
    mutating func attempt(_ kind: ActionKind, stop: StopFlag) async -> Ending? {
        do {
            switch kind {
            case .reorder: try await reorder(stop: stop)
            case .move: try await moveBetweenCollections(stop: stop)
            case .multiDrag: try await multiDrag(stop: stop)
            case .copy: try await copy(stop: stop)
            case .placeholder: try await placeholder(stop: stop)
            case .conflict: try await conflict(stop: stop)
            case .badInput: try await sendBadInput()
            case .tidy: try await tidy()
            case .details: try await changeDetails()
            }
            return nil
        } catch {
            return await recover(from: error, during: kind)
        }
    }

    /// After a failed action: cancels the drag, deletes the placeholder, waits for the link to come
    /// back if it went down.
    mutating func recover(from error: BoardClientError, during kind: ActionKind) async -> Ending? {
        tally.update { $0.count(failure: error) }
        logger.notice("action failed", metadata: ["action": "\(kind.rawValue)", "error": "\(error)"])
        endLiveDrag()
        if connection.state.isClosed {
            return .lost("bot \(index + 1)'s connection closed for good: \(error.message)")
        }
        if !connection.state.isJoined, let failure = await resume() {
            return .lost("bot \(index + 1) could not resume after a lost link: \(failure.message)")
        }
        if let placeholder = openPlaceholder {
            openPlaceholder = nil
            _ = try? connection.submit(.deletePlaceholder(BoardOperation.DeletePlaceholder(item: placeholder)))
        }
        return nil
    }

    /// Resumes after a lost link (R10): `hello` with the replica's client id and last seq, then the
    /// pending operations are resent. Tries again 0.25, 0.5, then every 1 s (on the next entry URL
    /// after a link could not be made, so a cluster's other nodes take over when one dies) for up
    /// to twice the answer timeout; returns the last error when every attempt failed.
    mutating func resume() async -> BoardClientError? {
        var failure: BoardClientError?
        let deadline = ContinuousClock.now + settings.timeout * 2
        for attempt in 0..<1000 {
            if attempt > 0 {
                guard ContinuousClock.now < deadline else { break }
                try? await Task.sleep(for: .milliseconds(min(1000, 250 << min(attempt - 1, 2))))
            }
            do {
                try await connection.resume(timeout: settings.timeout)
                return nil
            } catch {
                failure = error
                if connection.state.isClosed { break }
            }
        }
        return failure
    }

    /// Leaves nothing half done at the end: no live drag, no open placeholder.
    mutating func finish() {
        endLiveDrag()
        if let placeholder = openPlaceholder {
            _ = try? connection.submit(.deletePlaceholder(BoardOperation.DeletePlaceholder(item: placeholder)))
        }
        openPlaceholder = nil
    }
}
