import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Testing

/// R17 in a room: each key opens its role, and the room checks the role of every operation kind,
/// drag, edit lease and undo.
@Suite struct RoleRoomTests {
    /// Whether a rejection is a role's (`forbidden` naming the role, or a viewer's `read-only`).
    static func isRoleRefusal(_ rejection: Rejection?) -> Bool {
        guard let rejection else { return false }
        return rejection.code == .readOnly || rejection.message.contains("ask an admin")
    }

    @Test("R17: each key opens its role, and welcome.keys carries the keys that role may hand out")
    func keysOpenRoles() async throws {
        let h = RoomHarness()
        let expected: [(String, Role, ServerMessage.ShareKeys)] = [
            (
                "admin-key", .admin,
                .init(view: "view-key", edit: "edit-key", comment: "comment-key", admin: "admin-key")
            ),
            ("edit-key", .editor, .init(view: "view-key", edit: "edit-key", comment: "comment-key")),
            ("comment-key", .commenter, .init(view: "view-key", comment: "comment-key")),
            ("view-key", .viewer, .init(view: "view-key")),
        ]
        for (n, (key, role, keys)) in expected.enumerated() {
            let welcome = try #require(await h.join(conn(UInt64(n + 1)), key: key))
            #expect(welcome.member.role == role, "\(key)")
            #expect(welcome.keys == keys, "\(key)")
        }
        // A record of an older build has no comment or admin key: an empty key opens nothing.
        let old = RoomHarness(keys: BoardKeys(edit: "edit-key", view: "view-key"))
        await old.process(.join(conn(9), .init(board: "b", key: "", name: "Empty")))
        #expect(old.sink.take(conn(9)).compactMap(\.error).first?.code == .badKey)
        let editor = try #require(await old.join(conn(10), key: "edit-key"))
        #expect(editor.keys == .init(view: "view-key", edit: "edit-key"))
        // On a board open to anyone the edit link needs no key, and the admin key still opens admin.
        let open = RoomHarness(keys: BoardKeys(edit: "e", view: "v", comment: "c", admin: "a", isOpen: true))
        #expect(try #require(await open.join(conn(11), key: "a")).member.role == .admin)
        #expect(try #require(await open.join(conn(12), key: nil)).keys == .init(view: "v", comment: "c"))
    }

    @Test("R17: a commenter's comment kinds commit; every other kind is refused forbidden naming the role")
    func commenterEveryKind() async throws {
        let h = RoomHarness()
        await h.join(conn(1), name: "Ed")
        let cy = try #require(await h.join(conn(2), name: "Cy", key: "comment-key"))
        let first = try #require(
            await h.submit(conn(2), .addComment(.init(item: h.gc(1), text: "First")), opId: "c0"))
        #expect(first.outcome.committed != nil)
        let comment = Board.commentID(clientId: cy.member.clientId, opId: "c0").rawValue
        _ = h.sink.take(conn(1))
        for (kind, op) in h.ids.sampleOperations(comment: comment) {
            let head = await h.room.head
            await h.send(conn(2), .submit(.init(ref: "ref-\(kind)", opId: "k-\(kind)", base: head, op: op)))
            let answer = h.sink.take(conn(2))
            if RoleRoomTests.expectedComment(kind) {
                #expect(answer.compactMap(\.ack).first?.outcome.committed != nil, "\(kind): \(answer)")
                #expect(await h.room.head == head + 1, "\(kind)")
                await h.process(.tick)
                _ = h.sink.take(conn(1))
                continue
            }
            if kind == "moveOut" {
                // The server's half of a drop on another board: refused to anyone before the role.
                #expect(answer.compactMap(\.error).first?.code == .invalidField, "\(kind)")
            } else {
                let rejection = answer.compactMap(\.ack).first?.outcome.rejection
                #expect(rejection?.code == .forbidden, "\(kind): \(answer)")
                #expect(rejection?.message.hasPrefix("A commenter can comment on cards but not ") == true, "\(kind)")
            }
            #expect(await h.room.head == head, "\(kind) changed nothing")
            await h.process(.tick)
            #expect(h.sink.take(conn(1)).compactMap(\.op).isEmpty, "\(kind): peers saw nothing")
        }
    }

    @Test("R17: a viewer's every kind is refused read-only; an admin's and an editor's are never refused for the role")
    func otherRolesEveryKind() async throws {
        for (key, refused) in [("view-key", true), ("admin-key", false), ("edit-key", false)] {
            let h = RoomHarness()
            let member = try #require(await h.join(conn(1), key: key))
            let comment = Board.commentID(clientId: member.member.clientId, opId: "k-addComment").rawValue
            for (kind, op) in h.ids.sampleOperations(comment: comment) where kind != "moveOut" {
                let head = await h.room.head
                let ack = try #require(await h.submit(conn(1), op, opId: "k-\(kind)"), "\(key) \(kind)")
                #expect(Self.isRoleRefusal(ack.outcome.rejection) == refused, "\(key) \(kind): \(ack.outcome)")
                if refused {
                    #expect(ack.outcome.rejectCode == .readOnly, "\(kind)")
                    #expect(await h.room.head == head)
                }
            }
        }
    }

    @Test("R17: a commenter cannot drag (every item refused forbidden, peers see nothing) nor take an edit lease")
    func commenterDragsAndEdits() async throws {
        let h = RoomHarness()
        await h.join(conn(1))
        await h.join(conn(2), name: "Cy", key: "comment-key")
        _ = h.sink.take(conn(1))
        let grant = try #require(await h.dragBegin(conn(2), "d1", [h.gc(1), h.gc(2)]))
        #expect(grant.granted.isEmpty)
        #expect(grant.refused.map(\.item) == [h.gc(1), h.gc(2)])
        #expect(grant.refused.allSatisfy { $0.code == .forbidden })
        #expect(
            grant.refused.first?.message
                == "A commenter can comment on cards but not move them; ask an admin for edit access.")
        await h.process(.tick)
        #expect(h.sink.take(conn(1)).compactMap(\.dragStarted).isEmpty)
        // The drag did not start: its drop names no session.
        await h.send(
            conn(2),
            .drop(.init(ref: "r", session: "d1", opId: "drop1", base: 0, destination: h.at(h.found, h.foundSection, 0)))
        )
        #expect(h.sink.take(conn(2)).compactMap(\.error).first?.code == .unknownSession)
        #expect(await h.room.head == 0)
        let edit = await h.editBegin(conn(2), h.gc(1))
        let refused = try #require(edit.compactMap(\.editRefused).first)
        #expect(refused.code == .forbidden)
        #expect(refused.message.hasPrefix("A commenter can comment on cards but not change them"))
        // A viewer still drags, to copy to another board (as before roles).
        await h.join(conn(3), name: "Vi", key: "view-key")
        #expect(try #require(await h.dragBegin(conn(3), "d2", [h.gc(3)])).granted == [h.gc(3)])
    }

    @Test("R17, R13: a commenter undoes its comment; a move it made as an editor is refused forbidden and passed")
    func commenterUndo() async throws {
        let h = RoomHarness()
        await h.join(conn(1), name: "Cy", clientId: "cy")
        let moved = try #require(
            await h.submit(
                conn(1), .move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0))), opId: "m1"))
        #expect(moved.outcome.committed != nil)
        // The same person comes back with the comment link (the edit link was taken from them).
        await h.process(.leave(conn(1)))
        let cy = try #require(await h.join(conn(2), name: "Cy", key: "comment-key", clientId: "cy", lastSeq: 1))
        #expect(cy.member.role == .commenter)
        #expect(cy.undoable == ServerMessage.Undoable(undo: true, redo: false))
        let added = try #require(await h.submit(conn(2), .addComment(.init(item: h.gc(2), text: "Hi")), opId: "c1"))
        #expect(added.outcome.committed != nil)
        let undone = try #require(await h.undo(conn(2), opId: "u1"))
        #expect(undone.outcome.committed?.op.kind == "deleteComment")
        #expect(await h.snapshot.board.details(of: h.gc(2))?.comments.isEmpty ?? true)
        let head = await h.room.head
        let refused = try #require(await h.undo(conn(2), opId: "u2"))
        #expect(refused.outcome.rejectCode == .forbidden)
        #expect(refused.outcome.rejection?.message.contains("A commenter can comment on cards but not ") == true)
        #expect(await h.room.head == head)
        #expect(await h.items(h.foundSection).first == h.gc(1), "the move stands")
        // The history moved past it (R13): nothing more to undo.
        let nothing = try #require(await h.undo(conn(2), opId: "u3"))
        #expect(nothing.outcome.rejectCode == .notFound)
        // A viewer's undo is refused read-only, as before roles.
        await h.join(conn(3), key: "view-key")
        #expect(try #require(await h.undo(conn(3), opId: "v1")).outcome.rejectCode == .readOnly)
    }

    @Test("R17: a rotated key closes the members who joined with it; keys only added (an upgraded record) close nobody")
    func keysAddedOrRotated() async throws {
        let h = RoomHarness(keys: BoardKeys(edit: "edit-key", view: "view-key"))
        await h.join(conn(1))
        let upgraded = BoardKeys(edit: "edit-key", view: "view-key", comment: "comment-key", admin: "admin-key")
        await h.process(.keysRotated(upgraded))
        #expect(h.sink.closes(of: conn(1)).isEmpty)
        #expect(h.room.keys == upgraded)
        #expect(try #require(await h.join(conn(2), key: "comment-key")).member.role == .commenter)
        var rotated = upgraded
        rotated.comment = "comment-key-2"
        await h.process(.keysRotated(rotated))
        #expect(h.sink.closes(of: conn(1)).isEmpty, "the edit key still opens the board")
        #expect(h.sink.closes(of: conn(2)).map(\.code) == [CloseCode.policyViolation])
        await h.process(.keysRotated(.random()))
        #expect(h.sink.closes(of: conn(1)).map(\.code) == [CloseCode.policyViolation])
    }

    static func expectedComment(_ kind: String) -> Bool {
        ["addComment", "editComment", "deleteComment"].contains(kind)
    }
}

/// R17 across boards: a drop on another board checks the role the key it carries opens there.
@Suite struct RoleCrossBoardTests {
    @Test("R17/R6: a comment key for the other board opens nothing to drop on; its admin key moves")
    func commentKeyOfTheOtherBoard() async throws {
        let b = try await TwoBoards.joined()
        let (a, z) = (b.a, b.z)
        await a.dragBegin(conn(1), "d1", [a.gc(1)])
        await b.hover("d1", over: b.foundTarget(), key: "comment-key")
        #expect(await b.proposal()?.proposal.operation == .forbidden)
        await b.drop("d1", opId: "k1", at: z.at(z.found, z.foundSection, 0), key: "comment-key")
        let refused = try #require(await b.ack("k1"))
        #expect(refused.outcome.rejectCode == .readOnly)
        #expect(refused.outcome.rejection?.field == "key")
        #expect(refused.outcome.rejection?.message.contains("(it opens it for a commenter)") == true)
        #expect(await a.room.head == 0)
        #expect(await z.room.head == 0)
        await a.dragBegin(conn(1), "d2", [a.gc(1)])
        await b.drop("d2", opId: "k2", at: z.at(z.found, z.foundSection, 0), key: "admin-key")
        #expect(try #require(await b.ack("k2")).outcome.committed != nil)
        #expect(await z.items(z.foundSection).first == a.gc(1))
        #expect(!(await a.items(a.toFind)).contains(a.gc(1)))
    }
}
