import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardTesting
import Testing

/// Placeholders, leases and what peers see of a drag, over real sockets.
@Suite("Live sessions end to end")
struct LiveSessionTests {
    let ids = DemoIDs(board: "b1")

    @Test("R8: a placeholder is committed or deleted by its owner only, and cleaned up after the owner vanishes")
    func placeholders() async throws {
        try await withServer(rooms: .fast(placeholderGracePeriod: .milliseconds(300))) { server in
            let ada = try await server.connect("b1", name: "Ada")
            let bob = try await server.connect("b1", name: "Bob")
            let room = try server.room("b1")
            let (adaClient, adaMember) = (try #require(ada.clientId), try #require(ada.member?.id))
            func placeholder(_ opId: String) -> BoardOperation {
                .insertPlaceholder(
                    BoardOperation.InsertPlaceholder(
                        destination: Destination(collection: ids.inbox, section: ids.inboxSection, index: 0),
                        representations: [Representation(type: "public.plain-text", value: "loading…")]))
            }

            // A drop from outside the board: an external drag, then a placeholder ending it.
            _ = try await ada.beginDrag(session: "ext", items: [], external: [["public.plain-text"]])
            try await bob.wait("Bob sees the external drag") { $0.drag(member: adaMember, session: "ext") != nil }
            let hover = try await ada.hover(
                session: "ext", target: DragTarget(collection: ids.inbox, section: ids.inboxSection, index: 0))
            #expect(hover.proposal.operation == .copy)
            let inserted = try await ada.perform(placeholder("p1"), opId: "p1", session: "ext")
            #expect(inserted.committed != nil)
            let first = Board.derivedID(clientId: adaClient, opId: "p1", n: 0)
            let seen = try await bob.wait("Bob sees the placeholder and the drag end") {
                $0.replica.confirmed.isPlaceholder(first) && $0.drag(member: adaMember, session: "ext") == nil
            }
            #expect(seen.replica.confirmed.item(first)?.placeholder?.owner == adaClient)
            let ended = bob.received { if case .dragEnded(let e) = $0, e.session == "ext" { e } else { nil } }
            #expect(ended.map(\.reason) == [.dropped])
            #expect(ended.first?.seq == inserted.committed?.seq)

            // Only the owner commits; nobody drags a placeholder.
            let content = [Representation(type: "public.plain-text", value: "hello")]
            let stolen = try await bob.perform(
                .commitPlaceholder(BoardOperation.CommitPlaceholder(item: first, representations: content)))
            #expect(stolen.rejection?.code == .notOwner)
            let grab = try await bob.beginDrag(session: "grab", items: [first])
            #expect(grab.granted.isEmpty)
            #expect(grab.refused.map(\.code) == [.forbidden])
            let commit = try await ada.perform(
                .commitPlaceholder(BoardOperation.CommitPlaceholder(item: first, representations: content)))
            #expect(commit.committed != nil)
            #expect(ada.replica.confirmed.item(first) == Item(id: first, representations: content, version: 1))

            // The owner deletes one.
            _ = try await ada.perform(placeholder("p2"), opId: "p2")
            let second = Board.derivedID(clientId: adaClient, opId: "p2", n: 0)
            let deleted = try await ada.perform(.deletePlaceholder(BoardOperation.DeletePlaceholder(item: second)))
            #expect(deleted.committed != nil)
            #expect(!ada.replica.confirmed.contains(second))

            // The owner vanishes with one left: the room deletes it after the grace period.
            _ = try await ada.perform(placeholder("p3"), opId: "p3")
            let third = Board.derivedID(clientId: adaClient, opId: "p3", n: 0)
            try await bob.wait("Bob sees the third placeholder") { $0.replica.confirmed.contains(third) }
            let vanished = ContinuousClock.now
            ada.close()
            try await bob.wait("the room deletes the vanished owner's placeholder") {
                !$0.replica.confirmed.contains(third)
            }
            #expect(ContinuousClock.now - vanished >= .milliseconds(250))
            let cleanup = bob.received { if case .op(let c) = $0, c.op.kind == "deletePlaceholder" { c } else { nil } }
            #expect(cleanup.last?.clientId == ClientIdentity.system)
            #expect(cleanup.last?.opId == "cleanup-\(third)")
            #expect(bob.replica.confirmed.contains(first))
            try await expectInStep(bob, with: room)
        }
    }

    @Test("R9: a leased item is refused to others, naming the holder, until the quiet drag expires")
    func leaseRefusalAndExpiry() async throws {
        // The rooms' clock moves by hand: the quiet period passes when the test says, not after a wait.
        let clock = ManualClock()
        try await withServer(rooms: .fast(leaseQuietPeriod: .seconds(1)), clock: clock) { server in
            let ada = try await server.connect("b1", name: "Ada")
            let bob = try await server.connect("b1", name: "Bob")
            let room = try server.room("b1")
            let adaMember = try #require(ada.member?.id)
            let toFound = Destination(collection: ids.found, section: ids.foundSection, index: 0)

            _ = try await ada.beginDrag(session: "hold", items: [ids.gc(1), ids.gc(2)])
            let grant = try await bob.beginDrag(session: "try", items: [ids.gc(2), ids.gc(3)])
            #expect(grant.granted == [ids.gc(3)])
            #expect(grant.refused.map(\.item) == [ids.gc(2)])
            #expect(grant.refused.first?.code == .locked)
            #expect(grant.refused.first?.message.contains("Ada") == true)
            let locked = try await bob.perform(.move(BoardOperation.Move(items: [ids.gc(1)], destination: toFound)))
            #expect(locked.rejection?.code == .locked)
            #expect(locked.rejection?.message.contains("Ada") == true)
            #expect(bob.replica.pending.isEmpty)

            // Ada goes quiet: after the quiet period her drag expires and the lease ends.
            clock.advance(by: .seconds(2))
            let ended = try await bob.wait("Ada's quiet drag expires") {
                $0.drag(member: adaMember, session: "hold") == nil
            }
            #expect(
                ended.history.contains {
                    if case .dragEnded(let e) = $0 { e.session == "hold" && e.reason == .expired } else { false }
                })
            let regrant = try await bob.beginDrag(session: "now", items: [ids.gc(1), ids.gc(2)])
            #expect(regrant.granted == ids.cards(1, 2))
            let moved = try await bob.drop(session: "now", destination: toFound)
            #expect(moved.outcome.committed != nil)

            // Ada's drop on her expired session is refused; her optimistic move is rolled back.
            await #expect(throws: BoardClientError.self) {
                try await ada.drop(
                    session: "hold", destination: Destination(collection: ids.caches, section: ids.toFind, index: 5))
            }
            #expect(ada.state.lastError?.code == .unknownSession)
            try await expectInStep(ada, with: room)
            try await expectInStep(bob, with: room)
            #expect(ada.replica.view == ada.replica.confirmed)
        }
    }

    @Test("Peers see a drag start, its coalesced proposals (latest wins) and its end; late joiners see live drags")
    func peersSeeDrags() async throws {
        try await withServer(rooms: .fast(tick: .milliseconds(100))) { server in
            let ada = try await server.connect("b1", name: "Ada")
            let bob = try await server.connect("b1", name: "Bob")
            let adaMember = try #require(ada.member?.id)

            _ = try await ada.beginDrag(session: "live", items: [ids.gc(1), ids.gc(2)])
            let started = try await bob.wait("Bob sees the drag start") {
                $0.drag(member: adaMember, session: "live") != nil
            }
            #expect(started.drag(member: adaMember, session: "live")?.items == ids.cards(1, 2))

            // A burst of hovers: Ada gets every proposal at once, Bob the latest per tick.
            let updates = 30
            for index in 0..<updates {
                ada.send(
                    .dropUpdate(
                        ClientMessage.DropUpdate(
                            session: "live",
                            target: DragTarget(collection: ids.caches, section: ids.toFind, index: index))))
            }
            try await ada.wait("Ada gets \(updates) proposals") { state in
                state.history.count { if case .proposal(let p) = $0 { p.session == "live" } else { false } } == updates
            }
            let latest = try await bob.wait("Bob sees the latest hover") {
                $0.drag(member: adaMember, session: "live")?.target?.index == updates - 1
            }
            #expect(latest.drag(member: adaMember, session: "live")?.proposal?.operation == .move)
            let hovers = bob.received {
                if case .dragHover(let h) = $0, h.session == "live" { h.target.index } else { nil }
            }
            #expect(!hovers.isEmpty && hovers.count < updates, "Bob got \(hovers.count) hovers for \(updates) updates")
            #expect(hovers == hovers.sorted(), "hovers arrive in order, never an older one after a newer one")

            // A late joiner sees the live drag in its welcome.
            let cat = try await server.connect("b1", name: "Cat")
            #expect(cat.state.drag(member: adaMember, session: "live")?.items == ids.cards(1, 2))

            let ack = try await ada.drop(
                session: "live", destination: Destination(collection: ids.found, section: ids.foundSection, index: 2))
            let seq = try #require(ack.outcome.committed?.seq)
            for peer in [bob, cat] {
                let state = try await peer.wait("the peer sees the drop end") {
                    $0.drag(member: adaMember, session: "live") == nil
                }
                let ends = state.history.compactMap { if case .dragEnded(let e) = $0 { e } else { nil } }
                #expect(ends.map(\.reason) == [.dropped])
                #expect(ends.first?.seq == seq)
                #expect(state.replica.confirmedSeq >= seq)
            }

            _ = try await ada.beginDrag(session: "cancel", items: [ids.gc(3)])
            ada.endDrag(session: "cancel")
            _ = try await ada.beginDrag(session: "gone", items: [ids.gc(4)])
            try await bob.wait("Bob sees the second drag") { $0.drag(member: adaMember, session: "gone") != nil }
            ada.close()
            let final = try await bob.wait("Bob sees both drags end") {
                $0.drag(member: adaMember, session: "cancel") == nil
                    && $0.drag(member: adaMember, session: "gone") == nil
                    && !$0.members.contains { $0.id == adaMember }
            }
            let reasons = Dictionary(
                final.history.compactMap { if case .dragEnded(let e) = $0 { (e.session, e.reason) } else { nil } },
                uniquingKeysWith: { $1 })
            #expect(reasons["cancel"] == .cancelled)
            #expect(reasons["gone"] == .disconnected)
        }
    }
}
