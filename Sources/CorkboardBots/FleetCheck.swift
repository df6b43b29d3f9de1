import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import Logging

/// The end of a run: every bot settles, a fresh connection takes the board's snapshot, and every
/// replica is compared with it at the same seq (``ReplicaCheck``).
enum FleetCheck {
    /// What the check found.
    struct Report: Codable, Sendable {
        /// The seq of the snapshot the replicas were compared with.
        var seq: Int?
        /// Replicas compared.
        var compared = 0
        /// Replicas that differed from the snapshot, and how (capped at 20 entries).
        var divergences: [String] = []
        /// Broken board invariants, the snapshot's and the replicas' (capped at 20 entries).
        var invariantViolations: [String] = []
        /// Why the check could not be completed (a bot that did not settle, no snapshot).
        var failures: [String] = []
        /// Snapshots taken (more than one when the board moved under the check).
        var attempts = 0

        /// Whether every replica was compared and matched, and every invariant held.
        var passed: Bool { divergences.isEmpty && invariantViolations.isEmpty && failures.isEmpty && seq != nil }
    }

    /// Snapshots taken before giving up on a board that keeps changing (another client is active).
    static let maxAttempts = 5

    /// Settles the bots, takes a fresh snapshot and compares every replica with it.
    ///
    /// If a bot ends up past the snapshot's seq, someone else changed the board in between: the
    /// bots settle again and a new snapshot is taken, at most ``maxAttempts`` times.
    /// - Parameters:
    ///   - bots: The connections of the bots whose replicas can be checked, with their names.
    ///   - client: The client to open the fresh connection with.
    static func run(
        bots: [(name: String, connection: BoardConnection)], client: BoardClient, settings: BotSettings
    ) async -> Report {
        var report = Report()
        for attempt in 1...maxAttempts {
            report.attempts = attempt
            for bot in bots {
                do {
                    try await bot.connection.settle(timeout: settings.timeout)
                } catch {
                    report.failures.append("\(bot.name) did not settle: \(error.message)")
                }
            }
            guard report.failures.isEmpty else { return report }
            let snapshot: Snapshot
            do {
                snapshot = try await freshSnapshot(client: client, settings: settings)
            } catch {
                report.failures.append("No fresh snapshot of board \(settings.board): \(error.message)")
                return report
            }
            var states: [(name: String, state: BoardState)] = []
            for bot in bots {
                do {
                    let state = try await bot.connection.wait(
                        "\(bot.name) to reach the snapshot's seq \(snapshot.seq)", timeout: settings.timeout
                    ) { $0.replica.confirmedSeq >= snapshot.seq && $0.replica.pending.isEmpty }
                    states.append((bot.name, state))
                } catch {
                    report.failures.append("\(bot.name) did not reach seq \(snapshot.seq): \(error.message)")
                }
            }
            guard report.failures.isEmpty else { return report }
            guard states.allSatisfy({ $0.state.replica.confirmedSeq == snapshot.seq }) else { continue }
            report.seq = snapshot.seq
            report.compared = states.count
            report.invariantViolations += snapshot.board.checkInvariants().map { "server snapshot: \($0)" }
            for (name, state) in states {
                let verdict = ReplicaCheck.compare(
                    name, replica: state.replica, streamProblems: state.streamProblems, with: snapshot)
                report.divergences += verdict.divergences
                report.invariantViolations += verdict.invariantViolations
            }
            report.divergences = Array(report.divergences.prefix(20))
            report.invariantViolations = Array(report.invariantViolations.prefix(20))
            return report
        }
        report.failures.append(
            "The board kept changing while the replicas were checked (is another client active?); no snapshot "
                + "matched every replica's seq in \(maxAttempts) attempts.")
        return report
    }

    /// Joins the board on a new connection, without a `lastSeq`, and returns the board at the
    /// welcome's head: the snapshot it carries (inline, or assembled from its parts) with the
    /// operations the room sent right behind it applied. A board in parts may be an encoding the
    /// room made at an earlier seq (R14), so the welcome's snapshot alone can be behind the head.
    static func freshSnapshot(client: BoardClient, settings: BotSettings) async throws(BoardClientError) -> Snapshot {
        let options = BoardConnection.Options(
            url: settings.url, board: settings.board, key: settings.key, name: "\(settings.name) check",
            allowSelfSigned: settings.allowSelfSigned, timeout: settings.timeout, alternateURLs: settings.alternateURLs)
        let checker = try await client.connect(options)
        defer { checker.close() }
        guard case .snapshot = checker.state.joinedWith else {
            throw BoardClientError(.refused, "The welcome to a fresh connection carried no snapshot.")
        }
        let state = try await checker.wait(
            "the fresh connection's board at its welcome's head", timeout: settings.timeout
        ) {
            guard let head = $0.welcome?.head else { return false }
            return $0.replica.confirmedSeq >= head
        }
        return Snapshot(seq: state.replica.confirmedSeq, board: state.replica.confirmed)
    }
}
