import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// R13 at the room: undo and redo as sequenced operations, `undoable`, histories that survive a
/// resume, refusals with sentences, resends, bounds, and store failures.
@Suite("R13 undo and redo in the room")
struct UndoRoomTests {
    func joined(_ configuration: RoomConfiguration = RoomConfiguration()) async throws -> RoomHarness {
        let h = RoomHarness(configuration: configuration)
        try #require(await h.join(conn(1), name: "Ada", clientId: "ada") != nil)
        try #require(await h.join(conn(2), name: "Bob", clientId: "bob") != nil)
        _ = h.sink.take(conn(1))
        return h
    }

    @discardableResult
    func moveToFound(_ h: RoomHarness, _ card: Int, by handle: ConnectionHandle, opId: String, index: Int = 0) async
        -> ServerMessage.Ack?
    {
        await h.submit(
            handle, .move(.init(items: [h.gc(card)], destination: h.at(h.found, h.foundSection, index))), opId: opId)
    }

    @Test("R13: an undo after a peer moved the same card is a new operation everyone applies")
    func undoAfterPeerMove() async throws {
        let h = try await joined()
        #expect(await h.dragBegin(conn(1), "d1", [h.gc(2)])?.granted == [h.gc(2)])
        let destination = h.at(h.found, h.foundSection, 2)
        await h.send(conn(1), .drop(.init(ref: "a1", session: "d1", opId: "a1", base: 0, destination: destination)))
        let dropped = h.sink.take(conn(1))
        #expect(dropped.compactMap(\.ack).first?.outcome.committed != nil)
        #expect(dropped.compactMap(\.undoable) == [.init(undo: true, redo: false)], "after its ack")
        // Bob moves it on, to the Inbox.
        await h.submit(
            conn(2), .move(.init(items: [h.gc(2)], destination: h.at(h.inbox, h.inboxSection, 0))), opId: "b1")
        _ = h.sink.take(conn(2))
        await h.send(conn(1), .undo(.init(ref: "ref-u1", opId: "u1", base: await h.room.head)))
        let answers = h.sink.take(conn(1))
        let ack = try #require(answers.compactMap(\.ack).first)
        let committed = try #require(ack.outcome.committed)
        #expect(ack.ref == "ref-u1" && committed.opId == "u1" && committed.clientId == "ada")
        #expect(await h.items(h.toFind) == h.ids.cards(1, 2, 3, 4, 5, 6, 7, 8), "back between its old neighbours")
        #expect(h.sink.take(conn(2)).compactMap(\.op) == [committed], "peers apply it like any operation")
        #expect(answers.compactMap(\.undoable) == [.init(undo: false, redo: true)])
        // Redo reverses the undo: the card goes back where it was just before it, Bob's Inbox.
        let redo = try #require(await h.undo(conn(1), opId: "r1", redo: true))
        #expect(redo.outcome.committed != nil)
        #expect(await h.items(h.inboxSection).first == h.gc(2))
    }

    @Test("R13: the history survives a resume with the resume token, and only its client may use it")
    func survivesResume() async throws {
        let h = try await joined()
        await moveToFound(h, 1, by: conn(1), opId: "a1")
        await h.process(.leave(conn(1)))
        let welcome = try #require(await h.join(conn(3), name: "Ada", clientId: "ada", lastSeq: 1))
        #expect(welcome.undoable == ServerMessage.Undoable(undo: true, redo: false))
        #expect(welcome.keys == ServerMessage.ShareKeys(view: "view-key", edit: "edit-key", comment: "comment-key"))
        // Bob has nothing to undo; his undo leaves Ada's move alone.
        let bobs = try #require(await h.undo(conn(2), opId: "u1"))
        #expect(bobs.outcome.rejection?.message == "There is nothing of yours to undo on this board.")
        #expect(await h.items(h.foundSection).first == h.gc(1))
        #expect(await h.undo(conn(3), opId: "u2")?.outcome.committed != nil)
        #expect(await h.items(h.toFind).first == h.gc(1))
    }

    @Test("R13: a refused undo says why in a sentence and the history moves past it")
    func refusedWithASentence() async throws {
        let h = try await joined()
        await moveToFound(h, 1, by: conn(1), opId: "a1")
        await h.submit(
            conn(1), .updateItem(.init(item: h.gc(9), representations: cardNamed("Mine"), version: 0)), opId: "a2")
        await h.submit(
            conn(2), .updateItem(.init(item: h.gc(9), representations: cardNamed("Bob's"), version: 1)), opId: "b1")
        _ = h.sink.take(conn(1))
        let refused = try #require(await h.undo(conn(1), opId: "u1"))
        #expect(refused.outcome.rejectCode == .conflict)
        #expect(
            refused.outcome.rejection?.message
                == "Could not undo editing “Sandstone Arch”: “Bob's” was changed again since your edit; undoing "
                + "would overwrite that change. Nothing changed.")
        await h.send(conn(1), .undo(.init(opId: "u2", base: await h.room.head)))
        let answers = h.sink.take(conn(1))
        #expect(answers.compactMap(\.ack).first?.outcome.committed != nil, "the move before it is next")
        #expect(await h.items(h.toFind).first == h.gc(1))
        #expect(answers.compactMap(\.undoable).last == .init(undo: false, redo: true))
    }

    @Test("R13: a resent undo is answered from memory; viewers cannot undo")
    func resendsAndViewers() async throws {
        let h = try await joined()
        await moveToFound(h, 1, by: conn(1), opId: "a1")
        let first = try #require(await h.undo(conn(1), opId: "u1"))
        _ = h.sink.take(conn(2))
        let head = await h.room.head
        let again = try #require(await h.undo(conn(1), opId: "u1"))
        #expect(again.outcome == first.outcome)
        #expect(await h.room.head == head && h.sink.take(conn(2)).isEmpty, "nothing applied or broadcast twice")
        #expect(await h.undo(conn(1), opId: "u1", redo: true)?.outcome.rejectCode == .conflict)
        try #require(await h.join(conn(3), name: "Vi", key: "view-key") != nil)
        #expect(await h.undo(conn(3), opId: "v1")?.outcome.rejectCode == .readOnly)
    }

    @Test("R13: each client's history is bounded")
    func bounded() async throws {
        let h = try await joined(RoomConfiguration(undoHistory: .init(depth: 3, guaranteed: 1)))
        for n in 1...5 { await moveToFound(h, n, by: conn(1), opId: "a\(n)") }
        for n in 1...3 { #expect(await h.undo(conn(1), opId: "u\(n)")?.outcome.committed != nil) }
        #expect(await h.undo(conn(1), opId: "u4")?.outcome.rejectCode == .notFound)
        #expect(await h.items(h.foundSection).prefix(2) == [h.gc(2), h.gc(1)], "the two oldest moves stay")
    }

    @Test("R13: a store failure forgets the undo entries of the operations it undid")
    func storeFailure() async throws {
        let r = try DurabilityRoom()
        await r.joinBoth()
        await r.submitMove(from: r.alice, opId: "a1")
        await r.complete(0, error: diskFull)
        let messages = r.sink.takeMessages(r.alice)
        #expect(messages.compactMap(durabilityAck).first?.outcome.rejectCode == .storeFailed)
        #expect(messages.compactMap(\.undoable).last == .init(undo: false, redo: false))
        await r.room.process([.message(r.alice, .undo(.init(ref: "u1", opId: "u1", base: 0)))])
        let ack = r.sink.takeMessages(r.alice).compactMap(durabilityAck).first
        #expect(ack?.outcome.rejection?.message == "There is nothing of yours to undo on this board.")
    }

    @Test("R13: a move to another board is not undone here, and the undo says so")
    func otherBoards() async throws {
        let b = try await TwoBoards.joined()
        await b.a.dragBegin(conn(1), "d1", [b.a.gc(1)])
        await b.drop("d1", opId: "x1", at: b.z.at(b.z.found, b.z.foundSection, 0), ref: "r1")
        #expect(await b.ack("x1")?.outcome.committed != nil)
        await b.a.send(conn(1), .undo(.init(ref: "u1", opId: "u1", base: 1)))
        let undo = try #require(await b.ack("u1"))
        #expect(
            undo.outcome.rejection?.message
                == "Could not undo moving cards to another board: moves to another board cannot be undone; drag the "
                + "cards back from that board. Nothing changed.")
        #expect(await b.z.items(b.z.foundSection).first == b.a.gc(1), "the card stays where it was dropped")
    }
}
