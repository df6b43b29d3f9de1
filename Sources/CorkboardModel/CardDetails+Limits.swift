/// A part of a card's details that passes its documented bound (`CardLimits`): the wire field it is
/// in and a sentence saying what to do.
public struct CardProblem: Hashable, Sendable {
    /// The field, as named on the wire (`description`, `dates`, `assign`, `details`…).
    public var field: String
    /// What is wrong and what to do.
    public var message: String
}

extension CardDetails {
    /// What passes the bounds in these details, if anything (R16).
    ///
    /// - Complexity: O(length of the description and the names).
    public var problem: CardProblem? {
        if let problem = Self.descriptionProblem(description, field: "details.description") { return problem }
        if let problem = Self.datesProblem(due: due, start: start, field: "details") { return problem }
        if let problem = Self.assigneeCountProblem(assignees.count, field: "details.assignees") { return problem }
        if Set(assignees).count != assignees.count {
            return CardProblem(field: "details.assignees", message: "Each person is assigned once; drop the repeats.")
        }
        if comments.count > CardLimits.comments || Set(comments.map(\.id)).count != comments.count {
            return CardProblem(
                field: "details.comments",
                message: "A card holds at most \(CardLimits.comments) comments, each with its own id.")
        }
        if let problem = comments.lazy.compactMap({ CardComment.textProblem($0.text, field: "details.comments") }).first
        {
            return problem
        }
        if labels.count > CardLimits.labels || Set(labels).count != labels.count {
            return CardProblem(
                field: "details.labels",
                message: "A card carries each of the board's labels at most once, \(CardLimits.labels) at most.")
        }
        if let problem = attachmentsProblem(field: "details.attachments") { return problem }
        if let problem = checklistsProblem(field: "details.checklists") { return problem }
        return assignees.lazy.compactMap { Self.nameProblem($0, field: "details.assignees") }.first
    }

    /// What is wrong with the attached files as a whole: too many, one twice, one malformed, or a
    /// cover that is not one of its attached images.
    func attachmentsProblem(field: String) -> CardProblem? {
        if attachments.count > CardLimits.attachments || Set(attachments.map(\.url)).count != attachments.count {
            return CardProblem(
                field: field,
                message: "A card holds at most \(CardLimits.attachments) files, each once; detach one first.")
        }
        if let problem = attachments.lazy.compactMap({ $0.problem(field: field) }).first { return problem }
        if let cover, !attachments.contains(where: { $0.url == cover && $0.isImage }) {
            return CardProblem(
                field: "details.cover", message: "A card's cover is one of the images attached to it; attach it first.")
        }
        return nil
    }

    static func assigneeCountProblem(_ count: Int, field: String) -> CardProblem? {
        guard count > CardLimits.assignees else { return nil }
        return CardProblem(
            field: field, message: "A card has at most \(CardLimits.assignees) people assigned; unassign someone first."
        )
    }

    static func descriptionProblem(_ text: String, field: String) -> CardProblem? {
        guard text.utf8.count > CardLimits.descriptionBytes else { return nil }
        return CardProblem(
            field: field,
            message: "A description holds at most \(CardLimits.descriptionBytes) bytes of UTF-8 and this one has "
                + "\(text.utf8.count); shorten it or attach the rest as a file.")
    }

    static func datesProblem(due: Int?, start: Int?, field: String) -> CardProblem? {
        for date in [due, start].compactMap({ $0 }) where !(0...CardLimits.latestDate).contains(date) {
            return CardProblem(
                field: field,
                message: "A date is whole milliseconds since 1970 from 0 to \(CardLimits.latestDate) "
                    + "(the end of year 9999); \(date) is outside that.")
        }
        if let due, let start, start > due {
            return CardProblem(field: field, message: "The start date is after the due date; move one of them.")
        }
        return nil
    }

    static func nameProblem(_ name: String, field: String) -> CardProblem? {
        if name.allSatisfy(\.isWhitespace) {
            return CardProblem(field: field, message: "A person's name cannot be blank; name who to assign.")
        }
        if name.count > CardLimits.nameCharacters {
            return CardProblem(
                field: field, message: "A person's name has at most \(CardLimits.nameCharacters) characters.")
        }
        return nil
    }
}

extension BoardOperation.UpdateCard {
    /// What passes the bounds in this update on its own, if anything: an empty update, a too long
    /// description, dates out of range or in the wrong order, bad or repeated names (R16). The
    /// assignee count after applying is checked by `Board` against the card.
    ///
    /// - Complexity: O(length of the text and the names).
    public var problem: CardProblem? {
        if isEmpty {
            return CardProblem(
                field: "item",
                message: "updateCard changes nothing; give at least one of description, dates, done, assign, "
                    + "unassign, addLabels, removeLabels, attach, detach, cover.")
        }
        if let description, let problem = CardDetails.descriptionProblem(description.text, field: "description") {
            return problem
        }
        if let dates, let problem = CardDetails.datesProblem(due: dates.due, start: dates.start, field: "dates") {
            return problem
        }
        for (field, names) in [("assign", assign ?? []), ("unassign", unassign ?? [])] {
            if names.count > CardLimits.assignees {
                return CardProblem(
                    field: field, message: "Name at most \(CardLimits.assignees) people in one \(field).")
            }
            if let problem = names.lazy.compactMap({ CardDetails.nameProblem($0, field: field) }).first {
                return problem
            }
        }
        if let assign, let unassign, let both = assign.first(where: unassign.contains) {
            return CardProblem(
                field: "unassign", message: "\(both) is both assigned and unassigned; name them in one list only.")
        }
        for (field, labels) in [("addLabels", addLabels ?? []), ("removeLabels", removeLabels ?? [])]
        where labels.count > CardLimits.labels {
            return CardProblem(field: field, message: "Name at most \(CardLimits.labels) labels in one \(field).")
        }
        if let addLabels, let removeLabels, let both = addLabels.first(where: removeLabels.contains) {
            return CardProblem(
                field: "removeLabels", message: "Label \(both) is both added and removed; name it in one list only.")
        }
        return attachProblem
    }

    /// What is wrong with the `attach`, `detach` and `cover` parts on their own, if anything.
    private var attachProblem: CardProblem? {
        for (field, count) in [("attach", attach?.count ?? 0), ("detach", detach?.count ?? 0)]
        where count > CardLimits.attachments {
            return CardProblem(field: field, message: "Name at most \(CardLimits.attachments) files in one \(field).")
        }
        if let problem = (attach ?? []).lazy.compactMap({ $0.problem(field: "attach") }).first { return problem }
        if let detach, let bad = detach.first(where: { !Attachment.isStoredFileURL($0) }) {
            return CardProblem(
                field: "detach",
                message: "\(bad.prefix(80)) is not an attached file's url; name the url of a file on the card.")
        }
        if let attach, let detach, let both = attach.first(where: { detach.contains($0.url) }) {
            return CardProblem(
                field: "detach", message: "\(both.name) is both attached and detached; name it in one list only.")
        }
        if let cover, !cover.isEmpty, !Attachment.isStoredFileURL(cover) {
            return CardProblem(
                field: "cover", message: "A cover is the url of an image attached to the card, or \"\" for none.")
        }
        return nil
    }
}
