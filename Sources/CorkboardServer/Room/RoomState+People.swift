import CorkboardModel
import CorkboardProtocol
import CorkboardStorage

/// A board's people, invites and links in the room (issue 45): the admins' requests, and what a
/// change of the board's people does to the connections: a removed person's are closed, a person
/// whose role changed gets it at once, members who joined with a key the board no longer opens
/// are closed. The catalog's transactions happen outside (`RoomAction.changePeople`, and the hub
/// resolves a person's `hello` before the room); their results come back as `AccessChange`.
extension Room {
    /// The close reason of a removed person's connections.
    public static let removedReason = "you were removed from this board by an admin"
    /// The close reason of members who joined with a share link when an admin turns the links off.
    public static let linksOffReason = "this board's share links were turned off; ask an admin for an invite"
}

extension RoomState {
    /// The keys a member in `role` may put in links: while the anyone-with-the-link row is off, a
    /// non-admin has none to share (an empty view key).
    func sharedKeys(for role: Role) -> ServerMessage.ShareKeys {
        Self.sharedKeys(keys, linksEnabled: people.linksEnabled, role: role)
    }

    private static func sharedKeys(_ keys: BoardKeys, linksEnabled: Bool, role: Role) -> ServerMessage.ShareKeys {
        if !linksEnabled, role != .admin, !keys.isOpen { return ServerMessage.ShareKeys(view: "") }
        return keys.shared(with: role)
    }

    /// Whether a role key may open the board now: the edit, comment and view keys open nothing
    /// while the links are off (the admin key always does).
    func refusesLink(_ role: Role) -> Bool { role != .admin && !people.linksEnabled && !keys.isOpen }

    /// A request about the board's people: `listPeople` is answered at once (to an admin with
    /// everything, to anyone else with the people who have access), an admin's change is handed to
    /// the catalog (`RoomAction.changePeople`), whose answer comes back as `AccessChange`.
    ///
    /// - Throws: `forbidden`, naming the role, for a change from a member who is not an admin;
    ///   nothing changes.
    mutating func managePeople(_ request: PeopleRequest, from handle: ConnectionHandle, member: Member)
        throws(ProtocolError)
    {
        if case .listPeople(let m) = request, member.role != .admin {
            outbox.reply(handle, .people(peopleMessage(ref: m.ref, for: member.role)))
            return
        }
        guard member.role == .admin else {
            let article = member.role == .editor ? "an" : "a"
            throw ProtocolError(
                .forbidden,
                "Only an admin manages the board's members and links; you are \(article) \(member.role.rawValue).",
                ref: request.ref)
        }
        let change: PeopleChange
        switch request {
        case .listPeople(let m):
            outbox.reply(handle, .people(peopleMessage(ref: m.ref)))
            return
        case .createInvite(let m):
            change = .createInvite(name: m.name, role: m.role, expiresAt: m.expiresAt, oneUse: m.oneUse ?? false)
        case .updateInvite(let m): change = .updateInvite(id: m.invite, disabled: m.disabled)
        case .setRole(let m): change = .setRole(person: m.person, role: m.role)
        case .removePerson(let m): change = .removePerson(m.person)
        case .setLinks(let m): change = .setLinks(m.enabled)
        case .rotateLinks: change = .rotateLinks
        }
        actions.append(.changePeople(change, PeopleAnswer(handle: handle, ref: request.ref)))
    }

    /// The catalog holds new keys or people (an admin's change saved, or re-read after another
    /// node or process changed them): adopts them unless the room already has newer ones, then
    /// closes whom they no longer let in, applies role changes, answers the admin and tells the
    /// other admins.
    mutating func changeAccess(_ change: AccessChange) {
        let (oldKeys, oldLinks) = (keys, people.linksEnabled)
        if change.people.revision >= people.revision {
            if Role.allCases.contains(where: { keys.key(of: $0) != change.keys.key(of: $0) }) {
                rotateKeys(to: change.keys)
            }
            if change.people.revision > people.revision { adopt(change.people) }
        }
        for handle in members.handles {
            guard let member = members.member(on: handle) else { continue }
            if let id = member.person {
                guard let person = people.person(id), !person.removed else {
                    close(handle, reason: Room.removedReason)
                    continue
                }
                if person.role != member.role {
                    members.setRole(person.role, of: handle)
                    outbox.reply(
                        handle,
                        .roleChanged(ServerMessage.RoleChanged(role: person.role, keys: sharedKeys(for: person.role)))
                    )
                    continue
                }
            } else if refusesLink(member.role) {
                close(handle, reason: Room.linksOffReason)
                continue
            }
            let shared = sharedKeys(for: member.role)
            if shared != Self.sharedKeys(oldKeys, linksEnabled: oldLinks, role: member.role) {
                outbox.reply(handle, .roleChanged(ServerMessage.RoleChanged(role: member.role, keys: shared)))
            }
        }
        if let answer = change.answer, members.member(on: answer.handle)?.role == .admin {
            outbox.reply(answer.handle, .people(peopleMessage(ref: answer.ref, created: answer.created)))
        }
        peopleNoticeDue = false
        sendPeople(except: change.answer?.handle)
    }

    /// Adopts newer people (a claim, an arrival, a change) and publishes them for the directory.
    mutating func adopt(_ newer: BoardPeople) {
        guard newer.revision > people.revision else { return }
        let known = Set(people.people.map(\.id))
        for person in newer.people where !person.removed && !known.contains(person.id) { knownNames.note(person.name) }
        people = newer
        actions.append(.publishPeople(newer))
        peopleNoticeDue = true
    }

    /// A person's connection leaves the room at once (no message of it is handled after this) and
    /// is closed 1008 with `reason`.
    private mutating func close(_ handle: ConnectionHandle, reason: String) {
        leave(handle, now: batchTime)
        outbox.close(handle, code: CloseCode.policyViolation, reason: reason)
    }

    /// The catalog refused an admin's change (`unknown-person`, `last-admin`, …): nothing changed.
    mutating func refusePeopleChange(_ handle: ConnectionHandle, _ error: ProtocolError) {
        guard members.member(on: handle) != nil else { return }
        outbox.reply(handle, .error(error))
    }

    /// Sends `people` to every admin connection but `except` (after a change, or a person came or went).
    mutating func sendPeople(except: ConnectionHandle? = nil) {
        let admins = members.handles.filter { $0 != except && members.member(on: $0)?.role == .admin }
        guard !admins.isEmpty else { return }
        outbox.send(WireCodec.encode(.people(peopleMessage(ref: nil))), to: admins)
    }

    /// Sends `people` to the admins if a person came or went, or the people changed, in this batch.
    mutating func sendPeopleIfDue() {
        guard peopleNoticeDue else { return }
        peopleNoticeDue = false
        sendPeople()
    }

    /// The board's people as a member who is not an admin sees them (issue 45, the Members
    /// panel): everyone with access (removed people left out), their roles, who is here and when
    /// they were last seen; no invites, no invite ids, and only the keys `role` may share.
    func peopleMessage(ref: String?, for role: Role) -> ServerMessage.People {
        var message = peopleMessage(ref: ref)
        message.people = message.people.filter { $0.removed != true }.map { person in
            var person = person
            person.invite = nil
            return person
        }
        message.invites = []
        message.keys = sharedKeys(for: role)
        return message
    }

    /// The board's people, invites and links as admins see them, with who is online here.
    func peopleMessage(ref: String?, created: Invite? = nil) -> ServerMessage.People {
        var aliases: [String: String?] = [:]
        for handle in members.handles {
            guard let member = members.member(on: handle), let person = member.person else { continue }
            if aliases[person] == nil || member.alias != nil { aliases[person] = .some(member.alias) }
        }
        return ServerMessage.People(
            ref: ref,
            people: people.people.map { personInfo($0, online: aliases[$0.id] != nil, alias: aliases[$0.id] ?? nil) },
            invites: people.invites.map(Self.inviteInfo), linksEnabled: people.linksEnabled,
            keys: keys.shared(with: .admin), created: created.map(Self.inviteInfo))
    }

    /// A person as the wire describes them.
    func personInfo(_ person: Person, online: Bool, alias: String? = nil) -> ServerMessage.PersonInfo {
        ServerMessage.PersonInfo(
            id: person.id, name: person.name, role: person.role, online: online, joinedAt: person.joinedAt,
            lastSeen: person.lastSeen, removed: person.removed ? true : nil, alias: alias, invite: person.invite)
    }

    private static func inviteInfo(_ invite: Invite) -> ServerMessage.InviteInfo {
        ServerMessage.InviteInfo(
            id: invite.id, name: invite.name, role: invite.role, token: invite.token, createdAt: invite.createdAt,
            expiresAt: invite.expiresAt, maxUses: invite.maxUses, uses: invite.uses, disabled: invite.disabled)
    }
}
