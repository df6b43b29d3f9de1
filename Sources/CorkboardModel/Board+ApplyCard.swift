extension Board {
    /// The card's details, or `nil` when it has none or is gone.
    ///
    /// - Complexity: O(1).
    public func details(of item: ItemID) -> CardDetails? {
        itemSlots[item].flatMap { cardDetails[$0] }
    }

    /// `updateCard` (R16): the card's description, dates, done flag, assignees, labels, attached
    /// files and cover, all or nothing.
    mutating func applyUpdateCard(_ update: BoardOperation.UpdateCard) throws(Rejection) -> Effect {
        let slot = try updatableSlot(update.item)
        if let problem = update.problem {
            throw Rejection(.invalid, problem.message, field: problem.field, item: update.item)
        }
        let old = cardDetails[slot] ?? CardDetails()
        if let version = update.description?.version, version != old.descriptionVersion {
            throw conflict(slot, field: "description", what: "description", kept: "your text is kept")
        }
        if let version = update.dates?.version, version != old.datesVersion {
            throw conflict(slot, field: "dates", what: "dates", kept: "your dates are kept")
        }
        if let missing = update.addLabels?.first(where: { label($0) == nil }) {
            throw Rejection(
                .notFound, "The board has no label \(missing); it may have been deleted. Pick one of its labels.",
                field: "addLabels", item: update.item)
        }
        let new = update.applied(to: old)
        if let problem = CardDetails.assigneeCountProblem(new.assignees.count, field: "assign") {
            throw Rejection(.invalid, problem.message, field: problem.field, item: update.item)
        }
        if new.attachments != old.attachments || new.cover != old.cover,
            let problem = new.attachmentsProblem(field: "attach")
        {
            throw Rejection(
                .invalid, problem.message, field: problem.field == "details.cover" ? "cover" : problem.field,
                item: update.item)
        }
        setDetails(new, of: slot)
        return unmoved(slot)
    }

    /// R12 for a card's field: made on a version the card has moved past.
    private func conflict(_ slot: Slot, field: String, what: String, kept: String) -> Rejection {
        Rejection(
            .conflict,
            "The \(what) of \(quotedName(ofSlot: slot)) changed while you were editing it, so your change was not "
                + "saved; \(kept): look at the new version and save again.", field: field, item: nodes[Int(slot)].id)
    }
}
