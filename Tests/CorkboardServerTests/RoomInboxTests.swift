import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Synchronization
import Testing

@testable import CorkboardServer

/// A `dropUpdate` without `ref` from `handle` for drag `session`, at `index`.
private func hover(_ handle: ConnectionHandle, _ session: String, _ index: Int) -> RoomEvent {
    .message(
        handle,
        .dropUpdate(
            ClientMessage.DropUpdate(
                session: session, target: DragTarget(collection: "c", section: "s", index: index))))
}

/// What a batch holds, in order: `tick`, `drop`, or `session@index` for a hover.
private func names(_ events: [RoomEvent]) -> [String] {
    events.map { event in
        switch event {
        case .tick: "tick"
        case .message(_, .dropUpdate(let update)): "\(update.session)@\(update.target.index)"
        case .message(_, .drop): "drop"
        default: "other"
        }
    }
}

/// The batch a waiting `next()` returned, once it returned.
private final class Batch: Sendable {
    let events = Mutex<[RoomEvent]?>(nil)
    var taken: [RoomEvent]? { events.withLock { $0 } }
}

/// Starts `next()` in a task; the batch it returns lands in `Batch`.
private func waitForBatch(_ inbox: RoomInbox) -> (Task<Void, Never>, Batch) {
    let batch = Batch()
    let task = Task {
        let events = await inbox.next()
        batch.events.withLock { $0 = events }
    }
    return (task, batch)
}

@Suite("Room inbox: a busy room's hovers wait for its tick, the latest per drag")
struct RoomInboxTests {
    @Test("While a tick is armed, hovers do not wake the room and a later hover of a drag replaces the earlier")
    func hoversWaitForTheArmedTick() async throws {
        let inbox = RoomInbox()
        inbox.armTick()
        let (task, batch) = waitForBatch(inbox)
        for index in 0..<5 {
            inbox.post(hover(conn(1), "d1", index), waitingFor: .init(handle: conn(1), session: "d1"))
        }
        inbox.post(hover(conn(2), "d1", 9), waitingFor: .init(handle: conn(2), session: "d1"))
        inbox.post(hover(conn(1), "d2", 7), waitingFor: .init(handle: conn(1), session: "d2"))
        try await Task.sleep(for: .milliseconds(100))
        #expect(batch.taken == nil, "no hover woke the room")
        #expect(inbox.supersededHovers == 4)

        inbox.post(.tick)
        await task.value
        // The latest hover of each drag, in the order the drags first waited, then the tick.
        #expect(names(try #require(batch.taken)) == ["d1@4", "d1@9", "d2@7", "tick"])
    }

    @Test("An event that may not wait wakes the room after the waiting hovers, in the order they came")
    func otherEventsGoAfterTheWaitingHovers() async throws {
        let inbox = RoomInbox()
        inbox.armTick()
        inbox.post(hover(conn(1), "d1", 1), waitingFor: .init(handle: conn(1), session: "d1"))
        inbox.post(
            .message(
                conn(1),
                .drop(
                    ClientMessage.Drop(
                        session: "d1", opId: "o1", base: 0,
                        destination: Destination(collection: "c", section: "s", index: 1)))))
        inbox.post(hover(conn(1), "d1", 2), waitingFor: .init(handle: conn(1), session: "d1"))
        // Queued before anyone waited: taken at once, the hover after the drop kept after it.
        #expect(names(await inbox.next()) == ["d1@1", "drop", "d1@2"])
        #expect(inbox.supersededHovers == 0, "a hover is never replaced across an event of its connection")
    }

    @Test("Without an armed tick a hover wakes the room; the tick's post disarms it")
    func hoversWakeTheRoomWithoutATick() async throws {
        let inbox = RoomInbox()
        let (first, firstBatch) = waitForBatch(inbox)
        try await Task.sleep(for: .milliseconds(20))
        inbox.post(hover(conn(1), "d1", 1), waitingFor: .init(handle: conn(1), session: "d1"))
        await first.value
        #expect(names(try #require(firstBatch.taken)) == ["d1@1"])

        inbox.armTick()
        inbox.post(.tick)
        inbox.post(hover(conn(1), "d1", 2), waitingFor: .init(handle: conn(1), session: "d1"))
        #expect(names(await inbox.next()) == ["tick", "d1@2"], "after the tick's post, hovers wake the room again")
    }

    @Test("Closing ends a wait that only waiting hovers were queued for")
    func closeEndsTheWait() async {
        let inbox = RoomInbox()
        inbox.armTick()
        let (task, batch) = waitForBatch(inbox)
        inbox.post(hover(conn(1), "d1", 1), waitingFor: .init(handle: conn(1), session: "d1"))
        inbox.close()
        await task.value
        #expect(batch.taken != nil)
        #expect(!inbox.post(.tick), "a closed inbox takes nothing")
    }
}
