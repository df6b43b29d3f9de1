import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// How hovers reach peers while the server is not busy: at once, within the room's hover window,
/// each drag paced to the tick (`RoomState.sendHoversAtOnce`, `HoverPace`).
@Suite("Hovers to peers")
struct HoverDeliveryTests {
    @Test("a drag hovering faster than the tick reaches peers at the tick's pace: two at once, then the latest by tick")
    func hoverPacing() async throws {
        let (h, _, _) = try await DragDropTests().twoEditors()
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        _ = h.sink.take(conn(2))
        for index in 0..<4 {
            // 9 ms apart: past the room's 8 ms hover window each time, but faster than the tick.
            h.clock.advance(by: .milliseconds(9))
            let target = DragTarget(collection: h.found, section: h.foundSection, index: index)
            await h.send(conn(1), .dropUpdate(.init(session: "d1", target: target)))
            #expect(h.sink.take(conn(1)).compactMap(\.proposal).map(\.target) == [target], "the dragger: at once")
        }
        #expect(h.sink.take(conn(2)).compactMap(\.dragHover).map(\.target.index) == [0, 1], "the burst of two")
        await h.process(.tick)
        #expect(h.sink.take(conn(2)).compactMap(\.dragHover).map(\.target.index) == [3], "the latest, by tick")
        // A tick later the credit is back: the next hover goes at once again.
        h.clock.advance(by: .milliseconds(34))
        await h.send(
            conn(1),
            .dropUpdate(
                .init(session: "d1", target: DragTarget(collection: h.found, section: h.foundSection, index: 4))))
        #expect(h.sink.take(conn(2)).compactMap(\.dragHover).map(\.target.index) == [4])
    }

    @Test("hovers of two drags within the room's hover window share one send at the window's end")
    func hoverWindow() async throws {
        let (h, _, _) = try await DragDropTests().twoEditors()
        await h.join(conn(3), name: "Lin")
        await h.process(.tick)
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        await h.dragBegin(conn(2), "g1", [h.gc(2)])
        _ = h.sink.take(conn(3))
        func target(_ index: Int) -> DragTarget {
            DragTarget(collection: h.found, section: h.foundSection, index: index)
        }
        await h.send(conn(1), .dropUpdate(.init(session: "d1", target: target(0))))
        #expect(h.sink.take(conn(3)).compactMap(\.dragHover).map(\.session) == ["d1"], "the first goes at once")
        h.clock.advance(by: .milliseconds(2))
        await h.send(conn(2), .dropUpdate(.init(session: "g1", target: target(1))))
        h.clock.advance(by: .milliseconds(2))
        await h.send(conn(1), .dropUpdate(.init(session: "d1", target: target(2))))
        #expect(h.sink.take(conn(2)).compactMap(\.proposal).map(\.target) == [target(1)], "draggers: at once")
        #expect(h.sink.take(conn(3)).isEmpty, "within the window: they wait")
        // The window's alarm (8 ms after the first send) brings both, one message per drag.
        h.clock.advance(by: .milliseconds(4))
        let events = await h.firedEvents()
        #expect(events.contains { if case .hoverWindow = $0 { true } else { false } })
        #expect(h.sink.take(conn(3)).compactMap(\.dragHover).map(\.target.index) == [1, 2])
    }
}
