import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

@testable import CorkboardServer

@Suite("Drags and drops in one room")
struct DragDropTests {
    /// A room with Ada (conn 1, editor) and Grace (conn 2, editor), their join traffic taken.
    func twoEditors() async throws -> (RoomHarness, ada: Member, grace: Member) {
        let h = RoomHarness()
        let ada = try #require(await h.join(conn(1), name: "Ada")).member
        let grace = try #require(await h.join(conn(2), name: "Grace")).member
        await h.process(.tick)  // announces the joins
        _ = h.sink.take(conn(1))
        _ = h.sink.take(conn(2))
        return (h, ada, grace)
    }

    @Test("R3: reordering inside a collection lands after the `after` anchor; peers get the op and dragEnded")
    func reorder() async throws {
        let (h, ada, _) = try await twoEditors()
        let grant = try #require(await h.dragBegin(conn(1), "d1", [h.gc(1)]))
        #expect(grant.granted == [h.gc(1)])
        #expect(grant.refused.isEmpty)
        #expect(grant.ref == "begin-d1")
        let ack = try #require(
            await h.drop(conn(1), "d1", opId: "o1", at: h.at(h.caches, h.toFind, 3, after: h.gc(4), before: h.gc(5))))
        #expect(ack.ref == "ref-o1")
        #expect(ack.opId == "o1")
        #expect(ack.board == nil)
        let committed = try #require(ack.outcome.committed)
        #expect(committed.seq == 1)
        #expect(committed.effect.changes.first?.to?.index == 3)
        #expect(await h.items(h.toFind) == [2, 3, 4, 1, 5, 6, 7, 8].map(h.gc))
        let peer = h.sink.take(conn(2))
        #expect(
            peer == [
                .dragStarted(DragState(session: "d1", member: ada.id, items: [h.gc(1)])), .op(committed),
                .dragEnded(.init(session: "d1", member: ada.id, reason: .dropped, seq: 1)),
            ])
        #expect(h.sink.take(conn(1)).isEmpty, "the dropper gets only its ack")
        #expect(await h.room.liveDrags.isEmpty)
        #expect(await h.snapshot.board.checkInvariants().isEmpty)
    }

    @Test("moving a card from caches to found (the two-collection demo)")
    func moveBetweenCollections() async throws {
        let (h, _, _) = try await twoEditors()
        await h.dragBegin(conn(1), "d1", [h.gc(3)])
        let ack = try #require(
            await h.drop(conn(1), "d1", opId: "o1", at: h.at(h.found, h.foundSection, 0, before: h.gc(9))))
        let change = try #require(ack.outcome.committed?.effect.changes.first)
        #expect(change.from == Position(collection: h.caches, section: h.toFind, index: 2))
        #expect(change.to == Position(collection: h.found, section: h.foundSection, index: 0))
        #expect(await h.items(h.foundSection) == [3, 9, 10].map(h.gc))
        #expect(await h.items(h.toFind) == [1, 2, 4, 5, 6, 7, 8].map(h.gc))
    }

    @Test("R3: items added mid-drag land contiguously in drag order, even beside another drop at the same spot")
    func multiItemDragWithDragAdd() async throws {
        let (h, ada, _) = try await twoEditors()
        await h.dragBegin(conn(1), "d1", [h.gc(5)])
        let added = try #require(
            await {
                await h.send(conn(1), .dragAdd(.init(ref: "add1", session: "d1", items: [h.gc(2), h.gc(7), h.gc(5)])))
                return h.sink.take(conn(1)).compactMap(\.dragGranted).first
            }())
        #expect(added.ref == "add1")
        #expect(Set(added.granted) == Set([h.gc(5), h.gc(2), h.gc(7)]), "an item already held is reported granted")
        let peer = h.sink.take(conn(2))
        #expect(peer.last == .dragItems(.init(session: "d1", member: ada.id, items: [5, 2, 7].map(h.gc))))

        // Grace drags two other cards; both drops target the gap after gc9, in one batch.
        await h.dragBegin(conn(2), "g1", [h.gc(8), h.gc(1)])
        let destination = h.at(h.found, h.foundSection, 1, after: h.gc(9), before: h.gc(10))
        await h.process(
            .message(conn(1), .drop(.init(session: "d1", opId: "o1", base: 0, destination: destination))),
            .message(conn(2), .drop(.init(session: "g1", opId: "o2", base: 0, destination: destination))))
        #expect(await h.items(h.foundSection) == [9, 8, 1, 5, 2, 7, 10].map(h.gc))
        let adaAck = try #require(h.sink.take(conn(1)).compactMap(\.ack).first)
        #expect(adaAck.outcome.committed?.effect.changes.map(\.to?.index) == [1, 2, 3])
        #expect(await h.snapshot.board.checkInvariants().isEmpty)
    }

    @Test("R6: a copy drop makes new items with ids derived from the opId; the originals stay")
    func copyDrop() async throws {
        let (h, _, _) = try await twoEditors()
        await h.dragBegin(conn(1), "d1", [h.gc(1), h.gc(2)])
        let ack = try #require(
            await h.drop(conn(1), "d1", opId: "c1", at: h.at(h.found, h.foundSection, 2), copy: true))
        let copies = [0, 1].map { Board.derivedID(clientId: "client-1", opId: "c1", n: $0) }
        #expect(ack.outcome.committed?.effect.changes.map(\.item) == copies)
        #expect(await h.items(h.foundSection) == [h.gc(9), h.gc(10)] + copies)
        #expect(await h.items(h.toFind) == (1...8).map(h.gc))
        let board = await h.snapshot.board
        #expect(board.item(copies[0])?.representations == board.item(h.gc(1))?.representations)
        #expect(h.sink.take(conn(2)).compactMap(\.op).map(\.op.kind) == ["copy"])
    }

    @Test("R5: a text note over the caches is proposed forbidden and its drop rejected; nothing changes")
    func forbiddenType() async throws {
        let (h, _, _) = try await twoEditors()
        await h.dragBegin(conn(1), "d1", [h.note])
        await h.send(
            conn(1),
            .dropUpdate(
                .init(ref: "u1", session: "d1", target: DragTarget(collection: h.caches, section: h.toFind, index: 0))))
        let proposal = try #require(h.sink.take(conn(1)).compactMap(\.proposal).first)
        #expect(proposal.ref == "u1")
        #expect(proposal.proposal.operation == .forbidden)
        let ack = try #require(await h.drop(conn(1), "d1", opId: "o1", at: h.at(h.caches, h.toFind, 0)))
        #expect(ack.outcome.rejectCode == .forbidden)
        #expect(await h.room.head == 0)
        #expect(h.sink.take(conn(2)).compactMap(\.op).isEmpty)

        // An insert of text into the caches is refused the same way.
        let insert = BoardOperation.insert(
            .init(
                items: [NewItem(representations: [Representation(type: "public.plain-text", value: "hi")])],
                destination: h.at(h.caches, h.toFind, 0)))
        #expect(await h.submit(conn(1), insert, opId: "i1")?.outcome.rejectCode == .forbidden)

        // setAccepts changes what found takes: after it, a card is forbidden there.
        let set = await h.submit(conn(1), .setAccepts(.init(collection: h.found, accepts: ["public.url"])), opId: "s1")
        #expect(set?.outcome.committed?.seq == 1)
        await h.dragBegin(conn(1), "d2", [h.gc(1)])
        await h.send(
            conn(1),
            .dropUpdate(
                .init(session: "d2", target: DragTarget(collection: h.found, section: h.foundSection, index: 0))))
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).first?.proposal.operation == .forbidden)
        #expect(
            await h.drop(conn(1), "d2", opId: "o2", at: h.at(h.found, h.foundSection, 0))?.outcome.rejectCode
                == .forbidden)
        #expect(await h.room.head == 1)
    }

    @Test("a viewer drags without a lease; its proposals are forbidden and its drop is rejected read-only")
    func viewerDrag() async throws {
        let h = RoomHarness()
        let viewer = try #require(await h.join(conn(1), key: "view-key")).member
        await h.join(conn(2))
        let grant = try #require(await h.dragBegin(conn(1), "v1", [h.gc(1)]))
        #expect(grant.granted == [h.gc(1)])
        #expect(h.sink.take(conn(2)).first?.dragStarted?.member == viewer.id)
        await h.send(
            conn(1),
            .dropUpdate(
                .init(session: "v1", target: DragTarget(collection: h.found, section: h.foundSection, index: 0))))
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).first?.proposal.operation == .forbidden)
        // No lease: an editor may drag the same card at once.
        #expect(await h.dragBegin(conn(2), "e1", [h.gc(1)])?.granted == [h.gc(1)])
        let ack = try #require(await h.drop(conn(1), "v1", opId: "v-op", at: h.at(h.found, h.foundSection, 0)))
        #expect(ack.outcome.rejectCode == .readOnly)
        #expect(await h.room.head == 0)
        #expect(
            h.sink.take(conn(2)).compactMap(\.dragEnded) == [.init(session: "v1", member: viewer.id, reason: .dropped)])
    }

    @Test("R7: dropping into an item makes it a group; dropping a group into itself or its child is a cycle")
    func dropIntoGroupAndCycle() async throws {
        let (h, _, _) = try await twoEditors()
        await h.dragBegin(conn(1), "d1", [h.gc(1), h.gc(3)])
        await h.send(
            conn(1),
            .dropUpdate(
                .init(
                    session: "d1",
                    target: DragTarget(
                        collection: h.caches, section: h.toFind, index: 1, intent: .insertIntoDestinationIndexPath))))
        let proposal = try #require(h.sink.take(conn(1)).compactMap(\.proposal).first?.proposal)
        #expect(proposal == Proposal(operation: .move, intent: .insertIntoDestinationIndexPath))
        let ack = try #require(
            await h.drop(conn(1), "d1", opId: "o1", at: .into(h.gc(2), collection: h.caches, section: h.toFind)))
        #expect(ack.outcome.committed != nil)
        var board = await h.snapshot.board
        #expect(board.children(of: h.gc(2)) == [h.gc(1), h.gc(3)])
        #expect(board.itemIDs(in: h.toFind) == [2, 4, 5, 6, 7, 8].map(h.gc))

        // The group over itself: proposed forbidden, dropped: cycle.
        await h.dragBegin(conn(1), "d2", [h.gc(2)])
        await h.send(
            conn(1),
            .dropUpdate(
                .init(
                    session: "d2",
                    target: DragTarget(
                        collection: h.caches, section: h.toFind, index: 0, intent: .insertIntoDestinationIndexPath))))
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).first?.proposal.operation == .forbidden)
        let into = await h.drop(conn(1), "d2", opId: "o2", at: .into(h.gc(2), collection: h.caches, section: h.toFind))
        #expect(into?.outcome.rejectCode == .cycle)
        await h.dragBegin(conn(1), "d3", [h.gc(2)])
        let intoChild = await h.drop(
            conn(1), "d3", opId: "o3", at: .into(h.gc(1), collection: h.caches, section: h.toFind))
        #expect(intoChild?.outcome.rejectCode == .cycle)
        board = await h.snapshot.board
        #expect(await h.room.head == 1)
        #expect(board.checkInvariants().isEmpty)
    }

    @Test("R9: an item leased to another drag is refused naming the holder, and moving it is rejected locked")
    func leaseRefusal() async throws {
        let (h, ada, _) = try await twoEditors()
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        let grant = try #require(await h.dragBegin(conn(2), "g1", [h.gc(1), h.gc(2)]))
        #expect(grant.granted == [h.gc(2)])
        let refusal = try #require(grant.refused.first)
        #expect(refusal.item == h.gc(1))
        #expect(refusal.code == .locked)
        #expect(refusal.message.contains(ada.name))
        let ack = try #require(
            await h.submit(
                conn(2), .move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0))), opId: "m1"))
        #expect(ack.outcome.rejectCode == .locked)
        #expect(ack.outcome.rejection?.message.contains(ada.name) == true)
        let delete = await h.submit(conn(2), .delete(.init(items: [h.gc(1)])), opId: "m2")
        #expect(delete?.outcome.rejectCode == .locked)
        #expect(await h.room.head == 0)
        // The lease holder's own submit naming its session may move it.
        let own = await h.submit(
            conn(1), .move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0), session: "d1")),
            opId: "own")
        #expect(own?.outcome.committed?.seq == 1)
    }

    @Test("R9: a drag quiet for longer than the lease period expires; peers see dragEnded expired")
    func leaseExpiry() async throws {
        let (h, ada, _) = try await twoEditors()
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        _ = h.sink.take(conn(2))
        h.clock.advance(by: .seconds(10))
        await h.send(
            conn(1),
            .dropUpdate(
                .init(session: "d1", target: DragTarget(collection: h.found, section: h.foundSection, index: 0))))
        h.clock.advance(by: .seconds(10))
        await h.process(.sweep)
        #expect(await h.room.liveDrags.count == 1, "activity 10 s ago: still live")
        #expect(await h.dragBegin(conn(2), "g1", [h.gc(1)])?.refused.first?.code == .locked)
        h.clock.advance(by: .seconds(5.5))
        await h.process(.sweep)
        #expect(await h.room.liveDrags.isEmpty)
        #expect(
            h.sink.take(conn(2)).compactMap(\.dragEnded) == [.init(session: "d1", member: ada.id, reason: .expired)])
        #expect(await h.dragBegin(conn(2), "g2", [h.gc(1)])?.granted == [h.gc(1)])
        // The expired session is gone for its owner.
        await h.send(conn(1), .dragEnd(.init(ref: "e1", session: "d1")))
        let error = try #require(h.sink.take(conn(1)).compactMap(\.error).first)
        #expect(error.code == .unknownSession)
        #expect(error.ref == "e1")
    }

    @Test("cancel and disconnect end drags with their reasons and release the lease")
    func cancelAndDisconnect() async throws {
        let (h, ada, _) = try await twoEditors()
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        await h.send(conn(1), .dragEnd(.init(session: "d1")))
        await h.dragBegin(conn(1), "d2", [h.gc(2)])
        await h.process(.leave(conn(1)))
        let ended = h.sink.take(conn(2)).compactMap(\.dragEnded)
        #expect(
            ended == [
                .init(session: "d1", member: ada.id, reason: .cancelled),
                .init(session: "d2", member: ada.id, reason: .disconnected),
            ])
        #expect(await h.dragBegin(conn(2), "g1", [h.gc(1), h.gc(2)])?.granted == [h.gc(1), h.gc(2)])
    }

    @Test("ordered operations: resending an opId returns the first ack and broadcasts nothing")
    func duplicateOpId() async throws {
        let (h, _, _) = try await twoEditors()
        let move = BoardOperation.move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0)))
        let first = try #require(await h.submit(conn(1), move, opId: "o1"))
        #expect(first.outcome.committed?.seq == 1)
        #expect(h.sink.take(conn(2)).compactMap(\.op).count == 1)
        let again = try #require(await h.submit(conn(1), move, opId: "o1"))
        #expect(again.outcome == first.outcome)
        #expect(await h.room.head == 1)
        #expect(h.sink.take(conn(2)).isEmpty)

        // R14: another operation under the used opId is refused, not answered with the first ack.
        let other = BoardOperation.move(.init(items: [h.gc(2)], destination: h.at(h.found, h.foundSection, 0)))
        let reused = try #require(await h.submit(conn(1), other, opId: "o1"))
        #expect(reused.outcome.rejection?.code == .conflict)
        #expect(reused.outcome.rejection?.message.contains("o1") == true)
        #expect(await h.room.head == 1)
        #expect(await h.items(h.toFind).first == h.gc(2))
        #expect(h.sink.take(conn(2)).isEmpty)

        // A drop resent after its session ended gets its first ack too.
        await h.dragBegin(conn(1), "d1", [h.gc(3)])
        let drop = try #require(await h.drop(conn(1), "d1", opId: "o2", at: h.at(h.found, h.foundSection, 0)))
        _ = h.sink.take(conn(2))
        let resent = try #require(
            await h.drop(conn(1), "d1", opId: "o2", at: h.at(h.found, h.foundSection, 0), base: 1))
        #expect(resent.outcome == drop.outcome)
        #expect(await h.room.head == 2)
        #expect(h.sink.take(conn(2)).isEmpty)
        // A rejected operation resent is answered with the same rejection.
        let bad = BoardOperation.move(.init(items: [h.note], destination: h.at(h.caches, h.toFind, 0)))
        let rejected = await h.submit(conn(1), bad, opId: "o3")
        #expect(rejected?.outcome.rejectCode == .forbidden)
        #expect(await h.submit(conn(1), bad, opId: "o3")?.outcome == rejected?.outcome)
    }

    @Test(
        "peers see dragStarted, each batch's latest dragHover per session as the batch ends (not busy), and dragEnded"
    )
    func hoverCoalescing() async throws {
        let (h, ada, grace) = try await twoEditors()
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        #expect(h.sink.take(conn(2)) == [.dragStarted(DragState(session: "d1", member: ada.id, items: [h.gc(1)]))])
        await h.dragBegin(conn(2), "g1", [h.gc(2)])
        #expect(h.sink.take(conn(1)) == [.dragStarted(DragState(session: "g1", member: grace.id, items: [h.gc(2)]))])

        // One hover a batch, a tick apart: the dragger gets its proposal and the peer its hover,
        // without waiting for the tick.
        for index in 0..<2 {
            h.clock.advance(by: .milliseconds(33))
            let target = DragTarget(collection: h.found, section: h.foundSection, index: index)
            await h.send(conn(1), .dropUpdate(.init(ref: "u\(index)", session: "d1", target: target)))
            let answer = h.sink.take(conn(1))
            #expect(answer.count == 1, "the dragger gets its proposal at once")
            #expect(answer.first?.proposal?.target == target)
            #expect(answer.first?.proposal?.ref == "u\(index)")
            #expect(answer.first?.proposal?.proposal.operation == .move)
            let seen = h.sink.take(conn(2)).compactMap(\.dragHover)
            #expect(seen.map(\.target) == [target], "the peer sees the hover as its batch ends")
            #expect(seen.first?.member == ada.id)
        }
        /// Ada's hover of d1 over index `index` of found, as an event of a batch.
        func adaHovers(_ index: Int) -> RoomEvent {
            .message(
                conn(1),
                .dropUpdate(
                    .init(session: "d1", target: DragTarget(collection: h.found, section: h.foundSection, index: index))
                ))
        }
        // Several hovers of one drag in one batch: the dragger gets each answer, peers only the last.
        h.clock.advance(by: .milliseconds(33))
        await h.process(adaHovers(2), adaHovers(3))
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).map(\.target.index) == [2, 3])
        let hovers = h.sink.take(conn(2))
        #expect(hovers.count == 1)
        let hover = try #require(hovers.first?.dragHover)
        #expect(hover.session == "d1")
        #expect(hover.member == ada.id)
        #expect(hover.target == DragTarget(collection: h.found, section: h.foundSection, index: 3))
        #expect(hover.proposal.operation == .move)
        let graceTarget = DragTarget(collection: h.caches, section: h.toFind, index: 5)
        h.clock.advance(by: .milliseconds(9))  // past the room's hover window
        await h.send(conn(2), .dropUpdate(.init(session: "g1", target: graceTarget)))
        #expect(h.sink.take(conn(1)).compactMap(\.dragHover).map(\.session) == ["g1"])
        #expect(h.sink.take(conn(2)).compactMap(\.proposal).map(\.target) == [graceTarget])

        // The tick that follows checks backlogs (R11) but sends nothing already sent.
        await h.process(.tick)
        #expect(h.sink.take(conn(2)).isEmpty, "nothing changed: no hover")
        #expect(h.sink.take(conn(1)).isEmpty)

        // A hover dropped within its batch is not sent after the drop.
        await h.process(
            adaHovers(1),
            .message(
                conn(1),
                .drop(
                    .init(
                        ref: "ref-o1", session: "d1", opId: "o1", base: 0,
                        destination: h.at(h.found, h.foundSection, 1)))))
        #expect(h.sink.take(conn(1)).compactMap(\.ack).count == 1)
        await h.process(.tick)
        let after = h.sink.take(conn(2))
        #expect(after.map(\.type) == ["op", "dragEnded"])
        #expect(after.last?.dragEnded == .init(session: "d1", member: ada.id, reason: .dropped, seq: 1))
        // The live drag of the welcome carries its latest hover.
        let late = try #require(await h.join(conn(3)))
        #expect(late.drags.first?.target == graceTarget)
    }

    @Test("cursor and presence are coalesced per member per tick")
    func cursorAndPresence() async throws {
        let (h, ada, _) = try await twoEditors()
        await h.send(conn(1), .cursor(.init(x: 1, y: 2)))
        await h.send(conn(1), .cursor(.init(x: 3, y: 4, collection: h.found)))
        await h.send(conn(1), .presence(.init(state: .idle)))
        await h.send(conn(1), .presence(.init(state: .away)))
        #expect(h.sink.take(conn(2)).isEmpty)
        await h.process(.tick)
        #expect(
            h.sink.take(conn(2)) == [
                .cursor(.init(member: ada.id, x: 3, y: 4, collection: h.found)),
                .presence(.init(member: ada.id, state: .away)),
            ])
        #expect(h.sink.take(conn(1)).isEmpty)
    }

    @Test("R16: a cursor dragging a checklist item carries it to peers, the latest per tick; a viewer's does not")
    func checklistDragProposal() async throws {
        let (h, ada, _) = try await twoEditors()
        try #require(await h.join(conn(3), name: "Vi", key: "view-key") != nil)
        _ = h.sink.take(conn(2))
        let lifted = ChecklistDrag(item: h.gc(1), checklist: "k1", entry: "e1")
        let landing = ChecklistDrag(item: h.gc(1), checklist: "k1", entry: "e1", index: 2)
        await h.send(conn(1), .cursor(.init(x: 1, y: 2, checklist: lifted)))
        await h.send(conn(1), .cursor(.init(x: 1, y: 9, checklist: landing)))
        await h.send(conn(3), .cursor(.init(x: 5, y: 5, checklist: landing)))
        await h.process(.tick)
        let seen = h.sink.take(conn(2)).compactMap { message -> ServerMessage.CursorMessage? in
            if case .cursor(let cursor) = message { return cursor }
            return nil
        }
        #expect(seen.first { $0.member == ada.id }?.checklist == landing)
        #expect(seen.contains { $0.member != ada.id && $0.checklist == nil })
        // The drag ends with a cursor that carries none.
        await h.send(conn(1), .cursor(.init(x: 1, y: 9)))
        await h.process(.tick)
        #expect(h.sink.take(conn(2)).contains(.cursor(.init(member: ada.id, x: 1, y: 9))))
    }

    @Test("R16 + R17: an admin's checklist drag reaches peers like an editor's; a commenter's carries none")
    func checklistDragByRole() async throws {
        let (h, _, _) = try await twoEditors()
        let admin = try #require(await h.join(conn(3), name: "Ad", key: "admin-key"))
        let commenter = try #require(await h.join(conn(4), name: "Co", key: "comment-key"))
        _ = h.sink.take(conn(2))
        let landing = ChecklistDrag(item: h.gc(1), checklist: "k1", entry: "e1", index: 1)
        await h.send(conn(3), .cursor(.init(x: 1, y: 2, checklist: landing)))
        await h.send(conn(4), .cursor(.init(x: 3, y: 4, checklist: landing)))
        await h.process(.tick)
        let seen = h.sink.take(conn(2)).compactMap { message -> ServerMessage.CursorMessage? in
            if case .cursor(let cursor) = message { return cursor }
            return nil
        }
        #expect(seen.first { $0.member == admin.member.id }?.checklist == landing)
        #expect(seen.first { $0.member == commenter.member.id }.map { $0.checklist == nil } == true)
    }

    @Test("R3: an item named twice in dragBegin or dragAdd is dragged once, and the drop commits")
    func duplicateItemsInDrag() async throws {
        let (h, _, _) = try await twoEditors()
        let grant = try #require(await h.dragBegin(conn(1), "d1", [h.gc(1), h.gc(1)]))
        #expect(grant.granted == [h.gc(1)])
        await h.send(conn(1), .dragAdd(.init(session: "d1", items: [h.gc(2), h.gc(2), h.gc(1)])))
        #expect(await h.room.liveDrags.first?.items == [h.gc(1), h.gc(2)])
        let ack = try #require(await h.drop(conn(1), "d1", opId: "o1", at: h.at(h.found, h.foundSection, 0)))
        #expect(ack.outcome.committed != nil, "\(ack.outcome)")
        #expect(await h.items(h.foundSection) == [1, 2, 9, 10].map(h.gc))
    }

    @Test("a member may hold at most 16 live drags; a session id cannot begin twice")
    func dragLimits() async throws {
        let h = RoomHarness()
        await h.join(conn(1))
        for n in 1...16 { await h.dragBegin(conn(1), "d\(n)", [], external: [["public.url"]]) }
        #expect(await h.room.liveDrags.count == 16)
        await h.send(conn(1), .dragBegin(.init(ref: "17", session: "d17", items: [], external: [["public.url"]])))
        let tooMany = try #require(h.sink.take(conn(1)).first?.error)
        #expect(tooMany.code == .invalidField)
        #expect(tooMany.field == "session")
        #expect(tooMany.ref == "17")
        await h.send(conn(1), .dragBegin(.init(ref: "again", session: "d1", items: [h.gc(1)])))
        let again = try #require(h.sink.take(conn(1)).first?.error)
        #expect(again.code == .invalidField)
        #expect(again.ref == "again")
        #expect(await h.room.liveDrags.count == 16)
    }

    @Test("a placeholder cannot be dragged nor dropped into (R7, R8)")
    func placeholderIsNoTargetNorDraggable() async throws {
        let (h, _, _) = try await twoEditors()
        let ack = await h.submit(
            conn(1), .insertPlaceholder(.init(destination: h.at(h.caches, h.toFind, 0))), opId: "p1")
        #expect(ack?.outcome.committed?.seq == 1)
        let placeholder = Board.derivedID(clientId: "client-1", opId: "p1", n: 0)
        let grant = try #require(await h.dragBegin(conn(2), "g1", [placeholder, h.gc(1)]))
        #expect(grant.granted == [h.gc(1)])
        #expect(grant.refused.map(\.code) == [.forbidden])
        await h.send(
            conn(2),
            .dropUpdate(
                .init(
                    session: "g1",
                    target: DragTarget(
                        collection: h.caches, section: h.toFind, index: 0, intent: .insertIntoDestinationIndexPath))))
        #expect(h.sink.take(conn(2)).compactMap(\.proposal).first?.proposal.operation == .forbidden)
        let drop = await h.drop(
            conn(2), "g1", opId: "g-op", at: .into(placeholder, collection: h.caches, section: h.toFind))
        #expect(drop?.outcome.rejectCode == .forbidden)
        #expect(await h.room.head == 1)
    }
}
