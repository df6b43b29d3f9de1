import Foundation

/// The result of a run, printed as text or JSON, and the exit status.
public struct BotSummary: Codable, Sendable {
    /// The seed of the bots' choices.
    var seed: UInt64
    /// The server URL.
    var url: String
    /// The board id.
    var board: String
    /// Bots run.
    var bots: Int
    /// The duration asked for, in seconds.
    var durationSeconds: Double
    /// How long the bots acted, in seconds (until the last one finished its last action).
    var elapsedSeconds: Double
    /// The signal that stopped the run early, if one did.
    var interruptedBy: String?
    /// Everything the bots did, added up.
    var tally: BotTally
    /// `error` messages the bots received (bad input earns them; a clean run gets none).
    var errorsReceived: Int
    /// Messages the bots received.
    var messagesReceived: Int
    /// Times a bot resumed after a lost link (R10).
    var resumes: Int
    /// Bots whose connection closed for good, and why.
    var lostBots: [String]
    /// The replica check.
    var check: FleetCheck.Report
    /// Whether `--bad-input` was on.
    var badInputEnabled: Bool

    /// Actions per second, all bots.
    var actionsPerSecond: Double { elapsedSeconds > 0 ? Double(tally.actionCount) / elapsedSeconds : 0 }

    /// Committed operations per second, all bots.
    var committedPerSecond: Double { elapsedSeconds > 0 ? Double(tally.committed) / elapsedSeconds : 0 }

    /// Whether every replica matched the snapshot, invariants held, no bot was lost, every proposal
    /// answered what was asked, and (with `--bad-input`) every bad message got its error and changed
    /// nothing.
    public var passed: Bool {
        check.passed && lostBots.isEmpty && tally.proposalMismatches.isEmpty
            && (!badInputEnabled || tally.badInput.passed)
    }

    private enum CodingKeys: String, CodingKey {
        case seed, url, board, bots, durationSeconds, elapsedSeconds, interruptedBy, tally, errorsReceived
        case messagesReceived, resumes, lostBots, check, badInputEnabled
    }

    /// The JSON form: every field, plus `passed`, `actionsPerSecond`, `committedPerSecond` and the
    /// short names a script wants (`committed`, `rejected`, `errors`, `divergences`).
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(JSONForm(summary: self)) else { return #"{"passed":false}"# }
        return String(decoding: data, as: UTF8.self)
    }

    /// The JSON document: the summary with the derived numbers spelled out.
    private struct JSONForm: Encodable {
        var summary: BotSummary

        enum Keys: String, CodingKey {
            case passed, actionsPerSecond, committedPerSecond, committed, rejected, errors, divergences
            case invariantViolations, proposals, actions
        }

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(summary.passed, forKey: .passed)
            try container.encode(rounded(summary.actionsPerSecond), forKey: .actionsPerSecond)
            try container.encode(rounded(summary.committedPerSecond), forKey: .committedPerSecond)
            try container.encode(summary.tally.committed, forKey: .committed)
            try container.encode(summary.tally.rejectedCount, forKey: .rejected)
            try container.encode(summary.errorsReceived, forKey: .errors)
            try container.encode(summary.check.divergences.count, forKey: .divergences)
            try container.encode(summary.check.invariantViolations.count, forKey: .invariantViolations)
            try container.encode(summary.tally.proposals, forKey: .proposals)
            try container.encode(summary.tally.actionCount, forKey: .actions)
        }
    }

    /// The text form; `brief` gives the verdict line alone.
    public func text(brief: Bool) -> String {
        let verdict = verdictLine
        guard !brief else { return verdict }
        let t = tally
        var lines: [String] = []
        lines.append(
            "corkboard-bot: \(bots) bot\(bots == 1 ? "" : "s") on board \(board) at \(url), seed \(seed)"
                + (interruptedBy.map { ", interrupted by \($0)" } ?? ""))
        lines.append(row("actions", "\(t.actionCount) (\(counts(t.actions)))"))
        lines.append(
            row("outcomes", "\(t.committed) committed, \(t.rejectedCount) rejected (\(counts(t.rejected)))"))
        lines.append(
            row("drags", "lease refusals \(counts(t.leaseRefusals)); \(t.cancelledDrags) cancelled with dragEnd"))
        lines.append(
            row(
                "proposals",
                "\(t.proposals) received, \(t.proposalsPredicted) as the bot predicted (\(counts(t.proposalOperations)))"
                    + (t.proposalMismatches.isEmpty ? "" : ", \(t.proposalMismatches.count) answered something else")))
        lines.append(row("errors", "\(errorsReceived) received; failed actions: \(counts(t.failures))"))
        if badInputEnabled {
            let b = t.badInput
            lines.append(
                row(
                    "bad input",
                    "\(b.sent) sent, \(b.answered) answered with the expected error, \(b.wrongAnswers.count) otherwise, "
                        + "\(b.unanswered.count) unanswered, \(b.changes.count) changed something"))
        }
        lines.append(row("links", "\(resumes) resumes, \(messagesReceived) messages received"))
        lines.append(
            row(
                "rate",
                String(
                    format: "%.1f actions/s, %.1f committed ops/s over %.1f s (asked for %.1f s)", actionsPerSecond,
                    committedPerSecond, elapsedSeconds, durationSeconds)))
        lines.append(
            row(
                "check",
                check.seq.map { seq in
                    "\(check.compared) replica\(check.compared == 1 ? "" : "s") compared with a fresh snapshot at seq "
                        + "\(seq): \(check.divergences.count) divergences, \(check.invariantViolations.count) invariant "
                        + "violations"
                } ?? "not completed"))
        var problems = lostBots + check.failures + check.divergences + check.invariantViolations
        problems += t.proposalMismatches.map { "proposal: \($0)" }
        if badInputEnabled {
            problems += t.badInput.wrongAnswers.map { "bad input answered otherwise: \($0)" }
            problems += t.badInput.unanswered.map { "bad input unanswered: \($0)" }
            problems += t.badInput.changes.map { "bad input changed something: \($0)" }
        }
        for problem in problems.prefix(40) { lines.append("  problem: \(problem)") }
        lines.append(verdict)
        return lines.joined(separator: "\n")
    }

    private var verdictLine: String {
        passed
            ? "PASS: every replica matched the server's snapshot and every check held."
            : "FAIL: \(failureReasons.joined(separator: "; "))."
    }

    private var failureReasons: [String] {
        var reasons: [String] = []
        if !check.divergences.isEmpty { reasons.append("\(check.divergences.count) divergence(s)") }
        if !check.invariantViolations.isEmpty {
            reasons.append("\(check.invariantViolations.count) invariant violation(s)")
        }
        if !check.failures.isEmpty || check.seq == nil { reasons.append("the replica check could not complete") }
        if !lostBots.isEmpty { reasons.append("\(lostBots.count) bot(s) lost their connection") }
        if !tally.proposalMismatches.isEmpty { reasons.append("proposals that answered something else") }
        if badInputEnabled && !tally.badInput.passed { reasons.append("bad input not refused as documented") }
        return reasons
    }

    private func row(_ label: String, _ text: String) -> String {
        label.padding(toLength: 10, withPad: " ", startingAt: 0) + " " + text
    }

    private func counts(_ values: [String: Int]) -> String {
        values.isEmpty
            ? "none" : values.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

private func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
