import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Testing

/// Saves admins' changes in a memory catalog at once (the room's inbox gets the answer).
struct MemoryAccessWriter: BoardAccessWriter {
    let catalog: MemoryBoardCatalog

    func change(
        board: String, _ change: PeopleChange,
        completion: @escaping @Sendable (Result<(BoardRecord, Invite?), any Error>) -> Void
    ) {
        do {
            var created: Invite?
            let record = try catalog.updateRecord(board) { created = try $0.apply(change, now: PeopleClaimTests.now) }
            completion(.success((record, created)))
        } catch {
            completion(.failure(error))
        }
    }
}

/// Issue 45 in a room: people join under their invite's name, and an admin's changes reach the
/// open connections at once.
@Suite struct PeopleLiveTests {
    /// A room whose record is in a memory catalog, with invites for Ann (admin), Bea (commenter)
    /// and Cy (editor) claimed by one device each.
    struct Board {
        let h: RoomHarness
        let catalog: MemoryBoardCatalog
        var ann: PersonJoin
        var bea: PersonJoin
        var cy: PersonJoin

        init() throws {
            var record = BoardRecord(id: "b", title: "B", keys: testKeys, template: .demo, createdAt: 1)
            var joins: [PersonJoin] = []
            for (n, (name, role)) in [("Ann", Role.admin), ("Bea", .commenter), ("Cy", .editor)].enumerated() {
                let invite = try #require(
                    try record.apply(.createInvite(name: name, role: role, expiresAt: nil, oneUse: true), now: 1))
                let device = DeviceKey.digest("d-" + String(repeating: String(n + 1), count: 32))
                let person = try record.people.claim(token: invite.token, device: device, now: 2)
                joins.append(PersonJoin(person: person, people: record.people))
            }
            catalog = MemoryBoardCatalog([record])
            h = RoomHarness(people: record.people, accessWriter: MemoryAccessWriter(catalog: catalog))
            (ann, bea, cy) = (joins[0], joins[1], joins[2])
        }

        /// Sends an admin message and handles the catalog's answer; returns what `handle` got.
        func manage(_ handle: ConnectionHandle, _ request: PeopleRequest) async -> [ServerMessage] {
            await h.send(handle, .people(request))
            await h.processQueuedEvents()
            return h.sink.take(handle)
        }

        var record: BoardRecord { (try? catalog.load().first)! }
    }

    @Test(
        "issue 45: a person joins under the invite's name; a differing hello name is the alias; admins see them online")
    func personJoins() async throws {
        let b = try Board()
        let admin = try #require(await b.h.join(conn(1), name: "Root", key: "admin-key"))
        #expect(admin.person == nil)
        #expect(admin.member.person == nil)
        let got = await b.h.join(conn(2), as: b.bea, name: "  Beatrice ")
        let welcome = try #require(got.compactMap(\.welcome).first)
        #expect(welcome.member.name == "Bea")
        #expect(welcome.member.alias == "Beatrice")
        #expect(welcome.member.person == b.bea.person.id)
        #expect(welcome.member.role == .commenter)
        #expect(welcome.keys == .init(view: "view-key", comment: "comment-key"))
        #expect(welcome.person?.id == b.bea.person.id)
        #expect(welcome.person?.online == true)
        // Same name ignoring case: no alias.
        let cy = try #require(await b.h.join(conn(3), as: b.cy, name: "cy").compactMap(\.welcome).first)
        #expect(cy.member.name == "Cy")
        #expect(cy.member.alias == nil)
        // The admin was told who is online now.
        let pushed = try #require(b.h.sink.take(conn(1)).compactMap(\.people).last)
        #expect(pushed.ref == nil)
        #expect(Set(pushed.people.filter(\.online).map(\.name)) == ["Bea", "Cy"])
        #expect(pushed.people.first { $0.name == "Bea" }?.alias == "Beatrice")
        #expect(pushed.keys.admin == "admin-key")
        // listPeople answers with the ref, invites with their tokens.
        let listed = try #require(await b.manage(conn(1), .listPeople(.init(ref: "l1"))).compactMap(\.people).first)
        #expect(listed.ref == "l1")
        #expect(listed.invites.map(\.name) == ["Ann", "Bea", "Cy"])
        #expect(listed.invites.allSatisfy { $0.token.hasPrefix("t-") && $0.uses == 1 && $0.maxUses == 1 })
        #expect(listed.linksEnabled)
    }

    @Test("issue 45: removing a person closes only their connections, 1008 with the reason; everyone else stays")
    func removalClosesOnlyThatPerson() async throws {
        let b = try Board()
        await b.h.join(conn(1), name: "Root", key: "admin-key")
        await b.h.join(conn(2), as: b.bea)
        await b.h.join(conn(3), as: b.bea, name: "Bea on her phone")
        await b.h.join(conn(4), as: b.cy)
        await b.h.join(conn(5), name: "Linker", key: "edit-key")
        _ = b.h.sink.take(conn(1))
        let answer = await b.manage(conn(1), .removePerson(.init(ref: "r1", person: b.bea.person.id)))
        let people = try #require(answer.compactMap(\.people).first)
        #expect(people.ref == "r1")
        #expect(people.people.first { $0.id == b.bea.person.id }?.removed == true)
        #expect(people.invites.first { $0.name == "Bea" }?.disabled == true)
        for handle in [conn(2), conn(3)] {
            #expect(b.h.sink.closes(of: handle).map(\.code) == [CloseCode.policyViolation])
            #expect(b.h.sink.closes(of: handle).map(\.reason) == [Room.removedReason])
        }
        for handle in [conn(1), conn(4), conn(5)] { #expect(b.h.sink.closes(of: handle).isEmpty) }
        #expect(await b.h.room.memberCount == 3)
        // Nothing more of hers is handled, and her device's next hello is refused.
        await b.h.send(conn(2), .ping(.init(ref: "p")))
        #expect(b.h.sink.take(conn(2)).compactMap(\.error).last?.code == .notJoined)
        var stale = b.bea
        stale.people = BoardPeople()  // the hub's transaction raced the removal: the room knows better
        let refused = await b.h.join(conn(6), as: stale)
        #expect(refused.compactMap(\.error).first?.code == .removed)
        #expect(b.h.sink.closes(of: conn(6)).map(\.code) == [CloseCode.badKey])
        #expect(b.record.people.people.first { $0.id == b.bea.person.id }?.removed == true, "saved in the catalog")
    }

    @Test("issue 45: a role change applies to the person's open connections at once; peers see it at the tick")
    func roleChangeIsLive() async throws {
        let b = try Board()
        await b.h.join(conn(1), name: "Root", key: "admin-key")
        let cy = try #require(await b.h.join(conn(2), as: b.cy).compactMap(\.welcome).first)
        await b.h.join(conn(3), name: "Peer", key: "view-key")
        await b.h.process(.tick)
        _ = b.h.sink.take(conn(3))
        let answer = await b.manage(conn(1), .setRole(.init(ref: "s1", person: b.cy.person.id, role: .viewer)))
        #expect(answer.compactMap(\.people).first { $0.ref == "s1" }?.people.first { $0.name == "Cy" }?.role == .viewer)
        let changed = try #require(b.h.sink.take(conn(2)).compactMap(\.roleChanged).first)
        #expect(changed.role == .viewer)
        #expect(changed.keys == .init(view: "view-key"))
        // The next operation is checked against the new role.
        let refused = try #require(
            await b.h.submit(conn(2), .renameCollection(.init(collection: b.h.caches, title: "Mine")), opId: "o1"))
        #expect(refused.outcome.rejectCode == .readOnly)
        await b.h.process(.tick)
        let roster = b.h.sink.take(conn(3)).compactMap(\.membersChanged)
        #expect(roster.flatMap(\.joined).first { $0.id == cy.member.id }?.role == .viewer)
        #expect(b.h.sink.closes(of: conn(2)).isEmpty)
    }

    @Test("issue 45: a change from another node (the directory's re-read) closes a removed person without an answer")
    func changeFromElsewhere() async throws {
        let b = try Board()
        await b.h.join(conn(2), as: b.bea)
        await b.h.join(conn(4), as: b.cy)
        var record = b.record
        try record.apply(.removePerson(b.bea.person.id), now: 3)
        await b.h.process(.accessChanged(AccessChange(keys: record.keys, people: record.people)))
        #expect(b.h.sink.closes(of: conn(2)).map(\.reason) == [Room.removedReason])
        #expect(b.h.sink.closes(of: conn(4)).isEmpty)
        #expect(b.h.room.people == record.people, "published for the directory's next comparison")
        // An older copy arriving late changes nothing.
        await b.h.process(.accessChanged(AccessChange(keys: record.keys, people: b.bea.people)))
        #expect(b.h.room.people == record.people)
    }

    @Test(
        "issue 45: turning the links off closes members who joined with the edit, comment or view key, not admins or people"
    )
    func linksOff() async throws {
        let b = try Board()
        await b.h.join(conn(1), name: "Root", key: "admin-key")
        await b.h.join(conn(2), name: "Ed", key: "edit-key")
        await b.h.join(conn(3), name: "Co", key: "comment-key")
        await b.h.join(conn(4), name: "Vi", key: "view-key")
        await b.h.join(conn(5), as: b.cy)
        let answer = await b.manage(conn(1), .setLinks(.init(ref: "l", enabled: false)))
        #expect(answer.compactMap(\.people).first { $0.ref == "l" }?.linksEnabled == false)
        for handle in [conn(2), conn(3), conn(4)] {
            #expect(b.h.sink.closes(of: handle).map(\.reason) == [Room.linksOffReason])
        }
        #expect(b.h.sink.closes(of: conn(1)).isEmpty)
        #expect(b.h.sink.closes(of: conn(5)).isEmpty)
        #expect(b.h.sink.take(conn(5)).compactMap(\.roleChanged).first?.keys == .init(view: ""), "no link to share")
        // The keys open nothing now; the admin key still does.
        await b.h.process(.join(conn(6), .init(board: "b", key: "view-key", name: "Late")))
        #expect(b.h.sink.take(conn(6)).compactMap(\.error).first?.code == .linksOff)
        #expect(b.h.sink.closes(of: conn(6)).map(\.code) == [CloseCode.badKey])
        #expect(try #require(await b.h.join(conn(7), key: "admin-key")).member.role == .admin)
        // On again: the view key works.
        _ = await b.manage(conn(1), .setLinks(.init(enabled: true)))
        #expect(try #require(await b.h.join(conn(8), key: "view-key")).member.role == .viewer)
    }

    @Test(
        "issue 45: rotating the links closes holders of the old edit, comment and view keys; the admin gets the new ones"
    )
    func rotateLinks() async throws {
        let b = try Board()
        await b.h.join(conn(1), name: "Root", key: "admin-key")
        await b.h.join(conn(2), name: "Ed", key: "edit-key")
        await b.h.join(conn(3), as: b.bea)
        let answer = try #require(
            await b.manage(conn(1), .rotateLinks(.init(ref: "rot"))).compactMap(\.people).first { $0.ref == "rot" })
        #expect(answer.keys.admin == "admin-key")
        #expect(answer.keys.edit != "edit-key")
        #expect(b.h.sink.closes(of: conn(2)).map(\.reason) == [Room.keysRotatedReason])
        #expect(b.h.sink.closes(of: conn(1)).isEmpty)
        #expect(b.h.sink.closes(of: conn(3)).isEmpty)
        #expect(b.h.sink.take(conn(3)).compactMap(\.roleChanged).first?.keys.comment == answer.keys.comment)
        #expect(b.h.room.keys.edit == answer.keys.edit)
    }

    @Test("issue 45: the last admin cannot be removed or demoted through the room; the refusal changes nothing")
    func lastAdminInRoom() async throws {
        let b = try Board()
        await b.h.join(conn(1), as: b.ann)
        let before = b.record
        let removed = await b.manage(conn(1), .removePerson(.init(ref: "x", person: b.ann.person.id)))
        #expect(removed.compactMap(\.error).first?.code == .lastAdmin)
        #expect(removed.compactMap(\.error).first?.ref == "x")
        let demoted = await b.manage(conn(1), .setRole(.init(person: b.ann.person.id, role: .editor)))
        #expect(demoted.compactMap(\.error).first?.code == .lastAdmin)
        let unknown = await b.manage(conn(1), .setRole(.init(person: "p-0000000000000000", role: .editor)))
        #expect(unknown.compactMap(\.error).first?.code == .unknownPerson)
        let noInvite = await b.manage(conn(1), .updateInvite(.init(invite: "i-0000000000000000", disabled: true)))
        #expect(noInvite.compactMap(\.error).first?.code == .unknownInvite)
        #expect(b.record == before)
        #expect(b.h.sink.closes(of: conn(1)).isEmpty)
        // An invite made in the room is answered with it, token and all.
        let made = await b.manage(
            conn(1), .createInvite(.init(ref: "c", name: "Dee", role: .viewer, expiresAt: 1_900_000_000, oneUse: true)))
        let created = try #require(made.compactMap(\.people).first?.created)
        #expect(created.name == "Dee" && created.maxUses == 1 && created.expiresAt == 1_900_000_000)
        #expect(b.record.people.invites.last?.token == created.token)
    }

    @Test("issue 45: every change from an editor, commenter or viewer is refused forbidden naming the role")
    func nonAdminsAreRefused() async throws {
        let b = try Board()
        await b.h.join(conn(1), as: b.cy)
        await b.h.join(conn(2), as: b.bea)
        await b.h.join(conn(3), name: "Vi", key: "view-key")
        let before = b.record
        let requests: [PeopleRequest] = [
            .createInvite(.init(ref: "q", name: "X", role: .admin)),
            .updateInvite(.init(ref: "q", invite: "i-1", disabled: true)),
            .setRole(.init(ref: "q", person: b.cy.person.id, role: .admin)),
            .removePerson(.init(ref: "q", person: b.ann.person.id)), .setLinks(.init(ref: "q", enabled: false)),
            .rotateLinks(.init(ref: "q")),
        ]
        for (handle, role) in [(conn(1), "an editor"), (conn(2), "a commenter"), (conn(3), "a viewer")] {
            for request in requests {
                let answer = await b.manage(handle, request)
                let error = try #require(answer.compactMap(\.error).first, "\(request.type)")
                #expect(error.code == .forbidden)
                #expect(error.ref == "q")
                #expect(error.message == "Only an admin manages the board's members and links; you are \(role).")
                #expect(answer.compactMap(\.people).isEmpty)
            }
        }
        #expect(b.record == before)
        #expect(b.h.room.keys == testKeys)
    }

    @Test(
        "issue 45: anyone may list the people with access, without invites, their ids or keys to share beyond their own"
    )
    func nonAdminsSeeWhoHasAccess() async throws {
        let b = try Board()
        await b.h.join(conn(1), as: b.ann)
        await b.h.join(conn(2), as: b.bea)
        _ = await b.manage(conn(1), .removePerson(.init(ref: "r", person: b.cy.person.id)))
        let admin = try #require(await b.manage(conn(1), .listPeople(.init(ref: "a"))).compactMap(\.people).first)
        #expect(admin.people.contains { $0.name == "Cy" && $0.removed == true }, "an admin sees the removed too")
        #expect(!admin.invites.isEmpty)
        let listed = try #require(await b.manage(conn(2), .listPeople(.init(ref: "l"))).compactMap(\.people).first)
        #expect(listed.ref == "l")
        #expect(Set(listed.people.map(\.name)) == Set(admin.people.filter { $0.removed != true }.map(\.name)))
        #expect(!listed.people.contains { $0.name == "Cy" }, "a removed person has no access")
        #expect(listed.people.first { $0.name == "Bea" }?.online == true)
        #expect(listed.people.allSatisfy { $0.invite == nil }, "no invite ids")
        #expect(listed.invites.isEmpty, "no invites, no tokens")
        #expect(listed.keys.admin == nil && listed.keys.edit == nil, "a commenter's own keys only")
    }
}

/// Issue 45 through the hub and the directory: the claim is resolved in the catalog before the
/// room, and a change another process or node wrote to the catalog reaches the room at the
/// directory's next re-read (`refreshKeys()`, every second on a server).
@Suite struct PeopleDirectoryTests {
    @Test("issue 45: the hub claims an invite in the catalog; a revoke written elsewhere closes only that person")
    func claimAndRevokeFromElsewhere() async throws {
        let h = try HubHarness()
        defer { h.shutdown() }
        var invite: Invite?
        try h.catalog.updateRecord("b") { record in
            invite = try record.apply(
                .createInvite(name: "Bea", role: .commenter, expiresAt: nil, oneUse: true), now: 1)
        }
        let token = try #require(invite?.token)
        func hello(_ handle: ConnectionHandle, device: String) {
            h.hub.connected(handle)
            h.send(
                handle,
                #"{"type":"hello","protocol":1,"board":"b","name":"Beatrice","invite":"\#(token)","device":"\#(device)"}"#
            )
        }
        hello(conn(1), device: "d-" + String(repeating: "1", count: 32))
        let welcome = try #require(await h.next(conn(1)).first?.welcome)
        #expect(welcome.member.name == "Bea" && welcome.member.alias == "Beatrice")
        let person = try #require(welcome.member.person)
        #expect(try h.catalog.load().first?.people.people.map(\.id) == [person], "claimed in the catalog")
        // Another device: the one-use invite is used; the refusal closes 4003 (a failed join).
        hello(conn(2), device: "d-" + String(repeating: "2", count: 32))
        #expect(try #require(await h.next(conn(2)).first?.error).code == .inviteUsed)
        #expect(await h.sink.wait { h.sink.closes(of: conn(2)).map(\.code) == [CloseCode.badKey] })
        try #require(await h.join(conn(3)) != nil)

        // `corkboard boards revoke`, or another node: the catalog changes, the directory re-reads it.
        try h.catalog.updateRecord("b") { try $0.apply(.removePerson(person), now: 2) }
        h.directory.refreshKeys()
        #expect(await h.sink.wait { h.sink.closes(of: conn(1)).map(\.reason) == [Room.removedReason] })
        #expect(h.sink.closes(of: conn(3)).isEmpty)
        #expect(h.room.people.people.first?.removed == true)
    }
}
