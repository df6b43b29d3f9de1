public import CorkboardModel

/// An admin's request about a board's people, invites or links (issue 45): `listPeople`,
/// `createInvite`, `updateInvite`, `setRole`, `removePerson`, `setLinks`, `rotateLinks`. Each is
/// answered `people`; from a member who is not an admin, `error` `forbidden`.
public enum PeopleRequest: Hashable, Sendable {
    /// `listPeople`: the board's people, invites and links.
    case listPeople(Plain)
    /// `createInvite`: a personal invite for a named person with a role.
    case createInvite(CreateInvite)
    /// `updateInvite`: disables or enables an invite.
    case updateInvite(UpdateInvite)
    /// `setRole`: gives a person another role, at once on their open connections.
    case setRole(SetRole)
    /// `removePerson`: removes a person, closing their connections.
    case removePerson(RemovePerson)
    /// `setLinks`: turns the edit, comment and view keys on or off.
    case setLinks(SetLinks)
    /// `rotateLinks`: new edit, comment and view keys.
    case rotateLinks(Plain)

    /// Every wire type of these requests.
    public static let types = [
        "listPeople", "createInvite", "updateInvite", "setRole", "removePerson", "setLinks", "rotateLinks",
    ]

    /// The wire tag.
    public var type: String {
        switch self {
        case .listPeople: "listPeople"
        case .createInvite: "createInvite"
        case .updateInvite: "updateInvite"
        case .setRole: "setRole"
        case .removePerson: "removePerson"
        case .setLinks: "setLinks"
        case .rotateLinks: "rotateLinks"
        }
    }

    /// The request's reference, echoed in `people` or `error`.
    public var ref: String? {
        switch self {
        case .listPeople(let m), .rotateLinks(let m): m.ref
        case .createInvite(let m): m.ref
        case .updateInvite(let m): m.ref
        case .setRole(let m): m.ref
        case .removePerson(let m): m.ref
        case .setLinks(let m): m.ref
        }
    }

    /// Decodes the request of wire type `type`.
    init(_ type: String, from decoder: any Decoder) throws {
        switch type {
        case "listPeople": self = .listPeople(try Plain(from: decoder))
        case "createInvite": self = .createInvite(try CreateInvite(from: decoder))
        case "updateInvite": self = .updateInvite(try UpdateInvite(from: decoder))
        case "setRole": self = .setRole(try SetRole(from: decoder))
        case "removePerson": self = .removePerson(try RemovePerson(from: decoder))
        case "setLinks": self = .setLinks(try SetLinks(from: decoder))
        case "rotateLinks": self = .rotateLinks(try Plain(from: decoder))
        default: throw UnknownType(type: type)
        }
    }

    /// Encodes the request's fields (its `type` is written by `ClientMessage`).
    func encode(to encoder: any Encoder) throws {
        switch self {
        case .listPeople(let m), .rotateLinks(let m): try m.encode(to: encoder)
        case .createInvite(let m): try m.encode(to: encoder)
        case .updateInvite(let m): try m.encode(to: encoder)
        case .setRole(let m): try m.encode(to: encoder)
        case .removePerson(let m): try m.encode(to: encoder)
        case .setLinks(let m): try m.encode(to: encoder)
        }
    }

    /// A request with nothing but its `ref` (`listPeople`, `rotateLinks`).
    public struct Plain: Hashable, Codable, Sendable {
        /// Echoed in `people`.
        public var ref: String?

        /// Creates the request.
        public init(ref: String? = nil) { self.ref = ref }
    }

    /// `createInvite`: `{"type":"createInvite","name":"Bea","role":"commenter","expiresAt":…,"oneUse":true}`.
    public struct CreateInvite: Hashable, Codable, Sendable {
        /// Echoed in `people`.
        public var ref: String?
        /// The person's name, 1–64 characters after trimming.
        public var name: String
        /// The role the person gets.
        public var role: Role
        /// When the invite stops opening the board, seconds since 1970.
        public var expiresAt: Double?
        /// `true`: one device may claim it.
        public var oneUse: Bool?

        /// Creates the request.
        public init(ref: String? = nil, name: String, role: Role, expiresAt: Double? = nil, oneUse: Bool? = nil) {
            self.ref = ref
            self.name = name
            self.role = role
            self.expiresAt = expiresAt
            self.oneUse = oneUse
        }
    }

    /// `updateInvite`: `{"type":"updateInvite","invite":"i-…","disabled":true}`.
    public struct UpdateInvite: Hashable, Codable, Sendable {
        /// Echoed in `people`.
        public var ref: String?
        /// The invite id.
        public var invite: String
        /// Disable (`true`) or enable it.
        public var disabled: Bool

        /// Creates the request.
        public init(ref: String? = nil, invite: String, disabled: Bool) {
            self.ref = ref
            self.invite = invite
            self.disabled = disabled
        }
    }

    /// `setRole`: `{"type":"setRole","person":"p-…","role":"viewer"}`.
    public struct SetRole: Hashable, Codable, Sendable {
        /// Echoed in `people`.
        public var ref: String?
        /// The person id.
        public var person: String
        /// The new role.
        public var role: Role

        /// Creates the request.
        public init(ref: String? = nil, person: String, role: Role) {
            self.ref = ref
            self.person = person
            self.role = role
        }
    }

    /// `removePerson`: `{"type":"removePerson","person":"p-…"}`.
    public struct RemovePerson: Hashable, Codable, Sendable {
        /// Echoed in `people`.
        public var ref: String?
        /// The person id.
        public var person: String

        /// Creates the request.
        public init(ref: String? = nil, person: String) {
            self.ref = ref
            self.person = person
        }
    }

    /// `setLinks`: `{"type":"setLinks","enabled":false}`.
    public struct SetLinks: Hashable, Codable, Sendable {
        /// Echoed in `people`.
        public var ref: String?
        /// Whether the edit, comment and view keys open the board.
        public var enabled: Bool

        /// Creates the request.
        public init(ref: String? = nil, enabled: Bool) {
            self.ref = ref
            self.enabled = enabled
        }
    }
}
