public import CorkboardModel

/// A board's people, its personal invites and whether its edit, comment and view keys open it
/// (issue 45): kept in the board's record (`BoardRecord.people`), so no store needs a table of its own.
///
/// JSON shape: `{"people":[…],"invites":[…],"linksEnabled":true,"revision":3}`. A record of an
/// older build has none: it decodes with empty lists and the links on.
///
/// A value: the decisions on it (claiming, the admins' changes) are pure and live in
/// `BoardPeople+Claim.swift` and `BoardPeople+Changes.swift`; a catalog applies them inside one
/// transaction (`BoardCatalog.updateRecord`).
public struct BoardPeople: Hashable, Codable, Sendable {
    /// Everyone who claimed an invite, removed ones too, in join order.
    public var people: [Person]
    /// The invites, in creation order.
    public var invites: [Invite]
    /// Whether the edit, comment and view keys open the board ("Anyone with the link").
    public var linksEnabled: Bool
    /// One more for every change: a room adopts a value only when it is newer than its own (two
    /// nodes' re-reads and the room's own writes can arrive in any order).
    public var revision: Int

    /// At most this many invites per board (the record is read whole by every node).
    public static let maxInvites = 500
    /// At most this many people per board.
    public static let maxPeople = 1000

    /// Nobody yet, links on.
    public init(people: [Person] = [], invites: [Invite] = [], linksEnabled: Bool = true, revision: Int = 0) {
        self.people = people
        self.invites = invites
        self.linksEnabled = linksEnabled
        self.revision = revision
    }

    private enum CodingKeys: String, CodingKey {
        case people, invites, linksEnabled, revision
    }

    /// Decodes; every field may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        people = try container.decodeIfPresent([Person].self, forKey: .people) ?? []
        invites = try container.decodeIfPresent([Invite].self, forKey: .invites) ?? []
        linksEnabled = try container.decodeIfPresent(Bool.self, forKey: .linksEnabled) ?? true
        revision = try container.decodeIfPresent(Int.self, forKey: .revision) ?? 0
    }

    /// The person with id `id`.
    public func person(_ id: String) -> Person? { people.first { $0.id == id } }

    /// The person admins not removed: the board's admins (the admin key aside).
    public var admins: [Person] { people.filter { !$0.removed && $0.role == .admin } }
}

/// Someone who claimed a personal invite on one device.
///
/// JSON shape: `{"id":"p-…","name":"Bea","role":"commenter","device":"<sha256 hex>","invite":"i-…",
/// "joinedAt":1796000000,"lastSeen":1796000500,"removed":false}`.
public struct Person: Hashable, Codable, Sendable {
    /// `p-` and 16 hex digits.
    public var id: String
    /// The invite's name: what the board calls them.
    public var name: String
    /// What they may do.
    public var role: Role
    /// The SHA-256 (lowercase hex) of the device key that claimed the invite; the key is not kept.
    public var device: String
    /// The id of the invite they claimed.
    public var invite: String
    /// When they claimed it, seconds since 1970.
    public var joinedAt: Double
    /// When they last opened the board.
    public var lastSeen: Double?
    /// Removed by an admin: listed (history names them) but opens nothing.
    public var removed: Bool

    /// Creates a person.
    public init(
        id: String, name: String, role: Role, device: String, invite: String, joinedAt: Double,
        lastSeen: Double? = nil, removed: Bool = false
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.device = device
        self.invite = invite
        self.joinedAt = joinedAt
        self.lastSeen = lastSeen
        self.removed = removed
    }
}

/// A personal invite: a link for one named person with a role.
///
/// JSON shape: `{"id":"i-…","token":"t-…","name":"Bea","role":"commenter","createdAt":1796000000,
/// "expiresAt":1796600000,"maxUses":1,"uses":0,"disabled":false}`.
public struct Invite: Hashable, Codable, Sendable {
    /// `i-` and 16 hex digits; public (admins' messages name it).
    public var id: String
    /// `t-` and 32 hex digits (128 random bits): a secret like the keys, never logged.
    public var token: String
    /// The person's name, 1–64 characters.
    public var name: String
    /// The role the person gets.
    public var role: Role
    /// When it was made, seconds since 1970.
    public var createdAt: Double
    /// After this (seconds since 1970) it opens nothing.
    public var expiresAt: Double?
    /// How many devices may claim it (1: one use); `nil`: any number.
    public var maxUses: Int?
    /// How many devices claimed it.
    public var uses: Int
    /// Disabled by an admin (or its person was removed).
    public var disabled: Bool

    /// Creates an invite.
    public init(
        id: String, token: String, name: String, role: Role, createdAt: Double, expiresAt: Double? = nil,
        maxUses: Int? = nil, uses: Int = 0, disabled: Bool = false
    ) {
        self.id = id
        self.token = token
        self.name = name
        self.role = role
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.maxUses = maxUses
        self.uses = uses
        self.disabled = disabled
    }

    /// A new invite with a fresh id and token.
    public static func make(
        name: String, role: Role, now: Double, expiresAt: Double? = nil, oneUse: Bool = false
    ) -> Invite {
        Invite(
            id: RandomToken.make(prefix: "i-", bytes: 8), token: RandomToken.make(prefix: "t-"), name: name, role: role,
            createdAt: now, expiresAt: expiresAt, maxUses: oneUse ? 1 : nil)
    }

    /// Whether no device may claim it any more.
    public var isUsedUp: Bool { maxUses.map { uses >= $0 } ?? false }
}
