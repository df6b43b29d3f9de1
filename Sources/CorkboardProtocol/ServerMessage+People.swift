public import CorkboardModel

extension ServerMessage {
    /// Someone with access through a personal invite, as admins (and the person's own `welcome`) see them.
    ///
    /// JSON shape: `{"id":"p-…","name":"Bea","role":"commenter","online":true,"joinedAt":1796000000,
    /// "lastSeen":1796000500,"invite":"i-…"}`, plus `"removed":true` and `"alias":"Beatrice"` when so.
    public struct PersonInfo: Hashable, Codable, Sendable {
        /// `p-` and 16 hex digits.
        public var id: String
        /// The invite's name.
        public var name: String
        /// What they may do.
        public var role: Role
        /// Whether a connection of theirs is on the board now (on this node).
        public var online: Bool
        /// When they claimed the invite, seconds since 1970.
        public var joinedAt: Double
        /// When they last opened the board.
        public var lastSeen: Double?
        /// `true` once an admin removed them.
        public var removed: Bool?
        /// The display name a connection of theirs uses, when it differs from `name`.
        public var alias: String?
        /// The id of the invite they claimed (to admins only).
        public var invite: String?

        /// Creates the description.
        public init(
            id: String, name: String, role: Role, online: Bool, joinedAt: Double, lastSeen: Double? = nil,
            removed: Bool? = nil, alias: String? = nil, invite: String?
        ) {
            self.id = id
            self.name = name
            self.role = role
            self.online = online
            self.joinedAt = joinedAt
            self.lastSeen = lastSeen
            self.removed = removed
            self.alias = alias
            self.invite = invite
        }
    }

    /// A personal invite as admins see it (its token included, for the link).
    ///
    /// JSON shape: `{"id":"i-…","name":"Bea","role":"commenter","token":"t-…","createdAt":1796000000,
    /// "expiresAt":1796600000,"maxUses":1,"uses":0,"disabled":false}`.
    public struct InviteInfo: Hashable, Codable, Sendable {
        /// `i-` and 16 hex digits.
        public var id: String
        /// The person's name.
        public var name: String
        /// The role the person gets.
        public var role: Role
        /// The secret of the link `?board=ID&invite=TOKEN`.
        public var token: String
        /// When it was made, seconds since 1970.
        public var createdAt: Double
        /// When it stops opening the board.
        public var expiresAt: Double?
        /// How many devices may claim it (1: one use).
        public var maxUses: Int?
        /// How many devices claimed it.
        public var uses: Int
        /// Disabled by an admin (or its person was removed).
        public var disabled: Bool

        /// Creates the description.
        public init(
            id: String, name: String, role: Role, token: String, createdAt: Double, expiresAt: Double? = nil,
            maxUses: Int? = nil, uses: Int, disabled: Bool
        ) {
            self.id = id
            self.name = name
            self.role = role
            self.token = token
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.maxUses = maxUses
            self.uses = uses
            self.disabled = disabled
        }
    }

    /// `people`: the board's people, invites and links, to admins.
    public struct People: Equatable, Codable, Sendable {
        /// The admin message this answers; `nil` when pushed after a change.
        public var ref: String?
        /// Everyone who claimed an invite, removed ones too, in join order.
        public var people: [PersonInfo]
        /// The invites, in creation order.
        public var invites: [InviteInfo]
        /// Whether the edit, comment and view keys open the board.
        public var linksEnabled: Bool
        /// All four keys.
        public var keys: ShareKeys
        /// The invite `createInvite` made.
        public var created: InviteInfo?

        /// Creates the message.
        public init(
            ref: String? = nil, people: [PersonInfo], invites: [InviteInfo], linksEnabled: Bool, keys: ShareKeys,
            created: InviteInfo? = nil
        ) {
            self.ref = ref
            self.people = people
            self.invites = invites
            self.linksEnabled = linksEnabled
            self.keys = keys
            self.created = created
        }
    }

    /// `roleChanged`: this connection's role or share keys changed (an admin's `setRole`,
    /// `setLinks` or `rotateLinks`).
    public struct RoleChanged: Hashable, Codable, Sendable {
        /// The role from now on.
        public var role: Role
        /// The keys this connection may share from now on.
        public var keys: ShareKeys

        /// Creates the message.
        public init(role: Role, keys: ShareKeys) {
            self.role = role
            self.keys = keys
        }
    }
}
