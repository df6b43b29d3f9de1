public import CorkboardModel

/// Something a member may or may not do on a board, by its role (R17).
public enum RoleAction: String, Hashable, Sendable, CaseIterable {
    /// Change the board: cards, their content and files, structure, labels, the Trash; take an
    /// edit lease; upload a file. Every operation kind but the comments' asks for it.
    case edit
    /// Add a comment to a card; edit or delete one's own (`addComment`, `editComment`, `deleteComment`).
    case comment
    /// Begin a drag: an editor's drag leases its items to move them; a viewer's only copies them
    /// to another board it may edit (R6).
    case drag
    /// Undo or redo one's own operations; each reverse is checked like the operation it makes.
    case undo
    /// Hand out every link of the board, the admin link too.
    case manageLinks
}

extension Role {
    /// The one decision table of what each role may do (R17).
    ///
    /// | action | admin | editor | commenter | viewer |
    /// |---|---|---|---|---|
    /// | `edit` | ✓ | ✓ | | |
    /// | `comment` | ✓ | ✓ | ✓ | |
    /// | `drag` | ✓ | ✓ | | ✓ (to copy to another board) |
    /// | `undo` | ✓ | ✓ | ✓ (its comments) | |
    /// | `manageLinks` | ✓ | | | |
    public func may(_ action: RoleAction) -> Bool {
        switch (self, action) {
        case (.admin, _): true
        case (.editor, .manageLinks): false
        case (.editor, _): true
        case (.commenter, .comment), (.commenter, .undo): true
        case (.commenter, _): false
        case (.viewer, .drag): true
        case (.viewer, _): false
        }
    }

    /// Whether the role may submit `op` (a batch: every one of its parts, and at least one).
    public func may(_ op: BoardOperation) -> Bool {
        if case .batch(let batch) = op, !batch.ops.isEmpty { return batch.ops.allSatisfy { may($0) } }
        return may(op.roleAction)
    }

    /// The refusal of `op` for this role, or `nil` when the role may submit it.
    public func refusal(of op: BoardOperation) -> Rejection? {
        if case .batch(let batch) = op, !batch.ops.isEmpty {
            return batch.ops.lazy.compactMap { refusal(of: $0) }.first
        }
        guard !may(op.roleAction) else { return nil }
        return refusal(op.roleAction, moving: op.moves)
    }

    /// Why the role may not do `action`: `read-only` for a viewer (it changes nothing), `forbidden`
    /// naming the role for the others; `moving` words it for a move or a drag.
    public func refusal(_ action: RoleAction, moving: Bool = false) -> Rejection {
        switch self {
        case .viewer:
            return .readOnly
        case .commenter:
            let what = moving || action == .drag ? "move them" : "change them"
            return Rejection(
                .forbidden, "A commenter can comment on cards but not \(what); ask an admin for edit access.")
        case .editor, .admin:
            // Only an editor is ever refused here (`manageLinks`); an admin may do everything.
            return Rejection(
                .forbidden, "An editor can change the board but not manage its links; ask an admin of the board.")
        }
    }

    /// The roles whose links this role may hand out (`welcome.keys`): its own and every lower one.
    public var sharedRoles: [Role] {
        switch self {
        case .admin: [.admin, .editor, .commenter, .viewer]
        case .editor: [.editor, .commenter, .viewer]
        case .commenter: [.commenter, .viewer]
        case .viewer: [.viewer]
        }
    }
}

extension BoardOperation {
    /// What a member's role must allow to submit this operation (R17): one decision per kind, so a
    /// new kind does not compile without one. A `batch` (the server's own, for undo) is decided
    /// part by part (`Role.may(_:)`).
    public var roleAction: RoleAction {
        switch self {
        case .addComment, .editComment, .deleteComment:
            .comment
        case .move, .copy, .insert, .insertPlaceholder, .commitPlaceholder, .deletePlaceholder, .delete, .moveOut,
            .updateItem, .updateCard, .createCollection, .renameCollection, .deleteCollection, .moveCollection,
            .setAccepts, .setLayout, .createSection, .renameSection, .deleteSection, .moveSection, .renameBoard,
            .setLabel, .deleteLabel, .batch, .restore, .emptyTrash, .checklist:
            .edit
        }
    }

    /// Whether the operation moves items (its refusal is worded as a move).
    var moves: Bool {
        switch self {
        case .move, .copy, .moveOut: true
        default: false
        }
    }
}
