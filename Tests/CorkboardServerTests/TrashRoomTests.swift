import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// R15 at the room: who deleted is the room's name for them; anyone with edit rights restores, once;
/// a viewer cannot; a delete's undo and a peer's restore apply once.
@Suite("R15 Trash in the room")
struct TrashRoomTests {
    func joined() async throws -> RoomHarness {
        let h = RoomHarness()
        try #require(await h.join(conn(1), name: "Ada", clientId: "ada") != nil)
        try #require(await h.join(conn(2), name: "Bob", clientId: "bob") != nil)
        _ = h.sink.take(conn(1))
        return h
    }

    @Test("R15: B deletes a card (named by the room), A restores it, everyone gets the restore once")
    func restoreBroadcast() async throws {
        let h = try await joined()
        let before = await h.items(h.toFind)
        let delete = BoardOperation.Delete(items: [h.gc(2)], name: "Mallory")
        let deleted = try #require(await h.submit(conn(2), .delete(delete), opId: "b1")?.outcome.committed)
        guard case .delete(let stamped) = deleted.op else {
            Issue.record("not a delete: \(deleted.op)")
            return
        }
        #expect(stamped.name == "Bob" && (stamped.at ?? 0) > 0)
        let entry = try #require(await h.snapshot.board.trash.entries.first)
        #expect(entry.id == "bob:b1" && entry.name == "Bob")
        _ = h.sink.take(conn(1))
        let restored = try #require(
            await h.submit(conn(1), .restore(.init(entry: entry.id)), opId: "a1")?.outcome.committed)
        #expect(await h.items(h.toFind) == before)
        #expect(h.sink.take(conn(2)).compactMap(\.op) == [restored])
        // Bob's undo of his delete races Ada's restore: it is refused, nothing is duplicated.
        let undo = try #require(await h.undo(conn(2), opId: "b2"))
        #expect(undo.outcome.rejection?.code == .gone)
        #expect(await h.items(h.toFind) == before)
        let trash = await h.snapshot.board.trash
        #expect(trash.entries.isEmpty)
    }

    @Test("R15: a viewer sees the Trash but cannot restore or empty it")
    func viewerRefused() async throws {
        let h = try await joined()
        try #require(await h.join(conn(3), name: "Vic", key: "view-key", clientId: "vic") != nil)
        await h.submit(conn(2), .delete(.init(items: [h.gc(3)])), opId: "b1")
        let restore = await h.submit(conn(3), .restore(.init(entry: "bob:b1")), opId: "v1")
        #expect(restore?.outcome.rejection?.code == .readOnly)
        let empty = await h.submit(conn(3), .emptyTrash(.init()), opId: "v2")
        #expect(empty?.outcome.rejection?.code == .readOnly)
        let trash = await h.snapshot.board.trash
        #expect(trash.entries.count == 1)
    }
}
