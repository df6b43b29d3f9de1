import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// R16 at the room: a card's details change live for every member, a description save ends the
/// editor's lease, viewers change nothing, and a newcomer's snapshot carries them.
@Suite("R16 card details in the room")
struct CardDetailsRoomTests {
    typealias Update = BoardOperation.UpdateCard

    @Test("R16: an updateCard is acknowledged to its author and broadcast to every member once")
    func liveForEveryone() async throws {
        let h = RoomHarness()
        try #require(await h.join(conn(1), name: "Ada") != nil)
        try #require(await h.join(conn(2), name: "Bob") != nil)
        _ = h.sink.take(conn(1))
        _ = h.sink.take(conn(2))
        let op = BoardOperation.updateCard(
            Update(item: h.gc(2), description: .init("**Bring** a torch", version: 0), done: true, assign: ["Bob"]))
        let ack = try #require(await h.submit(conn(1), op, opId: "d1"))
        #expect(ack.outcome.committed != nil)
        let seen = h.sink.take(conn(2)).compactMap(\.op)
        #expect(seen.map(\.op) == [op])
        // A newcomer's snapshot carries the details.
        let welcome = try #require(await h.join(conn(3), name: "Cy"))
        let details = welcome.snapshot?.board.details(of: h.gc(2))
        #expect(details?.description == "**Bring** a torch" && details?.done == true && details?.assignees == ["Bob"])
    }

    @Test("R12 + R16: the editor's description save ends its lease; another member's is refused locked")
    func descriptionLease() async throws {
        let h = RoomHarness()
        try #require(await h.join(conn(1), name: "Ada") != nil)
        try #require(await h.join(conn(2), name: "Bob") != nil)
        #expect(await h.editBegin(conn(1), h.gc(3)).compactMap(\.editGranted).count == 1)
        _ = h.sink.take(conn(2))
        let bobs = try #require(
            await h.submit(conn(2), .updateCard(Update(item: h.gc(3), description: .init("Bob's"))), opId: "b1"))
        #expect(bobs.outcome.rejection?.code == .locked)
        // Bob may still tick it done: only the description is under the lease.
        let done = try #require(await h.submit(conn(2), .updateCard(Update(item: h.gc(3), done: true)), opId: "b2"))
        #expect(done.outcome.committed != nil)
        _ = h.sink.take(conn(2))
        let saved = try #require(
            await h.submit(
                conn(1), .updateCard(Update(item: h.gc(3), description: .init("Ada's", version: 0))), opId: "a1"))
        #expect(saved.outcome.committed != nil)
        #expect(h.sink.take(conn(2)).compactMap(\.editEnded).map(\.reason) == [.saved])
    }

    @Test("R16: a comment carries the name its author joined with, never one the message claims")
    func commentNames() async throws {
        let h = RoomHarness()
        try #require(await h.join(conn(1), name: "Ada") != nil)
        let add = BoardOperation.AddComment(item: h.gc(1), text: "Found it", name: "Mallory", at: 1)
        let ack = try #require(await h.submit(conn(1), .addComment(add), opId: "c1"))
        let committed = try #require(ack.outcome.committed)
        guard case .addComment(let stored) = committed.op else {
            Issue.record("committed \(committed.op.kind)")
            return
        }
        #expect(stored.name == "Ada" && stored.at != 1)
        let comment = try #require(await h.snapshot.board.details(of: h.gc(1))?.comments.first)
        #expect(comment.name == "Ada" && comment.author == "client-1" && comment.text == "Found it")
    }

    @Test("R16: viewers see details and change none of them")
    func viewers() async throws {
        let h = RoomHarness()
        try #require(await h.join(conn(1), name: "Vi", key: "view-key") != nil)
        let ack = try #require(await h.submit(conn(1), .updateCard(Update(item: h.gc(1), done: true)), opId: "v1"))
        #expect(ack.outcome.rejection?.code == .readOnly)
    }

    @Test("R16: a checklist change is live for every member and a newcomer's snapshot; a viewer's is refused")
    func checklists() async throws {
        let h = RoomHarness()
        try #require(await h.join(conn(1), name: "Ada") != nil)
        try #require(await h.join(conn(2), name: "Bob") != nil)
        try #require(await h.join(conn(3), name: "Vi", key: "view-key") != nil)
        _ = h.sink.take(conn(1))
        _ = h.sink.take(conn(2))
        let add = BoardOperation.checklist(.init(item: h.gc(2), checklist: "k1", action: .add, name: "Gear"))
        let item = BoardOperation.checklist(
            .init(item: h.gc(2), checklist: "k1", action: .addItem, entry: "e1", text: "Torch"))
        #expect(try #require(await h.submit(conn(1), add, opId: "k1")).outcome.committed != nil)
        #expect(try #require(await h.submit(conn(1), item, opId: "k2")).outcome.committed != nil)
        #expect(h.sink.take(conn(2)).compactMap(\.op).map(\.op) == [add, item])
        let check = BoardOperation.checklist(
            .init(item: h.gc(2), checklist: "k1", action: .check, entry: "e1", done: true))
        let refused = try #require(await h.submit(conn(3), check, opId: "v1"))
        #expect(refused.outcome.rejection?.code == .readOnly)
        let welcome = try #require(await h.join(conn(4), name: "Cy"))
        let lists = welcome.snapshot?.board.details(of: h.gc(2))?.checklists
        #expect(lists == [Checklist(id: "k1", name: "Gear", items: [.init(id: "e1", text: "Torch")])])
    }
}
