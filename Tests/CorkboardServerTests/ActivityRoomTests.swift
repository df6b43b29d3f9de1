import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// Issue 43 at the room: each committed operation becomes an activity entry named as people see
/// the board, pages of the feed newest first, new entries only to the members listening, bounded
/// by count and bytes (R18), and kept by the store with the operation across a restart.
@Suite("Activity feed in the room")
struct ActivityRoomTests {
    /// Sends `activity` and returns the page the connection got (recording an issue without one).
    func page(
        _ h: RoomHarness, _ handle: ConnectionHandle, before: Int? = nil, item: ItemID? = nil, limit: Int? = nil,
        live: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> ServerMessage.ActivityPage? {
        await h.send(
            handle, .activity(.init(ref: "a", before: before, item: item, limit: limit, live: live)))
        let pages = h.sink.take(handle).compactMap { if case .activityPage(let p) = $0 { p } else { nil } }
        if pages.isEmpty { Issue.record("no activityPage", sourceLocation: sourceLocation) }
        return pages.last
    }

    func moveToFound(_ h: RoomHarness, _ handle: ConnectionHandle, _ card: Int, opId: String) async {
        let ack = await h.submit(
            handle, .move(.init(items: [h.gc(card)], destination: h.at(h.found, h.foundSection, 0))), opId: opId)
        #expect(ack?.outcome.committed != nil)
    }

    @Test("a move shows with the actor's name and the places' titles; pages go back by seq")
    func namesAndPages() async throws {
        let h = RoomHarness()
        await h.join(conn(1), name: "Ada")
        await h.join(conn(2), name: "Bo")
        for n in 1...5 { await moveToFound(h, conn(2), n, opId: "m\(n)") }
        let first = try #require(await page(h, conn(1), limit: 2))
        #expect(first.ref == "a")
        #expect(first.entries.map(\.seq) == [5, 4])
        #expect(first.more)
        let newest = try #require(first.entries.first)
        #expect(newest.actor == "Bo" && newest.clientId == "client-2" && newest.verb == .moved)
        #expect(newest.text.hasPrefix("moved “") && newest.text.hasSuffix("” from To find to Found"))
        #expect(!newest.text.contains(h.board + "-"), "no ids in \(newest.text)")
        let second = try #require(await page(h, conn(1), before: 4, limit: 2))
        #expect(second.entries.map(\.seq) == [3, 2] && second.more)
        let last = try #require(await page(h, conn(1), before: 2, limit: 2))
        #expect(last.entries.map(\.seq) == [1] && !last.more)
        let card = try #require(await page(h, conn(1), item: h.gc(3)))
        #expect(card.entries.map(\.seq) == [3] && !card.more)
    }

    @Test("new entries go once to the members listening, and to nobody else")
    func liveOnlyToListeners() async throws {
        let h = RoomHarness()
        await h.join(conn(1), name: "Ada")
        await h.join(conn(2), name: "Bo")
        await h.join(conn(3), name: "Cy")
        _ = await page(h, conn(1), limit: 1, live: true)
        await moveToFound(h, conn(2), 1, opId: "m1")
        let heard = h.sink.take(conn(1)).compactMap { if case .activity(let a) = $0 { a.entry } else { nil } }
        #expect(heard.map(\.seq) == [1])
        #expect(heard.first?.actor == "Bo")
        for quiet in [conn(2), conn(3)] {
            #expect(!h.sink.take(quiet).contains { if case .activity = $0 { true } else { false } })
        }
        _ = await page(h, conn(1), limit: 1, live: false)
        await moveToFound(h, conn(2), 2, opId: "m2")
        #expect(!h.sink.take(conn(1)).contains { if case .activity = $0 { true } else { false } })
    }

    @Test("bad requests get a clear error and change nothing")
    func badInput() async throws {
        let h = RoomHarness()
        await h.join(conn(1), name: "Ada")
        await h.send(conn(1), .activity(.init(ref: "x", item: ItemID("no-such-card"))))
        let error = try #require(h.sink.take(conn(1)).compactMap(\.error).first)
        #expect(error.code == .invalidField && error.field == "item" && error.ref == "x")
        for json in [
            #"{"type":"activity","limit":0}"#, #"{"type":"activity","limit":101}"#, #"{"type":"activity","before":0}"#,
            #"{"type":"activity","limit":"ten"}"#, #"{"type":"activity","live":"yes"}"#,
        ] {
            #expect(throws: ProtocolError.self, "\(json)") { _ = try WireCodec.decodeClientMessage(Array(json.utf8)) }
        }
    }

    @Test("R18: the feed keeps at most its entries and bytes, oldest dropped first, and the store with it")
    func bounded() async throws {
        var configuration = RoomConfiguration()
        configuration.activityLimits = ActivityFeedLimits(entries: 3, bytes: 1 << 20)
        let store = ManualStore()
        let h = RoomHarness(configuration: configuration, store: store)
        await h.join(conn(1), name: "Ada")
        for n in 1...5 {
            await h.send(
                conn(1),
                .submit(
                    .init(
                        ref: "m\(n)", opId: "m\(n)", base: await h.room.head,
                        op: .move(.init(items: [h.gc(n)], destination: h.at(h.found, h.foundSection, 0))))))
            store.completePending()
            _ = await h.processQueuedEvents()
        }
        let all = try #require(await page(h, conn(1), limit: 100))
        #expect(all.entries.map(\.seq) == [5, 4, 3] && !all.more)
        #expect(store.activityRecords(board: h.board).map(\.seq) == [3, 4, 5])

        var small = RoomConfiguration()
        let oneEntry = ActivityCoding.record(try #require(all.entries.first)).count
        small.activityLimits = ActivityFeedLimits(entries: 100, bytes: oneEntry * 2 + oneEntry / 2)
        let restarted = try h.restarted(configuration: small, store: store)
        await restarted.join(conn(5), name: "Ada")
        let kept = try #require(await page(restarted, conn(5)))
        #expect(kept.entries.map(\.seq) == [5, 4], "two entries fit in the bytes")
    }

    @Test("entries are stored with their operations and survive a restart; a failed write drops them")
    func durable() async throws {
        let store = ManualStore()
        let h = RoomHarness(store: store)
        await h.join(conn(1), name: "Ada")
        await h.send(
            conn(1),
            .submit(
                .init(
                    ref: "m1", opId: "m1", base: 0,
                    op: .move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0))))))
        store.completePending()
        _ = await h.processQueuedEvents()
        await h.send(
            conn(1),
            .submit(
                .init(
                    ref: "m2", opId: "m2", base: 1,
                    op: .move(.init(items: [h.gc(2)], destination: h.at(h.found, h.foundSection, 0))))))
        store.completePending(error: StoreError(.io, "test: disk full"))
        _ = await h.processQueuedEvents()
        let before = try #require(await page(h, conn(1)))
        #expect(before.entries.map(\.seq) == [1], "the failed operation's entry is gone with it")
        let restarted = try h.restarted(configuration: RoomConfiguration(), store: store)
        await restarted.join(conn(7), name: "Cy")
        let after = try #require(await page(restarted, conn(7)))
        #expect(after.entries.map(\.seq) == [1])
        #expect(after.entries.first?.actor == "Ada")
        #expect(after.entries.first?.text.hasSuffix("from To find to Found") == true)
    }
}
