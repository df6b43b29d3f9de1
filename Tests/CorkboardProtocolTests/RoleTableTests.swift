import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

/// R17: the one table of what each role may do, kind by kind.
@Suite struct RoleTableTests {
    /// The decision for every operation kind. A kind added to `BoardOperation.kinds` without an
    /// entry here fails `everyKindIsDecided`.
    static let expected: [String: RoleAction] = [
        "move": .edit, "copy": .edit, "insert": .edit, "insertPlaceholder": .edit, "commitPlaceholder": .edit,
        "deletePlaceholder": .edit, "delete": .edit, "moveOut": .edit, "updateItem": .edit, "updateCard": .edit,
        "createCollection": .edit, "renameCollection": .edit, "deleteCollection": .edit, "moveCollection": .edit,
        "setAccepts": .edit, "setLayout": .edit, "createSection": .edit, "renameSection": .edit,
        "deleteSection": .edit, "moveSection": .edit, "renameBoard": .edit, "batch": .edit, "setLabel": .edit,
        "deleteLabel": .edit, "addComment": .comment, "editComment": .comment, "deleteComment": .comment,
        "restore": .edit, "emptyTrash": .edit, "checklist": .edit,
    ]

    /// What each role may do, written out once more by hand.
    static let allowed: [Role: Set<RoleAction>] = [
        .admin: [.edit, .comment, .drag, .undo, .manageLinks],
        .editor: [.edit, .comment, .drag, .undo],
        .commenter: [.comment, .undo],
        .viewer: [.drag],
    ]

    @Test("R17: every operation kind has a decision, and each sample of it is decided so")
    func everyKindIsDecided() {
        #expect(Set(Self.expected.keys) == Set(BoardOperation.kinds))
        for (kind, op) in DemoIDs(board: "b").sampleOperations() {
            #expect(op.kind == kind)
            #expect(op.roleAction == Self.expected[kind], "\(kind)")
        }
    }

    @Test("R17: the table: admins everything, editors all but links, commenters comments and undo, viewers drags")
    func tableOfActions() {
        for role in Role.allCases {
            for action in RoleAction.allCases {
                #expect(role.may(action) == Self.allowed[role]!.contains(action), "\(role) \(action)")
            }
        }
    }

    @Test("R17: each role's answer to every kind: refused forbidden naming the commenter, read-only for a viewer")
    func refusalsOfEveryKind() {
        for (kind, op) in DemoIDs(board: "b").sampleOperations() {
            let comment = Self.expected[kind] == .comment
            #expect(Role.admin.may(op) && Role.editor.may(op), "\(kind)")
            #expect(Role.admin.refusal(of: op) == nil && Role.editor.refusal(of: op) == nil, "\(kind)")
            #expect(Role.commenter.may(op) == comment, "\(kind)")
            #expect(Role.viewer.may(op) == false, "\(kind)")
            #expect(Role.viewer.refusal(of: op) == .readOnly, "\(kind)")
            if comment {
                #expect(Role.commenter.refusal(of: op) == nil, "\(kind)")
            } else {
                let refusal = Role.commenter.refusal(of: op)
                #expect(refusal?.code == .forbidden, "\(kind)")
                #expect(refusal?.message.hasPrefix("A commenter can comment on cards but not ") == true, "\(kind)")
                #expect(refusal?.message.hasSuffix("ask an admin for edit access.") == true, "\(kind)")
            }
        }
        let move = DemoIDs(board: "b").sampleOperations().first { $0.kind == "move" }!.op
        #expect(
            Role.commenter.refusal(of: move)?.message
                == "A commenter can comment on cards but not move them; ask an admin for edit access.")
    }

    @Test("R17: a batch is decided part by part, and an empty one as a change")
    func batches() {
        let add = BoardOperation.addComment(.init(item: ItemID("b-gc1"), text: "Hi"))
        let rename = BoardOperation.renameBoard(.init(title: "New"))
        #expect(Role.commenter.may(.batch(.init(ops: [add, add]))))
        #expect(!Role.commenter.may(.batch(.init(ops: [add, rename]))))
        #expect(Role.commenter.refusal(of: .batch(.init(ops: [add, rename])))?.code == .forbidden)
        #expect(!Role.commenter.may(.batch(.init(ops: []))))
    }

    @Test("R17: a role hands out its own link and every lower one")
    func sharedRoles() {
        #expect(Role.admin.sharedRoles == [.admin, .editor, .commenter, .viewer])
        #expect(Role.editor.sharedRoles == [.editor, .commenter, .viewer])
        #expect(Role.commenter.sharedRoles == [.commenter, .viewer])
        #expect(Role.viewer.sharedRoles == [.viewer])
    }
}
