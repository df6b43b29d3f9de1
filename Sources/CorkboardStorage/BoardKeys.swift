/// The keys of a board, one per role: the admin key opens the admin role, the edit key the
/// editor role, the comment key the commenter role, the view key the viewer role.
///
/// JSON shape: `{"edit":"e-…","view":"v-…","comment":"c-…","admin":"a-…","isOpen":false}`. A
/// record written before comment and admin keys existed decodes them empty (an empty key opens
/// nothing); the stores give such boards new random keys when they open (`withRoleKeys()`).
///
/// An open board (the `--demo` board of `make run`) lets anyone edit, with or without a key.
public struct BoardKeys: Hashable, Codable, Sendable {
    /// Opens the editor role.
    public var edit: String
    /// Opens the viewer role.
    public var view: String
    /// Opens the commenter role (empty on a record not yet upgraded: opens nothing).
    public var comment: String
    /// Opens the admin role (empty on a record not yet upgraded: opens nothing).
    public var admin: String
    /// Anyone may edit, whatever key they present.
    public var isOpen: Bool

    /// Creates keys.
    public init(edit: String, view: String, comment: String = "", admin: String = "", isOpen: Bool = false) {
        self.edit = edit
        self.view = view
        self.comment = comment
        self.admin = admin
        self.isOpen = isOpen
    }

    /// New random keys of 128 bits each.
    public static func random() -> BoardKeys {
        BoardKeys(
            edit: RandomToken.make(prefix: "e-"), view: RandomToken.make(prefix: "v-"),
            comment: RandomToken.make(prefix: "c-"), admin: RandomToken.make(prefix: "a-"))
    }

    /// Whether the comment or the admin key is missing (a record of an older build).
    public var lacksRoleKeys: Bool { comment.isEmpty || admin.isEmpty }

    /// These keys with a new random comment and admin key where they are missing; the edit and
    /// view keys, and so every link already shared, stay.
    public func withRoleKeys() -> BoardKeys {
        var keys = self
        if keys.comment.isEmpty { keys.comment = RandomToken.make(prefix: "c-") }
        if keys.admin.isEmpty { keys.admin = RandomToken.make(prefix: "a-") }
        return keys
    }

    /// Compares two secrets in time independent of where they differ (keys, resume tokens).
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    private enum CodingKeys: String, CodingKey {
        case edit, view, comment, admin, isOpen
    }

    /// Decodes keys; a record of an older build has no comment or admin key (they decode empty).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        edit = try container.decode(String.self, forKey: .edit)
        view = try container.decode(String.self, forKey: .view)
        comment = try container.decodeIfPresent(String.self, forKey: .comment) ?? ""
        admin = try container.decodeIfPresent(String.self, forKey: .admin) ?? ""
        isOpen = try container.decodeIfPresent(Bool.self, forKey: .isOpen) ?? false
    }
}
