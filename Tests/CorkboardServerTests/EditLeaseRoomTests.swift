import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// R12 at the room: edit leases granted and refused, seen by everyone, ended by save, cancel,
/// disconnect, the card leaving and the quiet period; updates made on an old version refused.
@Suite("R12 edit leases in the room")
struct EditLeaseRoomTests {
    /// Ada (conn 1) and Bob (conn 2) on the demo board, their welcomes taken.
    func joined(_ configuration: RoomConfiguration = RoomConfiguration()) async throws -> RoomHarness {
        let h = RoomHarness(configuration: configuration)
        try #require(await h.join(conn(1), name: "Ada") != nil)
        try #require(await h.join(conn(2), name: "Bob") != nil)
        _ = h.sink.take(conn(1))
        return h
    }

    func update(_ h: RoomHarness, _ item: ItemID, _ title: String, version: Int?) -> BoardOperation {
        .updateItem(.init(item: item, representations: cardNamed(title), version: version))
    }

    @Test("R12: the editor gets the lease, everyone else sees who edits, and is refused while it lasts")
    func grantAndRefuse() async throws {
        let h = try await joined()
        let granted = try #require(await h.editBegin(conn(1), h.gc(3)).compactMap(\.editGranted).first)
        #expect(granted == ServerMessage.EditGranted(ref: "edit-b-gc3", item: h.gc(3), version: 0))
        let started = try #require(h.sink.take(conn(2)).compactMap(\.editStarted).first)
        #expect(started == ServerMessage.EditState(item: h.gc(3), member: "m1"))
        // A newcomer learns it from its welcome.
        let welcome = try #require(await h.join(conn(3), name: "Cy"))
        #expect(welcome.edits == [ServerMessage.EditState(item: h.gc(3), member: "m1")])
        // Bob cannot take it, change it or delete it.
        let refused = try #require(await h.editBegin(conn(2), h.gc(3)).compactMap(\.editRefused).first)
        #expect(refused.code == .locked && refused.member == "m1")
        #expect(refused.message == "Ada is editing “Granite Owl”; wait until they save, then try again.")
        let ack = try #require(await h.submit(conn(2), update(h, h.gc(3), "Bob's", version: 0), opId: "b1"))
        #expect(ack.outcome.rejection?.code == .locked)
        #expect(ack.outcome.rejection?.message == "Ada is editing “Granite Owl”; wait until they save, then try again.")
        #expect(await h.submit(conn(2), .delete(.init(items: [h.gc(3)])), opId: "b2")?.outcome.rejectCode == .locked)
        // Moving it is fine: the editor follows the card.
        let moved = await h.submit(
            conn(2), .move(.init(items: [h.gc(3)], destination: h.at(h.found, h.foundSection, 0))), opId: "b3")
        #expect(moved?.outcome.committed != nil)
    }

    @Test("R12: the editor's save ends the lease for everyone; its version must be the card's")
    func saveEndsTheLease() async throws {
        let h = try await joined()
        _ = await h.editBegin(conn(1), h.gc(3))
        _ = h.sink.take(conn(2))
        let saved = try #require(await h.submit(conn(1), update(h, h.gc(3), "Owl", version: 0), opId: "a1"))
        #expect(saved.outcome.committed != nil)
        let bobs = h.sink.take(conn(2))
        #expect(bobs.compactMap(\.editEnded) == [.init(item: h.gc(3), member: "m1", reason: .saved)])
        #expect(bobs.compactMap(\.op).count == 1)
        // Now Bob may edit; an update on the version he saw before Ada's save is refused.
        #expect(await h.editBegin(conn(2), h.gc(3)).compactMap(\.editGranted).first?.version == 1)
        let stale = try #require(await h.submit(conn(2), update(h, h.gc(3), "Bob's", version: 0), opId: "b1"))
        #expect(stale.outcome.rejectCode == .conflict)
        #expect(stale.outcome.rejection?.message.hasPrefix("“Owl” changed while you were editing it") == true)
        #expect(await h.snapshot.board.item(h.gc(3))?.representations == cardNamed("Owl"))
    }

    @Test("R12: cancel, disconnect, the card leaving and the quiet period end a lease")
    func endings() async throws {
        let h = try await joined(RoomConfiguration(editLeaseQuietPeriod: .seconds(60)))
        // Cancel: Bob hears it; an editEnd from someone else is ignored.
        _ = await h.editBegin(conn(1), h.gc(1))
        await h.send(conn(2), .editEnd(.init(item: h.gc(1))))
        #expect(h.sink.take(conn(1)).isEmpty)
        await h.send(conn(1), .editEnd(.init(item: h.gc(1))))
        #expect(h.sink.take(conn(2)).compactMap(\.editEnded).last?.reason == .cancelled)
        // Editing another card moves the lease.
        _ = await h.editBegin(conn(1), h.gc(1))
        _ = await h.editBegin(conn(1), h.gc(2))
        let moves = h.sink.take(conn(2))
        #expect(moves.compactMap(\.editEnded).map(\.item) == [h.gc(1)])
        #expect(moves.compactMap(\.editStarted).map(\.item) == [h.gc(1), h.gc(2)])
        // Quiet period: refreshed at 40 s, expired 61 s after the refresh, the editor told too.
        h.clock.advance(by: .seconds(40))
        _ = await h.editBegin(conn(1), h.gc(2))
        h.clock.advance(by: .seconds(40))
        await h.process(.sweep)
        #expect(h.sink.take(conn(2)).compactMap(\.editEnded).isEmpty)
        h.clock.advance(by: .seconds(21))
        await h.process(.sweep)
        #expect(h.sink.take(conn(1)).compactMap(\.editEnded).map(\.reason) == [.expired])
        #expect(h.sink.take(conn(2)).compactMap(\.editEnded).map(\.reason) == [.expired])
        // The editor deletes its own card: allowed, and the lease ends.
        _ = await h.editBegin(conn(1), h.gc(4))
        _ = h.sink.take(conn(2))
        #expect(await h.submit(conn(1), .delete(.init(items: [h.gc(4)])), opId: "a1")?.outcome.committed != nil)
        #expect(h.sink.take(conn(2)).compactMap(\.editEnded).map(\.reason) == [.gone])
        // Disconnect.
        _ = await h.editBegin(conn(1), h.gc(5))
        _ = h.sink.take(conn(2))
        await h.process(.leave(conn(1)))
        #expect(h.sink.take(conn(2)).compactMap(\.editEnded).map(\.reason) == [.disconnected])
        #expect(await h.editBegin(conn(2), h.gc(5)).compactMap(\.editGranted).count == 1)
    }

    @Test("R12: viewers cannot take a lease; placeholders and missing cards cannot be edited")
    func refusals() async throws {
        let h = try await joined()
        try #require(await h.join(conn(3), name: "Vi", key: "view-key") != nil)
        #expect(await h.editBegin(conn(3), h.gc(1)).compactMap(\.editRefused).first?.code == .readOnly)
        #expect(await h.editBegin(conn(1), "b-nowhere").compactMap(\.editRefused).first?.code == .gone)
        await h.submit(
            conn(1), .insertPlaceholder(.init(destination: h.at(h.inbox, h.inboxSection, 0))), opId: "p1")
        let placeholder = Board.derivedID(clientId: "client-1", opId: "p1", n: 0)
        #expect(await h.editBegin(conn(2), placeholder).compactMap(\.editRefused).first?.code == .forbidden)
        #expect(h.sink.take(conn(2)).compactMap(\.editStarted).isEmpty, "nobody hears of refused leases")
    }
}

/// A card's representations with its name, as the demo's collections take them.
func cardNamed(_ name: String) -> [Representation] {
    [Representation(type: "corkboard.card", value: #"{"name":"\#(name)"}"#)]
}
