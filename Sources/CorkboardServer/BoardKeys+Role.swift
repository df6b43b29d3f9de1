public import CorkboardProtocol
public import CorkboardStorage

extension BoardKeys {
    /// The role a presented key opens, if any.
    public func role(for key: String?) -> Role? {
        if isOpen { return key.map { BoardKeys.constantTimeEquals($0, view) } == true ? .viewer : .editor }
        guard let key else { return nil }
        if BoardKeys.constantTimeEquals(key, edit) { return .editor }
        if BoardKeys.constantTimeEquals(key, view) { return .viewer }
        return nil
    }
}

extension BoardRecord {
    /// The board's public description.
    public var info: BoardInfo { BoardInfo(id: id, title: title) }
}

extension BoardKeys {
    /// The keys a member in `role` may put in share links (`welcome.keys`): the view key for
    /// everyone; the edit key for editors, unless the board is open to anyone (its edit link
    /// needs no key).
    public func shared(with role: Role) -> ServerMessage.ShareKeys {
        ServerMessage.ShareKeys(view: view, edit: role == .editor && !isOpen ? edit : nil)
    }
}
