import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

@testable import CorkboardServer

@Suite("R11 slow clients")
struct SlowClientTests {
    let configuration = RoomConfiguration(slowClientBytes: 1000, slowClientCloseBytes: 100_000)

    @Test("R11: a slow member loses ephemeral messages but gets every op; once drained it gets the latest drag state")
    func slowMemberCatchesUp() async throws {
        let h = RoomHarness(configuration: configuration)
        let ada = try #require(await h.join(conn(1))).member
        await h.join(conn(2))
        await h.join(conn(3))
        await h.dragBegin(conn(1), "before", [h.gc(8)])
        await h.process(.tick)  // announces the joins and the hover-less drag
        _ = h.sink.take(conn(2))
        _ = h.sink.take(conn(3))

        let seen = h.sink.deliveries(to: conn(2)).count
        h.sink.setPendingBytes(1001, of: conn(2))
        await h.process(.tick)
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        let target = DragTarget(collection: h.found, section: h.foundSection, index: 1)
        await h.send(conn(1), .dropUpdate(.init(session: "d1", target: target)))
        await h.send(conn(1), .dropUpdate(.init(session: "before", target: target)))
        await h.send(conn(1), .cursor(.init(x: 10, y: 20)))
        await h.process(.tick)
        let move = BoardOperation.move(.init(items: [h.gc(5)], destination: h.at(h.found, h.foundSection, 0)))
        let ack = try #require(await h.submit(conn(1), move, opId: "o1"))
        await h.dragBegin(conn(1), "d2", [h.gc(2)])
        await h.send(conn(1), .dragEnd(.init(session: "d2")))
        await h.process(.tick)

        let slow = h.sink.deliveries(to: conn(2)).dropFirst(seen)
        #expect(
            slow.map(\.message) == [.op(try #require(ack.outcome.committed))], "only the op reaches the slow member")
        #expect(slow.allSatisfy { !$0.isEphemeral })
        let fast = h.sink.take(conn(3)).map(\.type)
        #expect(fast.filter { $0 == "dragHover" }.count == 2)
        #expect(
            fast.contains("dragStarted") && fast.contains("dragEnded") && fast.contains("cursor") && fast.contains("op")
        )
        _ = h.sink.take(conn(2))

        h.sink.setPendingBytes(0, of: conn(2))
        await h.process(.tick)
        let caughtUp = h.sink.take(conn(2))
        let started = caughtUp.compactMap(\.dragStarted)
        let d1 = DragState(
            session: "d1", member: ada.id, items: [h.gc(1)], target: target,
            proposal: Proposal(operation: .move, intent: .insertAtDestinationIndexPath))
        #expect(started.first { $0.session == "d1" } == d1)
        #expect(started.first { $0.session == "before" }?.target == target)
        #expect(caughtUp.compactMap(\.dragEnded) == [.init(session: "d2", member: ada.id, reason: .cancelled)])
        #expect(caughtUp.compactMap(\.cursor) == [.init(member: ada.id, x: 10, y: 20)])
        #expect(caughtUp.count == 4)

        // Member list changes are durable: a slow member gets them at once.
        h.sink.setPendingBytes(5000, of: conn(2))
        await h.process(.tick)
        let newcomer = try #require(await h.join(conn(4))).member
        await h.process(.tick)
        await h.process(.leave(conn(4)))
        await h.process(.tick)
        let membership = h.sink.deliveries(to: conn(2)).suffix(2)
        #expect(
            membership.map(\.message) == [
                .membersChanged(.init(count: 4, joined: [newcomer], left: [])),
                .membersChanged(.init(count: 3, joined: [], left: [newcomer.id])),
            ])
        #expect(membership.allSatisfy { !$0.isEphemeral })
        h.sink.setPendingBytes(0, of: conn(2))
        await h.process(.tick)
        _ = h.sink.take(conn(2))

        // Drained: live updates flow again.
        await h.send(
            conn(1),
            .dropUpdate(
                .init(session: "d1", target: DragTarget(collection: h.found, section: h.foundSection, index: 0))))
        await h.process(.tick)
        #expect(h.sink.take(conn(2)).compactMap(\.dragHover).count == 1)
        #expect(h.sink.closes.isEmpty)
    }

    @Test("R11: a member far past the bound is closed 1008 so it can resume")
    func closedWhenFarBehind() async throws {
        let h = RoomHarness(configuration: configuration)
        await h.join(conn(1))
        await h.join(conn(2))
        h.sink.setPendingBytes(100_000, of: conn(2))
        await h.process(.sweep)
        #expect(h.sink.closes.isEmpty, "at the bound: not closed")
        h.sink.setPendingBytes(100_001, of: conn(2))
        await h.process(.tick)
        let close = try #require(h.sink.closes(of: conn(2)).first)
        #expect(close.code == CloseCode.policyViolation)
        #expect(close.reason.contains("slow"))
        #expect(close.discardingPending, "a slow client's backlog would never be read")
        #expect(h.sink.closes(of: conn(1)).isEmpty)
    }
}
