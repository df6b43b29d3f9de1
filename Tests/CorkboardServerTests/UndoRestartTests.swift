import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// R13 and R18 at the room: every change of a client's undo history goes to the store with the
/// batch it happened in, and a room started again from the store (a restart, a failover) undoes
/// and redoes as the first one would have, for the holder of the client's resume token only.
@Suite("R13 undo histories survive a restart")
struct UndoRestartTests {
    /// Tokens derived from a secret, as a server on a store derives them (`BoardStore.resumeSecret`).
    static let configuration = RoomConfiguration(resumeTokens: { board, client in "r-\(board)-\(client)-test" })

    /// A room on `store` joined by `clients` in turn (conn 1, 2, …, each under its client id).
    func joinedRoom(on store: ManualStore, _ clients: String...) async throws -> RoomHarness {
        let h = RoomHarness(configuration: Self.configuration, store: store)
        for (n, client) in clients.enumerated() {
            try #require(await h.join(conn(UInt64(n + 1)), clientId: client) != nil)
        }
        return h
    }

    /// Sends a message, lets the store commit what it was handed, and returns what the sender got.
    func stored(_ h: RoomHarness, _ handle: ConnectionHandle, _ message: ClientMessage) async -> [ServerMessage] {
        await h.send(handle, message)
        h.store!.completePending()
        await h.processQueuedEvents()
        return h.sink.take(handle)
    }

    func move(_ h: RoomHarness, _ card: Int, opId: String) async -> ClientMessage {
        .submit(
            .init(
                ref: opId, opId: opId, base: await h.room.head,
                op: .move(.init(items: [h.gc(card)], destination: h.at(h.found, h.foundSection, 0)))))
    }

    func undo(_ h: RoomHarness, _ opId: String, redo: Bool = false) async -> ClientMessage {
        let request = ClientMessage.UndoRequest(ref: opId, opId: opId, base: await h.room.head)
        return redo ? .redo(request) : .undo(request)
    }

    @Test("R13: after a restart from the store, undo and redo do what they would have done before")
    func restartThenUndo() async throws {
        let store = ManualStore()
        let h = try await joinedRoom(on: store, "ada", "bob")
        #expect(
            await stored(h, conn(1), await move(h, 1, opId: "a1")).compactMap(\.ack).first?.outcome.committed != nil)
        #expect(
            await stored(h, conn(1), await move(h, 3, opId: "a2")).compactMap(\.ack).first?.outcome.committed != nil)
        #expect(
            await stored(h, conn(2), await move(h, 5, opId: "b1")).compactMap(\.ack).first?.outcome.committed != nil)
        let undone = await stored(h, conn(1), await undo(h, "u1"))
        #expect(undone.compactMap(\.ack).first?.outcome.committed != nil)
        #expect(await h.items(h.toFind) == h.ids.cards(2, 3, 4, 6, 7, 8))
        let kept = store.undoEntries(board: h.board)
        #expect(kept.map(\.clientId) == ["ada", "ada", "bob"])
        #expect(kept.map(\.stack) == [.undo, .redo, .undo], "ada's a1 to undo, a2 undone (to redo); bob's b1")

        // The process dies; a new room loads the board and the histories from the store.
        let r = try h.restarted(configuration: Self.configuration, store: store)
        let welcome = try #require(await r.join(conn(11), clientId: "ada", lastSeq: 4))
        #expect(welcome.undoable == .init(undo: true, redo: true), "Undo and Redo stay enabled after the restart")
        let redo = await stored(r, conn(11), await undo(r, "r1", redo: true))
        #expect(redo.compactMap(\.ack).first?.outcome.committed != nil)
        #expect(await r.items(r.toFind) == r.ids.cards(2, 4, 6, 7, 8), "the redo moved card 3 again")
        for opId in ["u2", "u3"] {
            let answer = await stored(r, conn(11), await undo(r, opId))
            #expect(answer.compactMap(\.ack).first?.outcome.committed != nil, "\(opId)")
        }
        #expect(await r.items(r.toFind) == r.ids.cards(1, 2, 3, 4, 6, 7, 8), "cards 1 and 3 back by their anchors")
        let nothing = await stored(r, conn(11), await undo(r, "u4"))
        #expect(nothing.compactMap(\.ack).first?.outcome.rejectCode == .notFound, "nobody else's operation")
        // Bob's history came back too; and the store now holds what the histories hold.
        try #require(await r.join(conn(12), clientId: "bob", lastSeq: 7) != nil)
        #expect(
            await stored(r, conn(12), await undo(r, "v1")).compactMap(\.ack).first?
                .outcome.committed != nil)
        #expect(await r.items(r.toFind) == r.ids.cards(1, 2, 3, 4, 5, 6, 7, 8))
        let after = store.undoEntries(board: r.board)
        #expect(after.map(\.stack) == [.redo, .redo, .redo], "ada's two undos and bob's undo, nothing else")
    }

    @Test("R10: an undo whose answer the crash lost, resent after the restart, gets its first outcome")
    func resendAfterRestart() async throws {
        let store = ManualStore()
        let h = try await joinedRoom(on: store, "ada")
        _ = await stored(h, conn(1), await move(h, 1, opId: "a1"))
        let first = try #require(await stored(h, conn(1), await undo(h, "u1")).compactMap(\.ack).first)
        let committed = try #require(first.outcome.committed)
        let r = try h.restarted(configuration: Self.configuration, store: store)
        try #require(await r.join(conn(11), clientId: "ada", lastSeq: 1) != nil)
        let again = await stored(r, conn(11), .undo(.init(ref: "u1", opId: "u1", base: 1)))
        #expect(again.compactMap(\.ack).first?.outcome == .committed(committed), "the first outcome, not a conflict")
        #expect(await r.room.head == committed.seq, "nothing applied twice")
        let redo = await stored(r, conn(11), .redo(.init(ref: "a1", opId: "a1", base: 2)))
        #expect(redo.compactMap(\.ack).first?.outcome.rejectCode == .conflict, "an opId used for a move")
    }

    @Test("R13: a client whose history the store kept must present its resume token after a restart")
    func tokenRequired() async throws {
        let store = ManualStore()
        let h = try await joinedRoom(on: store, "ada")
        _ = await stored(h, conn(1), await move(h, 1, opId: "a1"))
        let r = try h.restarted(configuration: Self.configuration, store: store)
        for token in [nil, "r-b-ada-wrong"] {
            let hello = ClientMessage.Hello(
                board: r.board, key: "edit-key", name: "Mallory", clientId: "ada", resumeToken: token)
            await r.process(.join(conn(20), hello))
            let answer = r.sink.take(conn(20))
            #expect(answer.compactMap(\.error).first?.field == "resumeToken", "token \(token ?? "none")")
            #expect(answer.compactMap(\.welcome).isEmpty)
        }
        // Without a way to check tokens (no secret), such a client cannot resume at all.
        let unchecked = try h.restarted(configuration: RoomConfiguration(), store: store)
        let hello = ClientMessage.Hello(
            board: r.board, key: "edit-key", name: "Ada", clientId: "ada", resumeToken: "r-b-ada-test")
        await unchecked.process(.join(conn(21), hello))
        #expect(unchecked.sink.take(conn(21)).compactMap(\.error).first?.field == "resumeToken")
        #expect(try #require(await r.join(conn(22), clientId: "ada")).undoable == .init(undo: true, redo: false))
    }

    @Test("R18: the store keeps only what the history keeps: entries past its depth and refused undos are deleted")
    func boundedInStore() async throws {
        let store = ManualStore()
        var configuration = Self.configuration
        configuration.undoHistory = .init(depth: 2, guaranteed: 1)
        let h = RoomHarness(configuration: configuration, store: store)
        try #require(await h.join(conn(1), clientId: "ada") != nil)
        for (n, card) in [1, 2, 3].enumerated() { _ = await stored(h, conn(1), await move(h, card, opId: "a\(n)")) }
        #expect(store.undoEntries(board: h.board).map(\.seq) == [2, 3], "the oldest entry left with the depth")
        // Someone deletes card 3: ada's undo of its move is refused, and the entry is gone from the store too.
        try #require(await h.join(conn(2), clientId: "bob") != nil)
        _ = await stored(h, conn(2), .submit(.init(ref: "d", opId: "d", base: 3, op: .delete(.init(items: [h.gc(3)])))))
        let refused = await stored(h, conn(1), await undo(h, "u1"))
        #expect(refused.compactMap(\.ack).first?.outcome.rejection != nil)
        #expect(store.appendedSeqs.last == [], "the history's change went to the store on its own")
        #expect(store.undoEntries(board: h.board).filter { $0.clientId == "ada" }.map(\.seq) == [2])
    }

    @Test("R13: after a failed write, the next operations replace the board's stored histories with the whole history")
    func rewriteAfterFailure() async throws {
        let store = ManualStore()
        let h = try await joinedRoom(on: store, "ada", "bob")
        _ = await stored(h, conn(1), await move(h, 1, opId: "a1"))
        _ = await stored(h, conn(2), await move(h, 3, opId: "b1"))
        #expect(store.undoEntries(board: h.board).map(\.seq) == [1, 2])
        #expect(store.appendedUndo.last?.first?.clients.map(\.added.count) == [1], "a delta: bob's new entry only")

        // The store fails ada's next operation: the board goes back to seq 2, and the room's next
        // operation goes with the whole history, replacing whatever the store holds.
        await h.send(conn(1), await move(h, 2, opId: "a2"))
        store.completePending(error: diskFull)
        await h.processQueuedEvents()
        #expect(store.appendedSeqs.last == [3], "nothing goes on its own after the rollback")
        _ = await stored(h, conn(2), await move(h, 4, opId: "b2"))
        let rewrite = try #require(store.appendedUndo.last?.first)
        #expect(store.appendedSeqs.last == [3])
        #expect(rewrite.replacesAll)
        #expect(rewrite.clients.map { "\($0.clientId) \($0.added.map(\.seq))" } == ["ada [1]", "bob [2, 3]"])
        #expect(store.undoEntries(board: h.board).map(\.seq) == [1, 2, 3])

        // An undo refused (bob deleted the card since) goes to the store on its own; that write
        // fails too, and the room's next operation rewrites the histories.
        _ = await stored(h, conn(2), .submit(.init(ref: "d", opId: "d", base: 3, op: .delete(.init(items: [h.gc(1)])))))
        await h.send(conn(1), await undo(h, "u1"))
        #expect(store.appendedSeqs.last == [], "the refused undo's change went on its own")
        store.completePending(error: diskFull)
        await h.processQueuedEvents()
        _ = await stored(h, conn(2), await move(h, 5, opId: "b3"))
        let again = try #require(store.appendedUndo.last?.first)
        #expect(again.replacesAll)
        #expect(
            store.undoEntries(board: h.board).map { "\($0.clientId) \($0.seq)" } == [
                "bob 2", "bob 3", "bob 4", "bob 5",
            ])
    }
}
