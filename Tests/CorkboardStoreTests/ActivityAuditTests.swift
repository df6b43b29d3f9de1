import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Testing

@testable import CorkboardStore

/// `corkboard check`'s reading of a board's stored activity feed (issue 43): a sound feed is
/// summarised, and each way a feed can be wrong is named with its seq.
@Suite("Activity audit")
struct ActivityAuditTests {
    static func record(_ seq: Int, says: Int? = nil) -> ActivityRecords.Record {
        let entry = ActivityEntry(
            seq: says ?? seq, at: 1_765_036_800_000, actor: "Ada", clientId: "c-1", color: "#d9480f", verb: .moved,
            text: "Ada moved “Old Mill Wheel” from To find to Found", items: ["demo-gc1"])
        return ActivityRecords.Record(seq: seq, json: ActivityCoding.record(entry))
    }

    @Test("a sound feed is summarised with its count and the seqs it spans")
    func soundFeed() {
        let audit = ActivityAudit([Self.record(3), Self.record(4), Self.record(9)], head: 9)
        #expect(audit.isSound)
        #expect(audit.summary == "3 activity entries (seqs 3–9)")
        #expect(ActivityAudit([Self.record(4)], head: 7).summary == "1 activity entry (seq 4)")
        #expect(ActivityAudit([], head: 7).summary == "no activity entries")
        #expect(ActivityAudit([], head: 0).isSound)
    }

    @Test("entries out of order, past the head, unreadable or stored under another seq are each named")
    func problemsNamed() {
        let unreadable = ActivityRecords.Record(seq: 5, json: Array(#"{"seq":5}"#.utf8))
        let audit = ActivityAudit(
            [Self.record(2), Self.record(2), unreadable, Self.record(6, says: 7), Self.record(12)], head: 10)
        #expect(
            audit.problems == [
                "the activity entry of seq 2 follows seq 2",
                "the activity entry at seq 5 is not readable JSON of an entry",
                "the activity entry stored at seq 6 says seq 7",
                "the activity entry of seq 12 is outside the log (seqs 1 to 10)",
            ])
        #expect(!audit.isSound)
    }

    @Test("a feed broken throughout is described by its first problems and a count of the rest")
    func problemsBounded() {
        let audit = ActivityAudit((1...9).map { Self.record($0) }, head: 0)
        #expect(audit.problems.count == ActivityAudit.problemLimit + 1)
        #expect(audit.problems.last == "and 4 more activity problems")
    }
}
