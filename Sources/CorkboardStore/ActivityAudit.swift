import CorkboardModel
import CorkboardProtocol
public import CorkboardStorage

/// What `corkboard check` finds in a board's stored activity feed (issue 43): how many entries it
/// holds, the seqs they span, and what is wrong with them. Pure: it reads the records it is given.
///
/// Sound records each decode to an entry of their own seq, in strictly increasing seq order, none
/// past the board's head (an entry is written in the same transaction as its operation).
public struct ActivityAudit: Sendable, Equatable {
    /// How many entries the feed holds.
    public var count: Int
    /// The first and last seq of the entries, when there are any.
    public var span: ClosedRange<Int>?
    /// What is wrong, one sentence each, in seq order (at most `problemLimit`).
    public var problems: [String]

    /// Most problems listed; a broken table is described by its first ones.
    public static let problemLimit = 5

    /// Audits `records` (oldest first, as the store loads them) of a board at seq `head`.
    public init(_ records: [ActivityRecords.Record], head: Int) {
        count = records.count
        span = records.first.map { first in first.seq...max(first.seq, records.last?.seq ?? first.seq) }
        var problems: [String] = []
        var previous: Int?
        for record in records {
            if let previous, record.seq <= previous {
                problems.append("the activity entry of seq \(record.seq) follows seq \(previous)")
            }
            if record.seq < 1 || record.seq > head {
                problems.append("the activity entry of seq \(record.seq) is outside the log (seqs 1 to \(head))")
            }
            if let entry = ActivityCoding.entry(record.json) {
                if entry.seq != record.seq {
                    problems.append("the activity entry stored at seq \(record.seq) says seq \(entry.seq)")
                }
            } else {
                problems.append("the activity entry at seq \(record.seq) is not readable JSON of an entry")
            }
            previous = record.seq
        }
        self.problems = Array(problems.prefix(Self.problemLimit))
        if problems.count > Self.problemLimit {
            self.problems.append("and \(problems.count - Self.problemLimit) more activity problems")
        }
    }

    /// Whether nothing is wrong.
    public var isSound: Bool { problems.isEmpty }

    /// "7 activity entries (seqs 3–12)", "1 activity entry (seq 4)" or "no activity entries".
    public var summary: String {
        guard let span else { return "no activity entries" }
        let entries = count == 1 ? "1 activity entry" : "\(count) activity entries"
        return span.lowerBound == span.upperBound
            ? "\(entries) (seq \(span.lowerBound))" : "\(entries) (seqs \(span.lowerBound)–\(span.upperBound))"
    }
}
