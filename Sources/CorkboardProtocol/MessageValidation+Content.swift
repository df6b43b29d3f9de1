import CorkboardModel

/// The limits of what a client may put on a board: ids, titles, representations, `accepts`
/// entries, external types and group depth (docs/PROTOCOL.md, "Limits"). Checked when a message
/// is decoded, before any room sees it, so nothing over a limit is sequenced or saved.
extension MessageValidation {
    /// Every string and list of a board operation, by field.
    static func content(_ op: BoardOperation) throws(ProtocolError) {
        switch op {
        case .move(let m):
            try destinationIDs(m.destination, "op.destination")
        case .copy(let c):
            try destinationIDs(c.destination, "op.destination")
        case .insert(let i):
            try destinationIDs(i.destination, "op.destination")
            guard i.items.count <= ProtocolLimits.maxItemsPerDrag else {
                throw ProtocolError(
                    .invalidField, "An insert may carry at most \(ProtocolLimits.maxItemsPerDrag) items.",
                    field: "op.items")
            }
            if let labels = i.labels {
                guard labels.count <= CardLimits.labels else {
                    throw ProtocolError(
                        .invalidField, "An insert brings at most \(CardLimits.labels) labels.", field: "op.labels")
                }
                for (offset, label) in labels.enumerated() {
                    try id(label.id.rawValue, "op.labels.\(offset).id")
                    try card(label.problem, "op.labels.\(offset)")
                }
            }
            var count = 0
            for (offset, item) in i.items.enumerated() {
                try newItem(item, "op.items.\(offset)", depth: 1, count: &count)
            }
        case .insertPlaceholder(let p):
            try destinationIDs(p.destination, "op.destination")
            try representations(p.representations, "op.representations")
        case .commitPlaceholder(let c):
            try id(c.item.rawValue, "op.item")
            try representations(c.representations, "op.representations")
        case .deletePlaceholder(let d):
            try id(d.item.rawValue, "op.item")
        case .delete, .moveOut:
            break  // item ids are checked with the item list
        case .updateItem(let u):
            try id(u.item.rawValue, "op.item")
            try representations(u.representations, "op.representations")
        case .setLabel(let s):
            try id(s.label.id.rawValue, "op.label.id")
            try card(s.label.problem, "op.label")
        case .deleteLabel(let d):
            try id(d.label.rawValue, "op.label")
        case .addComment(let a):
            try id(a.item.rawValue, "op.item")
            guard a.restore == nil, a.index == nil else {
                throw ProtocolError(
                    .invalidField, "A comment comes back only through undo; send undo, or addComment with its text.",
                    field: a.restore == nil ? "op.index" : "op.restore")
            }
            try card(CardComment.textProblem(a.text, field: "text"), "op")
        case .editComment(let e):
            try id(e.item.rawValue, "op.item")
            try id(e.comment.rawValue, "op.comment")
            try card(CardComment.textProblem(e.text, field: "text"), "op")
            if let version = e.version { try nonNegative(version, "op.version") }
        case .deleteComment(let d):
            try id(d.item.rawValue, "op.item")
            try id(d.comment.rawValue, "op.comment")
        case .checklist(let c):
            try id(c.item.rawValue, "op.item")
            try card(c.problem, "op")
        case .updateCard(let u):
            try id(u.item.rawValue, "op.item")
            for (field, labels) in [("addLabels", u.addLabels ?? []), ("removeLabels", u.removeLabels ?? [])] {
                for (offset, label) in labels.enumerated() { try id(label.rawValue, "op.\(field).\(offset)") }
            }
            try card(u.problem, "op")
            for (version, field) in [(u.description?.version, "description"), (u.dates?.version, "dates")] {
                if let version, version < 0 {
                    throw ProtocolError(
                        .invalidField, "\"op.\(field).version\" must not be negative, got \(version).",
                        field: "op.\(field).version")
                }
            }
        case .createCollection(let c):
            try id(c.id.rawValue, "op.id")
            try title(c.title, "op.title")
            try accepts(c.accepts, "op.accepts")
            guard c.sections.count <= ProtocolLimits.maxNewSections else {
                throw ProtocolError(
                    .invalidField,
                    "A new collection may come with at most \(ProtocolLimits.maxNewSections) sections, got "
                        + "\(c.sections.count); add more with createSection.", field: "op.sections")
            }
            for (offset, section) in c.sections.enumerated() {
                try id(section.id.rawValue, "op.sections.\(offset).id")
                try title(section.title, "op.sections.\(offset).title")
            }
        case .renameCollection(let r):
            try id(r.collection.rawValue, "op.collection")
            try title(r.title, "op.title")
        case .deleteCollection(let d):
            try id(d.collection.rawValue, "op.collection")
        case .moveCollection(let m):
            try id(m.collection.rawValue, "op.collection")
        case .setAccepts(let s):
            try id(s.collection.rawValue, "op.collection")
            try accepts(s.accepts, "op.accepts")
        case .createSection(let s):
            try id(s.collection.rawValue, "op.collection")
            try id(s.id.rawValue, "op.id")
            try title(s.title, "op.title")
        case .renameSection(let r):
            try id(r.section.rawValue, "op.section")
            try title(r.title, "op.title")
        case .deleteSection(let d):
            try id(d.section.rawValue, "op.section")
        case .moveSection(let m):
            try id(m.section.rawValue, "op.section")
        case .restore(let r):
            // A Trash entry's id is "<clientId>:<opId>", with ":n" for a batch's later parts.
            guard !r.entry.isEmpty, r.entry.utf8.count <= 2 * ProtocolLimits.maxTokenBytes + 16 else {
                throw ProtocolError(
                    .invalidField,
                    "\"op.entry\" must be a Trash entry id of 1 to \(2 * ProtocolLimits.maxTokenBytes + 16) bytes, "
                        + "got \(r.entry.utf8.count); take it from the board's \"trash\" list.", field: "op.entry")
            }
        case .emptyTrash:
            break
        case .setLayout(let s):
            try id(s.collection.rawValue, "op.collection")
        case .renameBoard(let r):
            if let title = r.title { try self.title(title, "op.title") }
        case .batch(let b):
            for op in b.ops { try content(op) }
        }
    }

    /// The ids of a drop's or hover's destination.
    static func destinationIDs(_ d: Destination, _ field: String) throws(ProtocolError) {
        try id(d.collection.rawValue, "\(field).collection")
        try id(d.section.rawValue, "\(field).section")
        if let after = d.after { try id(after.rawValue, "\(field).after") }
        if let before = d.before { try id(before.rawValue, "\(field).before") }
        if let target = d.target { try id(target.rawValue, "\(field).target") }
    }

    /// The types of each external item of a drag.
    static func externalTypes(_ external: [[String]], _ field: String) throws(ProtocolError) {
        for (offset, types) in external.enumerated() {
            guard types.count <= ProtocolLimits.maxExternalTypes else {
                throw ProtocolError(
                    .invalidField,
                    "An external item may offer at most \(ProtocolLimits.maxExternalTypes) types, got \(types.count).",
                    field: "\(field).\(offset)")
            }
            for (index, type) in types.enumerated() { try self.type(type, "\(field).\(offset).\(index)") }
        }
    }

    /// A collection, section or item id: 1 to `maxTokenBytes` bytes.
    static func id(_ value: String, _ field: String) throws(ProtocolError) {
        guard !value.isEmpty, value.utf8.count <= ProtocolLimits.maxTokenBytes else {
            throw ProtocolError(
                .invalidField,
                "\"\(field)\" must be an id of 1 to \(ProtocolLimits.maxTokenBytes) bytes, got \(value.utf8.count).",
                field: field)
        }
    }

    private static func title(_ value: String, _ field: String) throws(ProtocolError) {
        guard value.utf8.count <= ProtocolLimits.maxTitleBytes else {
            throw ProtocolError(
                .invalidField,
                "\"\(field)\" may be at most \(ProtocolLimits.maxTitleBytes) bytes, got \(value.utf8.count); "
                    + "shorten the title.", field: field)
        }
    }

    private static func type(_ value: String, _ field: String) throws(ProtocolError) {
        guard !value.isEmpty, value.utf8.count <= ProtocolLimits.maxTypeBytes else {
            throw ProtocolError(
                .invalidField,
                "\"\(field)\" must be a type identifier of 1 to \(ProtocolLimits.maxTypeBytes) bytes, "
                    + "got \(value.utf8.count).", field: field)
        }
    }

    private static func accepts(_ list: [String], _ field: String) throws(ProtocolError) {
        guard list.count <= ProtocolLimits.maxAccepts else {
            throw ProtocolError(
                .invalidField, "A collection accepts at most \(ProtocolLimits.maxAccepts) types, got \(list.count).",
                field: field)
        }
        for (offset, entry) in list.enumerated() { try type(entry, "\(field).\(offset)") }
    }

    private static func representations(_ list: [Representation], _ field: String) throws(ProtocolError) {
        guard list.count <= ProtocolLimits.maxRepresentations else {
            throw ProtocolError(
                .invalidField,
                "An item carries at most \(ProtocolLimits.maxRepresentations) representations, got \(list.count).",
                field: field)
        }
        for (offset, representation) in list.enumerated() {
            try type(representation.type, "\(field).\(offset).type")
            guard representation.value.utf8.count <= ProtocolLimits.maxValueBytes else {
                throw ProtocolError(
                    .invalidField,
                    "\"\(field).\(offset).value\" may be at most \(ProtocolLimits.maxValueBytes) bytes, got "
                        + "\(representation.value.utf8.count); upload large content as a file instead.",
                    field: "\(field).\(offset).value")
            }
        }
    }

    /// An inserted item and its children: representations, depth, and the count of items in
    /// the whole insert (at most `maxItemsPerDrag`).
    /// A card's details or a card update past its bounds (R16), as `invalid-field` naming the field.
    private static func card(_ problem: CardProblem?, _ prefix: String) throws(ProtocolError) {
        guard let problem else { return }
        throw ProtocolError(.invalidField, problem.message, field: "\(prefix).\(problem.field)")
    }

    private static func newItem(_ item: NewItem, _ field: String, depth: Int, count: inout Int) throws(ProtocolError) {
        count += 1
        guard count <= ProtocolLimits.maxItemsPerDrag else {
            throw ProtocolError(
                .invalidField,
                "An insert may carry at most \(ProtocolLimits.maxItemsPerDrag) items, children included.",
                field: field)
        }
        guard depth <= ProtocolLimits.maxGroupDepth else {
            throw ProtocolError(
                .invalidField, "Groups may nest at most \(ProtocolLimits.maxGroupDepth) levels deep.", field: field)
        }
        if let id = item.id { try self.id(id.rawValue, "\(field).id") }
        guard item.version >= 0 else {
            throw ProtocolError(
                .invalidField, "\"\(field).version\" must not be negative, got \(item.version).",
                field: "\(field).version")
        }
        try representations(item.representations, "\(field).representations")
        try card(item.details?.problem, field)
        for (offset, child) in (item.children ?? []).enumerated() {
            try newItem(child, "\(field).children.\(offset)", depth: depth + 1, count: &count)
        }
    }
}
