public import CorkboardModel
public import CorkboardProtocol
public import CorkboardStorage

extension BoardKeys {
    /// The role a presented key opens, if any; every stored key is compared in constant time, and
    /// an empty stored key (a record not yet upgraded) opens nothing. On a board open to anyone a
    /// key that opens no other role opens the editor role, as no key does.
    public func role(for key: String?) -> Role? {
        var opened: Role?
        if let key {
            // Every key is compared, so the time taken does not tell which one matched; the
            // highest role (`Role.allCases` order) wins.
            for role in Role.allCases {
                let stored = self.key(of: role)
                if !stored.isEmpty && BoardKeys.constantTimeEquals(key, stored) { opened = opened ?? role }
            }
        }
        if isOpen { return opened ?? .editor }
        return opened
    }

    /// Whether `newer` replaces a key of these (a rotation): one a member may have joined with. A
    /// key given to a board that had none (a record of an older build, upgraded) replaces nothing.
    public func isReplaced(by newer: BoardKeys) -> Bool {
        Role.allCases.contains { role in
            let old = key(of: role)
            return !old.isEmpty && old != newer.key(of: role)
        }
    }

    /// The key that opens `role` (empty when the board has none yet).
    public func key(of role: Role) -> String {
        switch role {
        case .admin: admin
        case .editor: edit
        case .commenter: comment
        case .viewer: view
        }
    }
}

extension BoardRecord {
    /// The board's public description.
    public var info: BoardInfo { BoardInfo(id: id, title: title) }
}

extension BoardKeys {
    /// The keys a member in `role` may put in share links (`welcome.keys`): its own role's and
    /// every lower one's (`Role.sharedRoles`): an admin all four, an editor edit, comment and
    /// view, a commenter comment and view, a viewer view. A board open to anyone leaves the edit
    /// key out (its edit link needs no key).
    public func shared(with role: Role) -> ServerMessage.ShareKeys {
        var shared = ServerMessage.ShareKeys(view: view)
        for other in role.sharedRoles {
            let key = key(of: other)
            guard !key.isEmpty else { continue }
            switch other {
            case .admin: shared.admin = key
            case .editor: shared.edit = isOpen ? nil : key
            case .commenter: shared.comment = key
            case .viewer: break
            }
        }
        return shared
    }
}
