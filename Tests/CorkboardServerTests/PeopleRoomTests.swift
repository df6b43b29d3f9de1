import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Foundation
import Testing

/// Issue 45, the decisions: claiming an invite (`BoardPeople`), and what a room does with people:
/// a person joins under the invite's name, an admin's change of roles, removals and links reaches
/// the open connections at once, and nobody but an admin changes anything.
@Suite struct PeopleClaimTests {
    static let now = 1_800_000_000.0
    static let deviceA = DeviceKey.digest("d-" + String(repeating: "a", count: 32))
    static let deviceB = DeviceKey.digest("d-" + String(repeating: "b", count: 32))

    /// A record with one invite; returns it and the invite.
    static func board(_ change: PeopleChange) throws -> (BoardRecord, Invite) {
        var record = record("b")
        let invite = try #require(try record.apply(change, now: now))
        return (record, invite)
    }

    @Test("issue 45: a fresh claim makes a person of the invite's name and role and counts a use")
    func freshClaim() throws {
        var (record, invite) = try Self.board(
            .createInvite(name: " Bea ", role: .commenter, expiresAt: nil, oneUse: true))
        #expect(invite.name == "Bea", "the name is trimmed")
        #expect(invite.token.hasPrefix("t-") && invite.token.count == 34)
        #expect(invite.id.hasPrefix("i-") && invite.id.count == 18)
        let revision = record.people.revision
        let bea = try record.people.claim(token: invite.token, device: Self.deviceA, now: Self.now + 1)
        #expect(bea.name == "Bea")
        #expect(bea.role == .commenter)
        #expect(bea.device == Self.deviceA)
        #expect(bea.id.hasPrefix("p-"))
        #expect(bea.invite == invite.id)
        #expect(record.people.invites[0].uses == 1)
        #expect(record.people.revision > revision)
    }

    @Test("issue 45: the same device claiming again is the same person, with no new use, even of a used-up invite")
    func sameDeviceAgain() throws {
        var (record, invite) = try Self.board(.createInvite(name: "Bea", role: .editor, expiresAt: nil, oneUse: true))
        let first = try record.people.claim(token: invite.token, device: Self.deviceA, now: Self.now)
        let again = try record.people.claim(token: invite.token, device: Self.deviceA, now: Self.now + 60)
        #expect(again.id == first.id)
        #expect(again.lastSeen == Self.now + 60)
        #expect(record.people.people.count == 1)
        #expect(record.people.invites[0].uses == 1)
        // And the device alone finds the person.
        #expect(try record.people.arrive(device: Self.deviceA, now: Self.now + 90, board: "b").id == first.id)
    }

    @Test("issue 45: used, expired, disabled and unknown invites are each refused with their own sentence")
    func refusals() throws {
        var (record, invite) = try Self.board(
            .createInvite(name: "Bea", role: .editor, expiresAt: Self.now + 3600, oneUse: true))
        _ = try record.people.claim(token: invite.token, device: Self.deviceA, now: Self.now)
        func refusal(_ token: String, device: String = Self.deviceB, at time: Double = Self.now) -> PeopleRefusal? {
            var copy = record
            do {
                _ = try copy.people.claim(token: token, device: device, now: time)
                return nil
            } catch {
                #expect(copy == record, "a refused claim changes nothing")
                return error
            }
        }
        let used = try #require(refusal(invite.token))
        #expect(used.code == .inviteUsed)
        #expect(used.message == "This invite was already used; ask the board's admin for a new one.")
        let unknown = try #require(refusal("t-" + String(repeating: "0", count: 32)))
        #expect(unknown.code == .inviteUnknown)
        #expect(unknown.message == "This invite link is not valid; ask the board's admin for a new one.")

        let open = try #require(
            try record.apply(
                .createInvite(name: "Cy", role: .viewer, expiresAt: Self.now + 3600, oneUse: false), now: Self.now))
        let expired = try #require(refusal(open.token, at: Self.now + 3600))
        #expect(expired.code == .inviteExpired)
        #expect(expired.message == "This invite expired on 2027-01-15 09:00 UTC; ask the board's admin for a new one.")
        try record.apply(.updateInvite(id: open.id, disabled: true), now: Self.now)
        let disabled = try #require(refusal(open.token))
        #expect(disabled.code == .inviteRevoked)
        #expect(disabled.message == "This invite was disabled by an admin; ask the board's admin for a new one.")
        // A device with no person here is answered like a wrong key.
        var copy = record
        #expect(
            throws: PeopleRefusal(
                .unknownDevice, "This browser has no invite for board b; open your invite link or a share link.",
                field: "device")
        ) {
            try copy.people.arrive(device: Self.deviceB, now: Self.now, board: "b")
        }
    }

    @Test("issue 45: a removed person's device opens nothing, with or without the invite; their invite is disabled")
    func removedPerson() throws {
        var (record, invite) = try Self.board(.createInvite(name: "Bea", role: .editor, expiresAt: nil, oneUse: false))
        let bea = try record.people.claim(token: invite.token, device: Self.deviceA, now: Self.now)
        try record.apply(.removePerson(bea.id), now: Self.now)
        #expect(record.people.people[0].removed)
        #expect(record.people.invites[0].disabled)
        #expect(throws: PeopleRefusal.self) {
            try record.people.claim(token: invite.token, device: Self.deviceA, now: Self.now)
        }
        var copy = record
        do {
            _ = try copy.people.arrive(device: Self.deviceA, now: Self.now, board: "b")
            Issue.record("a removed person arrived")
        } catch {
            #expect(error.code == .removed)
        }
        #expect(throws: PeopleRefusal.self) { try record.apply(.removePerson(bea.id), now: Self.now) }
    }

    @Test("issue 45: the last person admin cannot be removed or demoted; the admin key alone is allowed")
    func lastAdmin() throws {
        var (record, invite) = try Self.board(.createInvite(name: "Ann", role: .admin, expiresAt: nil, oneUse: false))
        let ann = try record.people.claim(token: invite.token, device: Self.deviceA, now: Self.now)
        for change in [PeopleChange.removePerson(ann.id), .setRole(person: ann.id, role: .editor)] {
            var copy = record
            do {
                try copy.apply(change, now: Self.now)
                Issue.record("the last admin went: \(change)")
            } catch {
                #expect(error.code == .lastAdmin)
                #expect(copy == record)
            }
        }
        let bob = try record.people.claim(token: invite.token, device: Self.deviceB, now: Self.now)
        try record.apply(.setRole(person: ann.id, role: .viewer), now: Self.now)
        #expect(throws: PeopleRefusal.self) { try record.apply(.removePerson(bob.id), now: Self.now) }
        // A board whose people never included an admin may lose its last other person.
        var (plain, editorInvite) = try Self.board(
            .createInvite(name: "Ed", role: .editor, expiresAt: nil, oneUse: false))
        let ed = try plain.people.claim(token: editorInvite.token, device: Self.deviceA, now: Self.now)
        try plain.apply(.removePerson(ed.id), now: Self.now)
        #expect(throws: PeopleRefusal.self) {
            try plain.apply(.createInvite(name: "  ", role: .viewer, expiresAt: nil, oneUse: false), now: Self.now)
        }
        #expect(throws: PeopleRefusal.self) {
            try plain.apply(
                .createInvite(name: "Old", role: .viewer, expiresAt: Self.now - 1, oneUse: false), now: Self.now)
        }
    }

    @Test("issue 45: a record of an older build decodes with nobody and the links on")
    func oldRecordDecodes() throws {
        let json = #"{"id":"b","title":"B","keys":{"edit":"e-1","view":"v-1"},"template":"empty","createdAt":1}"#
        let old = try JSONDecoder().decode(BoardRecord.self, from: Data(json.utf8))
        #expect(old.people == BoardPeople())
        #expect(old.people.linksEnabled)
    }
}
