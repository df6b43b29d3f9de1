import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Testing

/// The hub asks its join gate before every `hello` (issue 39): a refused one is answered
/// `rate-limited` and closed 1008 with the wait, reaches no room, and other boards still join.
@Suite struct JoinGateTests {
    /// Refuses every `hello` for one board.
    struct RefuseBoard: JoinGate {
        let board: String
        func refusal(for handle: ConnectionHandle, board: String) -> JoinRefusal? {
            board == self.board
                ? JoinRefusal(message: "too many failed joins to this board from your address", retryAfter: 42) : nil
        }
    }

    @Test func aRefusedHelloIsAnsweredAndClosedWithTheWaitAndAnotherBoardJoins() async throws {
        let h = try HubHarness()
        defer { h.shutdown() }
        try h.directory.create(id: "c", title: "Board c", template: .demo, keys: testKeys)
        let hub = BoardHub(
            directory: h.directory, sink: h.sink, configuration: RoomConfiguration(tickPacing: .off),
            joinGate: RefuseBoard(board: "b"), clock: h.clock, logger: quietLogger)
        let refused = ConnectionHandle(rawValue: 1)
        hub.connected(refused)
        hub.received(
            refused,
            bytes: Array(#"{"type":"hello","protocol":1,"board":"b","key":"edit-key","name":"A","ref":"h"}"#.utf8),
            isText: true)
        let error = try #require(await h.next(refused).first?.error)
        #expect(error.code == .rateLimited && error.ref == "h" && error.field == "board")
        #expect(
            error.message
                == "Refused for now: too many failed joins to this board from your address; try again in 42 s.")
        #expect(
            h.sink.closes(of: refused) == [
                RecordingSink.Close(
                    handle: refused, code: CloseCode.policyViolation,
                    reason: "too many failed joins to this board from your address; try again in 42 s")
            ])
        let other = ConnectionHandle(rawValue: 2)
        hub.connected(other)
        hub.received(
            other, bytes: Array(#"{"type":"hello","protocol":1,"board":"c","key":"edit-key","name":"B"}"#.utf8),
            isText: true)
        #expect(await h.next(other).first?.welcome != nil, "another board joins")
    }
}
