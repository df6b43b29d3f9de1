import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Foundation
import Synchronization
import Testing

/// Issue 45 on both stores: a board's people and invites live in its record; a claim is one
/// transaction, so a one-use invite is claimed once however many processes (nodes) try at once.
extension StoreContractTests {
    @Test(
        "issue 45: people, invites and the links switch round-trip in the record; an old record has none",
        arguments: StoreKind.running)
    func peopleRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { (store, reopen) async throws in
            try store.add(record("a"))
            #expect(try store.load().first?.people == BoardPeople(), "a new record has nobody, links on")
            let before = try #require(try store.generation())
            var invite: Invite?
            try store.updateRecord("a") { record in
                invite = try record.apply(
                    .createInvite(name: "Bea", role: .commenter, expiresAt: 1_900_000_000, oneUse: true),
                    now: 1_800_000_000)
                try record.apply(.setLinks(false), now: 1_800_000_000)
            }
            let token = try #require(invite?.token)
            let claimed = try store.updateRecord("a") { record in
                _ = try record.people.claim(
                    token: token, device: DeviceKey.digest("d-" + String(repeating: "1", count: 32)), now: 1_800_000_100
                )
            }
            #expect(try #require(try store.generation()) != before, "a change of people is a change of the list")
            let reread = try #require(try reopen().load().first { $0.id == "a" })
            #expect(reread == claimed)
            #expect(reread.people.people.map(\.name) == ["Bea"])
            #expect(reread.people.people.first?.role == .commenter)
            #expect(reread.people.invites.first?.uses == 1)
            #expect(reread.people.linksEnabled == false)
            #expect(
                reread.people.people.first?.device != "d-" + String(repeating: "1", count: 32),
                "the device key itself is not stored")
            // A refused change writes nothing.
            #expect(throws: PeopleRefusal.self) {
                try store.updateRecord("a") { try $0.apply(.removePerson("p-nobody"), now: 1_800_000_200) }
            }
            #expect(try reopen().load().first { $0.id == "a" } == claimed)
            #expect(throws: CatalogError.self) { try store.updateRecord("nope") { _ in } }
        }
    }

    @Test(
        "issue 45: a one-use invite claimed by eight devices at once, through two stores, has one person",
        arguments: StoreKind.running)
    func oneUseClaimIsAtomic(kind: StoreKind) async throws {
        try await kind.withStore { (store, reopen) async throws in
            try store.add(record("a"))
            var invite: Invite?
            try store.updateRecord("a") { record in
                invite = try record.apply(
                    .createInvite(name: "Cy", role: .editor, expiresAt: nil, oneUse: true), now: 1_800_000_000)
            }
            let token = try #require(invite?.token)
            let stores = [store, try reopen()]  // two processes (nodes) on the same data
            let outcomes = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { n in
                let device = DeviceKey.digest("d-" + String(repeating: String(n, radix: 16), count: 32))
                do {
                    try stores[n % 2].updateRecord("a") { record in
                        _ = try record.people.claim(token: token, device: device, now: 1_800_000_100)
                    }
                    outcomes.withLock { $0.append("claimed") }
                } catch let refusal as PeopleRefusal {
                    outcomes.withLock { $0.append(refusal.code.rawValue) }
                } catch {
                    // SQLite's busy timeout or PostgreSQL's lock wait must not fail a claim.
                    outcomes.withLock { $0.append("failed: \(error)") }
                }
            }
            let all = outcomes.withLock { $0 }.sorted()
            #expect(all == ["claimed"] + Array(repeating: "invite-used", count: 7))
            let people = try #require(try reopen().load().first { $0.id == "a" }?.people)
            #expect(people.people.count == 1)
            #expect(people.invites.first?.uses == 1)
        }
    }
}
