/// What a connection may do on a board (R17), decided by the key it presented in `hello` or its
/// person's role (a personal invite, issue 45); what
/// each role may do is one table, `Role.may(_:)` (`Role+Permissions.swift`).
public enum Role: String, Hashable, Codable, Sendable, CaseIterable {
    /// Everything an editor may do, plus hand out every link of the board, the admin link too.
    case admin
    /// May drag, drop and change the board.
    case editor
    /// Sees everything live and comments on cards (adds comments, edits and deletes its own);
    /// every other change is refused `forbidden`, naming the role, and it cannot drag.
    case commenter
    /// Sees everything live; every change is refused `read-only` and proposals are `forbidden`.
    case viewer
}
