import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Foundation
import Testing

@testable import CorkboardServer

/// Messages between the nodes of a cluster, as JSON: the destination's answer to a move carries its
/// part's activity entries (issue 43) to the source, whose transaction stores them, byte for byte.
struct ClusterMessageTests {
    func prepared(_ activity: ActivityRecords) -> ClusterMessage {
        let committed = placeholderCommit(7, board: "d")
        return ClusterMessage(
            id: "m1", from: "node-a",
            body: .prepared(
                outcome: .committed(committed), epoch: 3, operations: [committed], activity: ActivityWire(activity)))
    }

    @Test("a prepared move's activity entries cross to the source node byte for byte, with the trim")
    func activityCrosses() throws {
        let records = ActivityRecords(
            added: [.init(seq: 7, json: Array(#"{"seq":7,"text":"moved “Mühle” to \"Found\""}"#.utf8))], keepFrom: 2)
        let bytes = try JSONEncoder().encode(prepared(records))
        let decoded = try JSONDecoder().decode(ClusterMessage.self, from: bytes)
        guard case .prepared(_, let epoch, let operations, let activity) = decoded.body else {
            Issue.record("decoded as \(decoded.body)")
            return
        }
        #expect(epoch == 3 && operations.map(\.seq) == [7])
        let stored = try #require(activity?.records)
        #expect(stored.added == records.added)
        #expect(stored.keepFrom == 2)
    }

    @Test("a part without entries sends none, and a node that sends none is understood")
    func noActivity() throws {
        #expect(ActivityWire(ActivityRecords()) == nil)
        let bytes = try JSONEncoder().encode(prepared(ActivityRecords()))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("activity"))
        let decoded = try JSONDecoder().decode(ClusterMessage.self, from: bytes)
        guard case .prepared(_, _, let operations, let activity) = decoded.body else {
            Issue.record("decoded as \(decoded.body)")
            return
        }
        #expect(operations.count == 1 && activity == nil)
    }
}
