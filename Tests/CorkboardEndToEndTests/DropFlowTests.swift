import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardTesting
import Testing

/// Drags and drops over real sockets: one `BoardService`, clients on loopback, each flow checked
/// on the dragger, a peer and the room (semantics.md rules cited per test).
@Suite("Drop flows end to end")
struct DropFlowTests {
    let ids = DemoIDs(board: "b1")

    /// `client` drags card `n`, hovers over `destination` (where the room must propose a move)
    /// and drops it there; returns the committed move.
    private func dragAndMove(
        _ client: BoardConnection, card n: Int, to destination: Destination
    ) async throws -> CommittedOperation {
        _ = try await client.beginDrag(session: "d1", items: [ids.gc(n)])
        let proposal = try await client.hover(
            session: "d1",
            target: DragTarget(
                collection: destination.collection, section: destination.section, index: destination.index))
        #expect(proposal.proposal.operation == .move)
        let ack = try await client.drop(session: "d1", destination: destination)
        return try #require(ack.outcome.committed)
    }

    @Test("R3: a reorder lands at its anchors, even when a peer shifted the indexes first")
    func reorderInCollection() async throws {
        try await withAdaAndBob { server, ada, bob, room in

            // Without gc2 the section is gc1 gc3 gc4 gc5 | gc6 gc7 gc8: the gap at 4 is after gc5.
            let committed = try await dragAndMove(
                ada, card: 2,
                to: Destination(
                    collection: ids.caches, section: ids.toFind, index: 4, after: ids.gc(5), before: ids.gc(6)))
            #expect(committed.effect.changes.map(\.to?.index) == [4])
            let expected = ids.cards(1, 3, 4, 5, 2, 6, 7, 8)
            #expect(ada.items(in: ids.toFind) == expected)
            try await bob.wait("Bob applies seq \(committed.seq)") { $0.replica.confirmedSeq >= committed.seq }
            #expect(bob.items(in: ids.toFind) == expected)

            // Ada means "right after gc3" (index 1 on her screen); Bob takes gc1 away first, so
            // index 1 is stale but the `after` anchor still decides (R3).
            _ = try await ada.beginDrag(session: "d2", items: [ids.gc(8)])
            _ = try await bob.beginDrag(session: "b1", items: [ids.gc(1)])
            _ = try await bob.drop(
                session: "b1",
                destination: Destination(collection: ids.found, section: ids.foundSection, index: 2, after: ids.gc(10)))
            let second = try await ada.drop(
                session: "d2",
                destination: Destination(
                    collection: ids.caches, section: ids.toFind, index: 2, after: ids.gc(3), before: ids.gc(4)))
            #expect(second.outcome.committed != nil)
            #expect(ada.items(in: ids.toFind) == ids.cards(3, 8, 4, 5, 2, 6, 7))
            try await expectInStep(ada, with: room)
            try await expectInStep(bob, with: room)
        }
    }

    @Test("R3, R5: a move between collections accepting the item's type")
    func moveBetweenCollections() async throws {
        try await withAdaAndBob { server, ada, bob, room in

            let committed = try await dragAndMove(
                ada, card: 1,
                to: Destination(
                    collection: ids.found, section: ids.foundSection, index: 1, after: ids.gc(9), before: ids.gc(10)))
            let change = try #require(committed.effect.changes.first)
            #expect(change.from == Position(collection: ids.caches, section: ids.toFind, index: 0))
            #expect(change.to == Position(collection: ids.found, section: ids.foundSection, index: 1))

            let seen = try await bob.wait("Bob sees the move") { $0.replica.confirmedSeq >= committed.seq }
            #expect(seen.replica.confirmed.itemIDs(in: ids.foundSection) == ids.cards(9, 1, 10))
            #expect(seen.replica.confirmed.itemIDs(in: ids.toFind) == ids.cards(2, 3, 4, 5, 6, 7, 8))
            let op = try #require(bob.received { if case .op(let c) = $0 { c } else { nil } }.last)
            #expect(op == committed)
            try await expectInStep(ada, with: room)
            try await expectInStep(bob, with: room)
        }
    }

    @Test("R3: a multi-item drag with items added mid-drag lands contiguously in drag order")
    func multiItemDragWithAdds() async throws {
        try await withAdaAndBob { server, ada, bob, room in
            let adaID = try #require(ada.member?.id)

            _ = try await ada.beginDrag(session: "multi", items: [ids.gc(5)])
            try await bob.wait("Bob sees Ada's drag start") {
                $0.drag(member: adaID, session: "multi")?.items == [ids.gc(5)]
            }
            let added = try await ada.addToDrag(session: "multi", items: [ids.gc(1), ids.gc(3)])
            #expect(added.granted == ids.cards(1, 3))
            try await bob.wait("Bob sees the items Ada added") {
                $0.drag(member: adaID, session: "multi")?.items == [ids.gc(5), ids.gc(1), ids.gc(3)]
            }

            // Bob drops at the very spot first: after gc9 in found.
            _ = try await bob.beginDrag(session: "bob", items: [ids.gc(7)])
            let bobDrop = try await bob.drop(
                session: "bob",
                destination: Destination(
                    collection: ids.found, section: ids.foundSection, index: 1, after: ids.gc(9), before: ids.gc(10)))
            #expect(bobDrop.outcome.committed != nil)

            let ack = try await ada.drop(
                session: "multi",
                destination: Destination(
                    collection: ids.found, section: ids.foundSection, index: 1, after: ids.gc(9), before: ids.gc(10)))
            let committed = try #require(ack.outcome.committed)
            #expect(committed.effect.changes.map(\.to?.index) == [1, 2, 3])
            #expect(ada.items(in: ids.foundSection) == ids.cards(9, 5, 1, 3, 7, 10))
            #expect(ada.items(in: ids.toFind) == ids.cards(2, 4, 6, 8))
            try await bob.wait("Bob sees Ada's drop end") { $0.drag(member: adaID, session: "multi") == nil }
            try await expectInStep(ada, with: room)
            try await expectInStep(bob, with: room)
        }
    }

    @Test("R6: a copy makes new items with ids derived from the opId and the same representations")
    func copyDrop() async throws {
        try await withAdaAndBob { server, ada, bob, room in
            let clientId = try #require(ada.clientId)

            _ = try await ada.beginDrag(session: "c", items: [ids.gc(2), ids.gc(4)])
            let proposal = try await ada.hover(
                session: "c", target: DragTarget(collection: ids.found, section: ids.foundSection, index: 0),
                copy: true)
            #expect(proposal.proposal.operation == .copy)
            let ack = try await ada.drop(
                session: "c",
                destination: Destination(collection: ids.found, section: ids.foundSection, index: 0, before: ids.gc(9)),
                copy: true, opId: "copy-1")
            let committed = try #require(ack.outcome.committed)
            let copies = [0, 1].map { Board.derivedID(clientId: clientId, opId: "copy-1", n: $0) }
            #expect(committed.effect.changes.map(\.item) == copies)
            #expect(ada.items(in: ids.foundSection) == copies + ids.cards(9, 10))
            #expect(ada.items(in: ids.toFind) == ids.cards(1, 2, 3, 4, 5, 6, 7, 8))

            let seen = try await bob.wait("Bob sees the copies") { $0.replica.confirmedSeq >= committed.seq }
            let board = seen.replica.confirmed
            #expect(board.item(copies[0])?.representations == board.item(ids.gc(2))?.representations)
            #expect(board.item(copies[1])?.representations == board.item(ids.gc(4))?.representations)
            try await expectInStep(ada, with: room)
            try await expectInStep(bob, with: room)
        }
    }

    @Test("R5: a type the collection does not accept is forbidden; a viewer may not change the board")
    func forbiddenDrops() async throws {
        try await withServer { server in
            let ada = try await server.connect("b1", name: "Ada")
            let viewer = try await server.connect("b1", name: "Vic", key: BoardSpec.viewKey("b1"))
            let room = try server.room("b1")
            #expect(viewer.member?.role == .viewer)
            let before = await room.snapshot

            // The note is plain text; the caches collection accepts only corkboard.card.
            _ = try await ada.beginDrag(session: "n", items: [ids.note])
            let proposal = try await ada.hover(
                session: "n", target: DragTarget(collection: ids.caches, section: ids.toFind, index: 0))
            #expect(proposal.proposal.operation == .forbidden)
            #expect(proposal.proposal.reason?.contains("corkboard.card") == true)
            let ack = try await ada.drop(
                session: "n", destination: Destination(collection: ids.caches, section: ids.toFind, index: 0))
            #expect(ack.outcome.rejection?.code == .forbidden)
            #expect(ada.replica.pending.isEmpty)
            #expect(ada.replica.view == before.board)

            // A viewer drags without a lease (Ada can still take the card) and cannot drop.
            let granted = try await viewer.beginDrag(session: "v", items: [ids.gc(1)])
            #expect(granted.granted == [ids.gc(1)])
            let adaGrant = try await ada.beginDrag(session: "a", items: [ids.gc(1)])
            #expect(adaGrant.granted == [ids.gc(1)])
            ada.endDrag(session: "a")
            let viewerProposal = try await viewer.hover(
                session: "v", target: DragTarget(collection: ids.found, section: ids.foundSection, index: 0))
            #expect(viewerProposal.proposal.operation == .forbidden)
            let viewerDrop = try await viewer.drop(
                session: "v", destination: Destination(collection: ids.found, section: ids.foundSection, index: 0))
            #expect(viewerDrop.outcome.rejection?.code == .readOnly)
            let viewerMove = try await viewer.perform(ids.toFound(2))
            #expect(viewerMove.rejection?.code == .readOnly)

            #expect(await room.snapshot == before)
            try await expectInStep(viewer, with: room)
            try await expectInStep(ada, with: room)
        }
    }

    @Test("R7: dropping into an item makes it a group and appends in drag order")
    func dropIntoGroup() async throws {
        try await withAdaAndBob { server, ada, bob, room in

            _ = try await ada.beginDrag(session: "g1", items: [ids.gc(2)])
            let proposal = try await ada.hover(
                session: "g1",
                target: DragTarget(
                    collection: ids.caches, section: ids.toFind, index: 0, intent: .insertIntoDestinationIndexPath))
            #expect(proposal.proposal == Proposal(operation: .move, intent: .insertIntoDestinationIndexPath))
            let first = try await ada.drop(
                session: "g1", destination: .into(ids.gc(1), collection: ids.caches, section: ids.toFind))
            #expect(first.outcome.committed != nil)

            _ = try await ada.beginDrag(session: "g2", items: [ids.gc(5)])
            _ = try await ada.addToDrag(session: "g2", items: [ids.gc(4)])
            let second = try await ada.drop(
                session: "g2", destination: .into(ids.gc(1), collection: ids.caches, section: ids.toFind))
            let committed = try #require(second.outcome.committed)
            #expect(
                committed.effect.changes.map(\.to) == [
                    Position(collection: ids.caches, section: ids.toFind, group: ids.gc(1), index: 1),
                    Position(collection: ids.caches, section: ids.toFind, group: ids.gc(1), index: 2),
                ])

            let seen = try await bob.wait("Bob sees the group") { $0.replica.confirmedSeq >= committed.seq }
            #expect(seen.replica.confirmed.children(of: ids.gc(1)) == ids.cards(2, 5, 4))
            #expect(seen.replica.confirmed.itemIDs(in: ids.toFind) == ids.cards(1, 3, 6, 7, 8))
            try await expectInStep(ada, with: room)
            try await expectInStep(bob, with: room)
        }
    }

    @Test("R7: dropping a group into itself or into its own child is rejected as a cycle")
    func cycleRejected() async throws {
        try await withServer { server in
            let ada = try await server.connect("b1", name: "Ada")
            let room = try server.room("b1")
            _ = try await ada.beginDrag(session: "g", items: [ids.gc(2)])
            _ = try await ada.drop(
                session: "g", destination: .into(ids.gc(1), collection: ids.caches, section: ids.toFind))
            let before = await room.snapshot

            _ = try await ada.beginDrag(session: "cycle", items: [ids.gc(1)])
            let proposal = try await ada.hover(
                session: "cycle",
                target: DragTarget(
                    collection: ids.caches, section: ids.toFind, index: 0, intent: .insertIntoDestinationIndexPath))
            #expect(proposal.proposal.operation == .forbidden)
            let intoChild = try await ada.drop(
                session: "cycle", destination: .into(ids.gc(2), collection: ids.caches, section: ids.toFind))
            #expect(intoChild.outcome.rejection?.code == .cycle)

            _ = try await ada.beginDrag(session: "self", items: [ids.gc(1)])
            let intoSelf = try await ada.drop(
                session: "self", destination: .into(ids.gc(1), collection: ids.caches, section: ids.toFind))
            #expect(intoSelf.outcome.rejection?.code == .cycle)

            #expect(await room.snapshot == before)
            try await expectInStep(ada, with: room)
        }
    }

    @Test("R6: a move and a copy to another board of the server; a bad key moves nothing")
    func crossBoardDrops() async throws {
        try await withServer([.demo("b1"), .demo("b2")]) { server in
            let ada = try await server.connect("b1", name: "Ada")
            let cat = try await server.connect("b2", name: "Cat")
            let (room1, room2) = (try server.room("b1"), try server.room("b2"))
            let other = DemoIDs(board: "b2")
            let there = Destination(collection: other.found, section: other.foundSection, index: 0, before: other.gc(9))

            _ = try await ada.beginDrag(session: "x", items: [ids.gc(1)])
            let target = DragTarget(board: "b2", collection: other.found, section: other.foundSection, index: 0)
            let refused = try await ada.hover(session: "x", target: target, key: BoardSpec.viewKey("b2"))
            #expect(refused.proposal.operation == .forbidden)
            let proposal = try await ada.hover(session: "x", target: target, key: BoardSpec.editKey("b2"))
            #expect(proposal.proposal.operation == .move)
            let ack = try await ada.drop(
                session: "x", destination: there, board: "b2", key: BoardSpec.editKey("b2"), opId: "across")
            #expect(ack.board == "b2")
            let committed = try #require(ack.outcome.committed)
            #expect(committed.op.kind == "insert")

            let seen = try await cat.wait("Cat sees the card arrive") { $0.replica.confirmedSeq >= committed.seq }
            #expect(seen.replica.confirmed.itemIDs(in: other.foundSection) == [ids.gc(1), other.gc(9), other.gc(10)])
            try await ada.wait("Ada sees the card leave") { !$0.replica.confirmed.contains(ids.gc(1)) }
            let moveOut = ada.received { if case .op(let c) = $0, c.opId == "across@to:b2" { c } else { nil } }
            #expect(moveOut.map(\.op.kind) == ["moveOut"])

            // A view key opens b2 for viewing only: the drop is refused and the card stays on b1.
            _ = try await ada.beginDrag(session: "y", items: [ids.gc(2)])
            let bad = try await ada.drop(session: "y", destination: there, board: "b2", key: BoardSpec.viewKey("b2"))
            #expect(bad.outcome.rejection?.code == .readOnly)
            #expect(await room1.snapshot.board.contains(ids.gc(2)))

            // A copy leaves the original and makes a derived id on the other board.
            _ = try await ada.beginDrag(session: "z", items: [ids.gc(3)])
            let copy = try await ada.drop(
                session: "z", destination: there, copy: true, board: "b2", key: BoardSpec.editKey("b2"), opId: "cp")
            let copied = try #require(copy.outcome.committed)
            let clientId = try #require(ada.clientId)
            // R14: the insert half has its own identity, and the copies' ids derive from it.
            #expect(copied.opId == "cp@from:b1")
            #expect(
                copied.effect.changes.map(\.item) == [Board.derivedID(clientId: clientId, opId: "cp@from:b1", n: 0)])
            #expect(await room1.snapshot.board.contains(ids.gc(3)))

            try await expectInStep(ada, with: room1)
            try await expectInStep(cat, with: room2)
            let boards = [await room1.snapshot.board, await room2.snapshot.board]
            #expect(boards[0].contains(ids.gc(1)) == false)
            #expect(boards[1].contains(ids.gc(1)))
        }
    }
}
