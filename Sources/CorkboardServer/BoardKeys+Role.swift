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
