public import CorkboardModel

/// An admin's change of a board's people, invites or links (the admin messages of
/// `docs/PROTOCOL.md`, and `corkboard boards invite` / `revoke`).
public enum PeopleChange: Hashable, Sendable {
    /// A new invite for a named person with a role, optionally expiring (seconds since 1970) or
    /// limited to one device.
    case createInvite(name: String, role: Role, expiresAt: Double?, oneUse: Bool)
    /// Disables or enables an invite (its persons keep their access).
    case updateInvite(id: String, disabled: Bool)
    /// Gives a person another role.
    case setRole(person: String, role: Role)
    /// Removes a person (listed as removed; their invite disabled).
    case removePerson(String)
    /// Turns the edit, comment and view keys on or off ("Anyone with the link").
    case setLinks(Bool)
    /// Gives the edit, comment and view keys new values; the admin key stays.
    case rotateLinks
}

extension BoardPeople {
    /// The longest invite name, in characters (as a member's display name).
    public static let maxNameCharacters = 64
}

extension BoardRecord {
    /// Applies an admin's change to the record's people (and keys, for `rotateLinks`); returns the
    /// invite `createInvite` made. Each change counts one `revision`.
    ///
    /// - Throws: `PeopleRefusal` (`invalid-field`, `unknown-person`, `unknown-invite`,
    ///   `last-admin`); the record is unchanged then.
    @discardableResult
    public mutating func apply(_ change: PeopleChange, now: Double) throws(PeopleRefusal) -> Invite? {
        var created: Invite?
        switch change {
        case .createInvite(let name, let role, let expiresAt, let oneUse):
            let trimmed = name.trimmingWhitespace
            guard (1...BoardPeople.maxNameCharacters).contains(trimmed.count) else {
                throw PeopleRefusal(
                    .invalidField, "An invite's name must be 1 to \(BoardPeople.maxNameCharacters) characters.",
                    field: "name")
            }
            if let expiresAt, !(expiresAt > now) {
                throw PeopleRefusal(
                    .invalidField, "An invite's expiresAt must be in the future (seconds since 1970).",
                    field: "expiresAt")
            }
            guard people.invites.count < BoardPeople.maxInvites else {
                throw PeopleRefusal(
                    .invalidField,
                    "This board already has \(BoardPeople.maxInvites) invites; disabled ones count too.", field: "name")
            }
            let invite = Invite.make(name: trimmed, role: role, now: now, expiresAt: expiresAt, oneUse: oneUse)
            people.invites.append(invite)
            created = invite
        case .updateInvite(let id, let disabled):
            guard let index = people.invites.firstIndex(where: { $0.id == id }) else {
                throw PeopleRefusal(
                    .unknownInvite, "This board has no invite \(id); listPeople lists them.", field: "invite")
            }
            people.invites[index].disabled = disabled
        case .setRole(let id, let role):
            let index = try activePerson(id)
            if people.people[index].role == .admin, role != .admin { try keepAnAdmin(besides: id, doing: "demote") }
            people.people[index].role = role
        case .removePerson(let id):
            let index = try activePerson(id)
            if people.people[index].role == .admin { try keepAnAdmin(besides: id, doing: "remove") }
            people.people[index].removed = true
            let invite = people.people[index].invite
            if let own = people.invites.firstIndex(where: { $0.id == invite }) { people.invites[own].disabled = true }
        case .setLinks(let enabled):
            people.linksEnabled = enabled
        case .rotateLinks:
            keys.edit = RandomToken.make(prefix: "e-")
            keys.comment = RandomToken.make(prefix: "c-")
            keys.view = RandomToken.make(prefix: "v-")
        }
        people.revision += 1
        return created
    }

    /// The index of the person `id`, who must not be removed.
    private func activePerson(_ id: String) throws(PeopleRefusal) -> Int {
        guard let index = people.people.firstIndex(where: { $0.id == id }), !people.people[index].removed else {
            throw PeopleRefusal(
                .unknownPerson, "This board has no person \(id) (or they were removed); listPeople lists them.",
                field: "person")
        }
        return index
    }

    /// Refuses leaving the board without a person admin when it has one (the admin key alone is
    /// allowed only for a board that never had one).
    private func keepAnAdmin(besides id: String, doing verb: String) throws(PeopleRefusal) {
        guard people.admins.contains(where: { $0.id != id }) else {
            throw PeopleRefusal(
                .lastAdmin, "You cannot \(verb) the board's last admin; make someone else an admin first.",
                field: "person")
        }
    }
}

extension String {
    /// The string without leading and trailing whitespace and newlines.
    var trimmingWhitespace: String {
        var scalars = Substring(self).unicodeScalars
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
