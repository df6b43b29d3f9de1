import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// "Assign" lists the board's people, not only those here now (issue 41): the room remembers who
/// joined and who its stored activity feed names, most recent first, bounded (R18), and hands the
/// names to every joiner in `welcome.names`.
@Suite("Known names")
struct KnownNamesTests {
    @Test("names are kept once each, most recent first, at most the limit; the least recent go first")
    func orderAndBound() {
        var names = KnownNames()
        for name in ["Ada", "Bob", "Ada", "", "Cy"] { names.note(name) }
        #expect(names.mostRecentFirst == ["Cy", "Ada", "Bob"])
        names.note("Cy")
        #expect(names.mostRecentFirst == ["Cy", "Ada", "Bob"])
        for n in 0..<KnownNames.limit { names.note("Person \(n)") }
        #expect(names.mostRecentFirst.count == KnownNames.limit)
        #expect(names.mostRecentFirst.first == "Person \(KnownNames.limit - 1)")
        #expect(!names.mostRecentFirst.contains("Bob"), "the least recent went first")
    }

    @Test("a joiner's welcome names who joined before, also those who left since, itself first")
    func welcomeNamesPeopleWhoLeft() async throws {
        let h = RoomHarness()
        await h.join(conn(1), name: "Ada")
        await h.join(conn(2), name: "Bob")
        await h.room.process([.leave(conn(2))])
        let welcome = try #require(await h.join(conn(3), name: "Cy"))
        #expect(welcome.names == ["Cy", "Bob", "Ada"])
        #expect(
            welcome.members.map(\.name).contains("Bob") == false, "Bob is not here, but is one of the board's people")
    }

    @Test("after a restart the names come from the stored activity feed: who did something is still known")
    func namesSurviveARestartThroughTheActivityFeed() async throws {
        let store = ManualStore()
        let h = RoomHarness(store: store)
        await h.join(conn(1), name: "Ada")
        await h.join(conn(2), name: "Grace")
        await h.send(
            conn(2),
            .submit(
                .init(
                    ref: "m1", opId: "m1", base: 0,
                    op: .move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0))))))
        store.completePending()
        _ = await h.processQueuedEvents()
        let restarted = try h.restarted(configuration: RoomConfiguration(), store: store)
        let welcome = try #require(await restarted.join(conn(7), name: "Linus"))
        #expect(welcome.names == ["Linus", "Grace"], "Grace moved a card; Ada only looked, and the restart forgot her")
    }
}

extension KnownNamesTests {
    @Test("the board's invited people are named too, those removed are not (issue 45)")
    func invitedPeopleAreNamed() async throws {
        var board = record("demo")
        var invites: [Invite] = []
        for (name, role) in [("Bea", Role.commenter), ("Cy", .editor)] {
            invites.append(
                try #require(
                    try board.apply(.createInvite(name: name, role: role, expiresAt: nil, oneUse: true), now: 1_000)))
        }
        let bea = try board.people.claim(
            token: invites[0].token, device: DeviceKey.digest("d-" + String(repeating: "a", count: 32)), now: 1_001)
        _ = try board.people.claim(
            token: invites[1].token, device: DeviceKey.digest("d-" + String(repeating: "b", count: 32)), now: 1_002)
        _ = try board.apply(.removePerson(bea.id), now: 1_003)
        let h = RoomHarness(people: board.people)
        let welcome = try #require(await h.join(conn(1), name: "Ada"))
        #expect(welcome.names == ["Ada", "Cy"], "Cy claimed an invite and never came; Bea was removed")
    }
}
