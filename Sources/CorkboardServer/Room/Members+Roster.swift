import CorkboardProtocol
import OrderedCollections

/// Joins and leaves since the last `membersChanged`: peers learn of them at the next tick, in one
/// message for however many there were, so a join costs every other member O(1) however full the
/// board is. A member who joins and leaves within one tick is never announced.
struct RosterChanges {
    private(set) var joins: OrderedDictionary<String, Member> = [:]
    private(set) var leaves: [String] = []
    /// Members already announced whose role changed: in `joins` again, and announced as left if
    /// they leave before the tick.
    private var changed: Set<String> = []

    /// Whether a `membersChanged` waits for the tick.
    var isPending: Bool { !joins.isEmpty || !leaves.isEmpty }

    mutating func joined(_ member: Member) { joins[member.id] = member }

    /// An announced member changed (its role): peers get it in `joined` again, same id.
    mutating func changed(_ member: Member) {
        if joins[member.id] == nil { changed.insert(member.id) }
        joins[member.id] = member
    }

    mutating func left(_ id: String) {
        if joins.removeValue(forKey: id) == nil || changed.remove(id) != nil { leaves.append(id) }
    }

    /// The message announcing the changes (at most `ProtocolLimits.rosterJoins` joined members),
    /// and a fresh start.
    mutating func take(count: Int) -> ServerMessage.MembersChanged? {
        guard isPending else { return nil }
        defer { self = RosterChanges() }
        let joined = Array(joins.values.prefix(ProtocolLimits.rosterJoins))
        return ServerMessage.MembersChanged(
            count: count, joined: joined, left: leaves, more: joins.count > joined.count ? true : nil)
    }
}

extension Members {
    /// Sends every member (slow ones too: member changes are never withheld) one `membersChanged`
    /// with the joins and leaves since the last, encoded once; nothing when there were none.
    mutating func sendRosterChanges(into outbox: inout RoomOutbox) {
        guard let changes = roster.take(count: count) else { return }
        broadcast(.membersChanged(changes), into: &outbox)
    }

    /// The members a joiner's `welcome` lists: those holding live drags (so it can name them), then
    /// the earliest to join, at most `ProtocolLimits.welcomeMembers` with the joiner last.
    ///
    /// - Complexity: O(`ProtocolLimits.welcomeMembers` + `dragHolders`), whatever the board's size.
    func welcomeList(for joiner: ConnectionHandle, dragHolders: [String]) -> [Member] {
        let room = ProtocolLimits.welcomeMembers - 1
        var list: [Member] = []
        var listed: Set<String> = []
        func add(_ member: Member) {
            guard list.count < room, member.id != states[joiner]?.member.id, listed.insert(member.id).inserted else {
                return
            }
            list.append(member)
        }
        for id in dragHolders {
            if let other = handle(ofMember: id), let member = states[other]?.member { add(member) }
        }
        for state in states.values.prefix(ProtocolLimits.welcomeMembers) { add(state.member) }
        if let own = states[joiner]?.member { list.append(own) }
        return list
    }

    /// Answers `listMembers`: the members named in `ids` that are connected, or a page of members
    /// in join order after the member `after` (from the first without it).
    func memberList(_ request: ClientMessage.ListMembers) -> ServerMessage.MemberList {
        if let ids = request.ids {
            let found = ids.compactMap { id in handle(ofMember: id).flatMap { states[$0]?.member } }
            return ServerMessage.MemberList(ref: request.ref, members: found, count: count)
        }
        var start = 0
        if let after = request.after {
            // A member that left since the previous page: start again from the beginning rather
            // than skip anyone.
            start = handle(ofMember: after).flatMap { states.index(forKey: $0) }.map { $0 + 1 } ?? 0
        }
        let limit = request.limit ?? 100
        let end = min(states.count, start + limit)
        let page = states.values[start..<end].map(\.member)
        let next = end < states.count ? page.last?.id : nil
        return ServerMessage.MemberList(ref: request.ref, members: page, count: count, next: next)
    }
}
