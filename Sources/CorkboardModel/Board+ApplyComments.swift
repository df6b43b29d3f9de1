extension Board {
    /// The id of the comment an `addComment` makes: `"<clientId>:<opId>"`.
    public static func commentID(clientId: String, opId: String) -> CommentID { CommentID("\(clientId):\(opId)") }

    /// `addComment` (R16): appended to the card's thread, or a deleted comment put back where it was.
    mutating func applyAddComment(_ add: BoardOperation.AddComment, clientId: String, opId: String) throws(Rejection)
        -> Effect
    {
        let slot = try updatableSlot(add.item)
        var details = cardDetails[slot] ?? CardDetails()
        guard details.comments.count < CardLimits.comments else {
            throw Rejection(
                .invalid, "A card holds at most \(CardLimits.comments) comments; delete some before adding more.",
                field: "item", item: add.item)
        }
        let comment: CardComment
        if let restore = add.restore {
            guard restore.author == clientId else {
                throw Rejection(.notOwner, "Only a comment's author brings it back.", field: "restore", item: add.item)
            }
            comment = restore
        } else {
            if let problem = CardComment.textProblem(add.text, field: "text") {
                throw Rejection(.invalid, problem.message, field: problem.field, item: add.item)
            }
            comment = CardComment(
                id: Board.commentID(clientId: clientId, opId: opId), author: clientId, name: add.name ?? "",
                at: add.at ?? 0, text: add.text)
        }
        guard !details.comments.contains(where: { $0.id == comment.id }) else {
            throw Rejection(
                .duplicateID, "The card already has comment \(comment.id).", field: "restore", item: add.item)
        }
        details.comments.insert(comment, at: min(max(add.index ?? details.comments.count, 0), details.comments.count))
        setDetails(details, of: slot)
        return unmoved(slot)
    }

    /// `editComment`: the author's new text, made on the version they saw (R12).
    mutating func applyEditComment(_ edit: BoardOperation.EditComment, clientId: String) throws(Rejection) -> Effect {
        let (slot, index) = try ownComment(edit.item, edit.comment, clientId: clientId, verb: "edits")
        if let problem = CardComment.textProblem(edit.text, field: "text") {
            throw Rejection(.invalid, problem.message, field: problem.field, item: edit.item)
        }
        var details = cardDetails[slot]!
        if let version = edit.version, version != details.comments[index].version {
            throw Rejection(
                .conflict,
                "Your comment changed since you began editing it (in another tab?), so this edit was not saved; "
                    + "your text is kept: look at the new version and save again.", field: "version", item: edit.item)
        }
        details.comments[index].text = edit.text
        details.comments[index].version += 1
        setDetails(details, of: slot)
        return unmoved(slot)
    }

    /// `deleteComment`: the author takes their comment out of the thread.
    mutating func applyDeleteComment(_ delete: BoardOperation.DeleteComment, clientId: String) throws(Rejection)
        -> Effect
    {
        let (slot, index) = try ownComment(delete.item, delete.comment, clientId: clientId, verb: "deletes")
        var details = cardDetails[slot]!
        details.comments.remove(at: index)
        setDetails(details, of: slot)
        return unmoved(slot)
    }

    /// The card's slot and the comment's index, for its author: `gone` without the card,
    /// `not-found` without the comment, `not-owner` for anyone else.
    private func ownComment(_ item: ItemID, _ comment: CommentID, clientId: String, verb: String) throws(Rejection)
        -> (Slot, Int)
    {
        let slot = try updatableSlot(item)
        guard let index = cardDetails[slot]?.comments.firstIndex(where: { $0.id == comment }) else {
            throw Rejection(
                .notFound, "The card has no comment \(comment); it may have been deleted.", field: "comment", item: item
            )
        }
        guard cardDetails[slot]!.comments[index].author == clientId else {
            throw Rejection(
                .notOwner, "Only a comment's author \(verb) it; reply with a comment of your own.", field: "comment",
                item: item)
        }
        return (slot, index)
    }

    /// A comment of a card, or `nil`.
    ///
    /// - Complexity: O(comments of the card).
    public func comment(_ id: CommentID, on item: ItemID) -> CardComment? {
        details(of: item)?.comments.first { $0.id == id }
    }
}
