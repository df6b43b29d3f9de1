import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

@Suite("R8 placeholders in a room")
struct PlaceholderTests {
    let text = [Representation(type: "public.plain-text", value: "dropped text")]

    func placeholderID(_ client: String, _ opId: String) -> ItemID {
        Board.derivedID(clientId: client, opId: opId, n: 0)
    }

    /// A room where client `owner` (conn 1) inserted placeholder `p1` at the top of the inbox.
    func roomWithOwnersPlaceholder() async -> RoomHarness {
        let h = RoomHarness()
        await h.join(conn(1), clientId: "owner")
        await h.submit(conn(1), .insertPlaceholder(.init(destination: h.at(h.inbox, h.inboxSection, 0))), opId: "p1")
        return h
    }

    @Test("R8: a placeholder is inserted for everyone, then committed by its owner only")
    func insertAndCommit() async throws {
        let h = RoomHarness()
        await h.join(conn(1))
        await h.join(conn(2))
        _ = h.sink.take(conn(1))
        let insert = BoardOperation.insertPlaceholder(
            .init(destination: h.at(h.inbox, h.inboxSection, 0), createdAt: 5))
        let ack = try #require(await h.submit(conn(1), insert, opId: "p1"))
        let committed = try #require(ack.outcome.committed)
        let id = placeholderID("client-1", "p1")
        #expect(committed.effect.changes.map(\.item) == [id])
        guard case .insertPlaceholder(let resolved) = committed.op else {
            Issue.record("expected insertPlaceholder, got \(committed.op)")
            return
        }
        #expect(
            resolved.createdAt == h.clock.now.secondsSince1970, "the sequencer stamps the room's time, not the client's"
        )
        #expect(h.sink.take(conn(2)) == [.op(committed)])
        var board = await h.snapshot.board
        #expect(board.itemIDs(in: h.inboxSection) == [id, h.note])
        #expect(board.item(id)?.placeholder?.owner == "client-1")

        let stolen = await h.submit(conn(2), .commitPlaceholder(.init(item: id, representations: text)), opId: "x")
        #expect(stolen?.outcome.rejectCode == .notOwner)
        let deleteByPeer = await h.submit(conn(2), .deletePlaceholder(.init(item: id)), opId: "y")
        #expect(deleteByPeer?.outcome.rejectCode == .notOwner)

        // Others shift around it: a card moved in before it keeps the placeholder in place.
        let commit = try #require(
            await h.submit(conn(1), .commitPlaceholder(.init(item: id, representations: text)), opId: "p2"))
        #expect(commit.outcome.committed?.seq == 2)
        board = await h.snapshot.board
        #expect(board.item(id)?.placeholder == nil)
        #expect(board.item(id)?.representations == text)
        #expect(h.sink.take(conn(2)).compactMap(\.op).map(\.op.kind) == ["commitPlaceholder"])
    }

    @Test("R8: the owner deletes its placeholder; a dropped-from-outside drag ends with the submit naming it")
    func deleteAndExternalDrag() async throws {
        let h = RoomHarness()
        let ada = try #require(await h.join(conn(1))).member
        await h.join(conn(2))
        _ = h.sink.take(conn(1))
        let grant = try #require(await h.dragBegin(conn(1), "x1", [], external: [["public.plain-text"]]))
        #expect(grant.granted.isEmpty)
        #expect(
            h.sink.take(conn(2))
                == [
                    .dragStarted(DragState(session: "x1", member: ada.id, items: [], external: [["public.plain-text"]]))
                ])
        await h.send(
            conn(1),
            .dropUpdate(
                .init(session: "x1", target: DragTarget(collection: h.inbox, section: h.inboxSection, index: 1))))
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).first?.proposal.operation == .copy)
        await h.send(
            conn(1),
            .dropUpdate(.init(session: "x1", target: DragTarget(collection: h.caches, section: h.toFind, index: 1))))
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).first?.proposal.operation == .forbidden)
        // A drop of external content must go through submit.
        await h.send(
            conn(1),
            .drop(
                .init(ref: "bad", session: "x1", opId: "nope", base: 0, destination: h.at(h.inbox, h.inboxSection, 0))))
        let error = try #require(h.sink.take(conn(1)).compactMap(\.error).first)
        #expect(error.code == .invalidField)
        #expect(error.field == "session")
        #expect(error.ref == "bad")

        let ack = await h.submit(
            conn(1), .insertPlaceholder(.init(destination: h.at(h.inbox, h.inboxSection, 1))), opId: "p1", session: "x1"
        )
        #expect(ack?.outcome.committed?.seq == 1)
        let peer = h.sink.take(conn(2))
        // The first hover went at once; the second waited for the hover window, and the drop ended
        // its drag first.
        #expect(peer.map(\.type) == ["dragHover", "op", "dragEnded"])
        #expect(peer.last?.dragEnded == .init(session: "x1", member: ada.id, reason: .dropped, seq: 1))
        #expect(await h.room.liveDrags.isEmpty)

        let id = placeholderID("client-1", "p1")
        let delete = await h.submit(conn(1), .deletePlaceholder(.init(item: id)), opId: "p2")
        #expect(delete?.outcome.committed?.seq == 2)
        #expect(await h.items(h.inboxSection) == [h.note])
        #expect(h.sink.take(conn(2)).compactMap(\.op).map(\.op.kind) == ["deletePlaceholder"])
    }

    @Test("R8: after the owner leaves and the grace period passes, the room deletes its placeholder")
    func cleanupAfterOwnerLeaves() async throws {
        let h = RoomHarness()
        await h.join(conn(1), clientId: "owner")
        await h.join(conn(2))
        await h.submit(conn(1), .insertPlaceholder(.init(destination: h.at(h.inbox, h.inboxSection, 0))), opId: "p1")
        let id = placeholderID("owner", "p1")
        await h.process(.leave(conn(1)))
        _ = h.sink.take(conn(2))
        h.clock.advance(by: .seconds(29))
        await h.process(.sweep)
        #expect(await h.snapshot.board.contains(id), "inside the grace period it stays")
        #expect(h.sink.take(conn(2)).isEmpty)
        h.clock.advance(by: .seconds(2))
        await h.process(.sweep)
        let op = try #require(h.sink.take(conn(2)).compactMap(\.op).first)
        #expect(op.clientId == ClientIdentity.system)
        #expect(op.opId == "cleanup-\(id)")
        #expect(op.op == .deletePlaceholder(.init(item: id)))
        #expect(op.seq == 2)
        #expect(await h.snapshot.board.contains(id) == false)
        #expect(await h.snapshot.board.checkInvariants().isEmpty)
        await h.process(.sweep)
        #expect(await h.room.head == 2, "cleanup happens once")
    }

    @Test("R8: nobody may join as the room's own identity to delete others' placeholders or pre-empt clean-up")
    func systemIdentityIsReserved() async throws {
        let h = await roomWithOwnersPlaceholder()
        let id = placeholderID("owner", "p1")
        await h.process(
            .join(
                conn(2), .init(ref: "h", board: "b", key: "edit-key", name: "Mallory", clientId: ClientIdentity.system))
        )
        let answer = h.sink.take(conn(2))
        #expect(answer.map(\.type) == ["error"], "joined as \(ClientIdentity.system)")
        #expect(answer.first?.error?.field == "clientId")
        #expect(answer.first?.error?.ref == "h")
        #expect(h.sink.closes(of: conn(2)).map(\.code) == [CloseCode.policyViolation])
        #expect(await h.room.memberCount == 1)
        await h.submit(conn(2), .deletePlaceholder(.init(item: id)), opId: "cleanup-\(id)")
        #expect(await h.snapshot.board.contains(id))
        #expect(await h.room.head == 1)
    }

    @Test("R8: an owner who resumes within the grace period keeps its placeholder")
    func ownerResumesInTime() async throws {
        let h = await roomWithOwnersPlaceholder()
        await h.process(.leave(conn(1)))
        h.clock.advance(by: .seconds(20))
        await h.join(conn(3), clientId: "owner", lastSeq: 1)
        h.clock.advance(by: .seconds(20))
        await h.process(.sweep)
        #expect(await h.snapshot.board.contains(placeholderID("owner", "p1")))
        #expect(await h.room.head == 1)
    }

    @Test("R8: a placeholder left uncommitted past the maximum age is deleted even with its owner present")
    func expiryByAge() async throws {
        let h = await roomWithOwnersPlaceholder()
        let id = placeholderID("owner", "p1")
        h.clock.advance(by: .seconds(299))
        await h.process(.sweep)
        #expect(await h.snapshot.board.contains(id))
        h.clock.advance(by: .seconds(2))
        await h.process(.sweep)
        let op = try #require(h.sink.take(conn(1)).compactMap(\.op).first, "the owner is told too")
        #expect(op.opId == "expire-\(id)")
        #expect(op.clientId == ClientIdentity.system)
        #expect(await h.snapshot.board.contains(id) == false)
        // The owner's late commit finds it gone.
        let late = await h.submit(conn(1), .commitPlaceholder(.init(item: id, representations: text)), opId: "p2")
        #expect(late?.outcome.rejectCode == .gone)
    }

    @Test("a room built over a board holding placeholders starts their owners' grace at once (R8)")
    func placeholdersOfARestoredBoard() async throws {
        var board = try Board(collections: BoardTemplate.demo.collections(board: "b"))
        let id = placeholderID("gone", "p1")
        _ = try board.apply(
            .insertPlaceholder(
                .init(destination: Destination(collection: "b-inbox", section: "b-inbox", index: 0), createdAt: 999_990)
            ),
            clientId: "gone", opId: "p1")
        let clock = ManualClock()
        let sink = RecordingSink()
        let room = Room(
            info: BoardInfo(id: "b", title: "B"), keys: testKeys, sequencer: Sequencer(board: board, seq: 7),
            sink: sink,
            clock: clock, logger: quietLogger)
        clock.advance(by: .seconds(31))
        await room.process([.sweep])
        #expect(await room.snapshot.board.contains(id) == false)
        #expect(await room.head == 8)
    }

    @Test("inserted items may not choose ids, and moveOut is the server's own operation")
    func insertRules() async throws {
        let h = RoomHarness()
        await h.join(conn(1))
        let chosen = BoardOperation.insert(
            .init(items: [NewItem(id: "mine", representations: text)], destination: h.at(h.inbox, h.inboxSection, 0)))
        await h.send(conn(1), .submit(.init(ref: "r1", opId: "i1", base: 0, op: chosen)))
        let error = try #require(h.sink.take(conn(1)).first?.error)
        #expect(error.code == .invalidField)
        #expect(error.field == "op.items.0.id")
        #expect(error.ref == "r1")
        let nested = BoardOperation.insert(
            .init(
                items: [NewItem(representations: text, children: [NewItem(id: "kid", representations: text)])],
                destination: h.at(h.inbox, h.inboxSection, 0)))
        await h.send(conn(1), .submit(.init(ref: "r2", opId: "i2", base: 0, op: nested)))
        #expect(h.sink.take(conn(1)).first?.error?.field == "op.items.0.children.0.id")
        // R12: new items start at version 0; only a move between boards or an undo keeps one.
        let versioned = BoardOperation.insert(
            .init(items: [NewItem(representations: text, version: 3)], destination: h.at(h.inbox, h.inboxSection, 0)))
        await h.send(conn(1), .submit(.init(ref: "r4", opId: "i4", base: 0, op: versioned)))
        #expect(h.sink.take(conn(1)).first?.error?.field == "op.items.0.version")
        await h.send(conn(1), .submit(.init(ref: "r3", opId: "i3", base: 0, op: .moveOut(.init(items: [h.gc(1)])))))
        let moveOut = try #require(h.sink.take(conn(1)).first?.error)
        #expect(moveOut.code == .invalidField)
        #expect(moveOut.field == "op.kind")
        #expect(await h.room.head == 0)

        let fine = BoardOperation.insert(
            .init(items: [NewItem(representations: text)], destination: h.at(h.inbox, h.inboxSection, 0)))
        let ack = await h.submit(conn(1), fine, opId: "i4")
        #expect(
            ack?.outcome.committed?.effect.changes.map(\.item) == [
                Board.derivedID(clientId: "client-1", opId: "i4", n: 0)
            ])
    }
}
