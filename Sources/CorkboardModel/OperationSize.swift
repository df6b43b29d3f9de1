/// How much memory a committed operation holds, and the same operation without its content (R18).
///
/// The sequencer bounds its resume log by the bytes of the operations it keeps, and its resend
/// memory keeps each committed operation without its content: a resend is answered with its
/// seq, ids, positions and representation types, never the values (`withoutContent`).
enum OperationSize {
    /// What one array element, string or small struct costs beyond its characters (header,
    /// capacity slack, the enum's tag): a rough per-node overhead, so many tiny parts count too.
    static let node = 32

    static func string(_ value: String) -> Int { value.utf8.count + node }

    static func representations(_ representations: [Representation]) -> Int {
        representations.reduce(node) { $0 + string($1.type) + string($1.value) }
    }

    static func newItem(_ item: NewItem) -> Int {
        (item.id.map { string($0.rawValue) } ?? node) + representations(item.representations)
            + details(item.details) + (item.children ?? []).reduce(node) { $0 + newItem($1) }
    }

    static func item(_ item: Item) -> Int {
        string(item.id.rawValue) + representations(item.representations) + details(item.details)
            + (item.children ?? []).reduce(node) { $0 + self.item($1) }
    }

    static func details(_ details: CardDetails?) -> Int {
        guard let details else { return 0 }
        return string(details.description) + details.assignees.reduce(4 * node) { $0 + string($1) }
            + details.comments.reduce(node) { $0 + string($1.text) + string($1.name) + string($1.author) + 2 * node }
            + details.checklists.reduce(0) { sum, list in
                list.items.reduce(sum + string(list.name) + string(list.id.rawValue) + node) {
                    $0 + string($1.text) + string($1.id.rawValue) + node
                }
            }
    }

    static func destination(_ destination: Destination) -> Int {
        string(destination.collection.rawValue) + string(destination.section.rawValue) + 4 * node
    }

    static func op(_ op: BoardOperation) -> Int {
        switch op {
        case .move(let move):
            return move.items.reduce(destination(move.destination)) { $0 + string($1.rawValue) }
        case .copy(let copy):
            return copy.items.reduce(destination(copy.destination)) { $0 + string($1.rawValue) }
        case .insert(let insert):
            return insert.items.reduce(destination(insert.destination)) { $0 + newItem($1) }
        case .insertPlaceholder(let placeholder):
            return destination(placeholder.destination) + representations(placeholder.representations)
        case .commitPlaceholder(let commit):
            return string(commit.item.rawValue) + representations(commit.representations)
        case .updateItem(let update):
            return string(update.item.rawValue) + representations(update.representations)
        case .addComment(let add):
            return string(add.item.rawValue) + string(add.text) + (add.restore.map { string($0.text) } ?? node)
        case .editComment(let edit):
            return string(edit.item.rawValue) + string(edit.comment.rawValue) + string(edit.text)
        case .checklist(let change):
            return string(change.item.rawValue) + string(change.checklist.rawValue) + 4 * node
                + string(change.name ?? change.text ?? "") + string(change.from ?? "")
                + (change.restore ?? []).reduce(0) { $0 + string($1.text) + string($1.id.rawValue) + node }
        case .updateCard(let update):
            return string(update.item.rawValue) + (update.description.map { string($0.text) } ?? node)
                + (update.assign ?? []).reduce(4 * node) { $0 + string($1) }
                + (update.unassign ?? []).reduce(node) { $0 + string($1) }
        case .delete(let delete), .moveOut(let delete):
            return delete.items.reduce(node) { $0 + string($1.rawValue) }
        case .createCollection(let create):
            return string(create.id.rawValue) + string(create.title) + create.accepts.reduce(node) { $0 + string($1) }
                + create.sections.reduce(node) { $0 + string($1.id.rawValue) + string($1.title) }
        case .renameCollection(let rename): return string(rename.collection.rawValue) + string(rename.title)
        case .renameSection(let rename): return string(rename.section.rawValue) + string(rename.title)
        case .renameBoard(let rename): return rename.title.map(string) ?? node
        case .createSection(let create): return string(create.id.rawValue) + string(create.title)
        case .setAccepts(let set): return set.accepts.reduce(string(set.collection.rawValue)) { $0 + string($1) }
        case .batch(let batch): return batch.ops.reduce(node) { $0 + self.op($1) }
        default: return 4 * node
        }
    }

    static func effect(_ effect: Effect) -> Int {
        effect.changes.reduce(node) { $0 + string($1.item.rawValue) + 2 * destinationlessPosition }
            + effect.skipped.reduce(node) { $0 + string($1.rawValue) }
            + effect.removed.reduce(node) { $0 + item($1) }
    }

    /// A position's ids and index, about.
    static let destinationlessPosition = 4 * node
}

extension Representation {
    /// The representation with its value left out (its type kept).
    var withoutValue: Representation { Representation(type: type, value: "") }
}

extension NewItem {
    /// The item with every representation's value left out, children too.
    var withoutContent: NewItem {
        NewItem(
            id: id, representations: representations.map(\.withoutValue),
            children: children?.map(\.withoutContent), version: version, details: details?.withoutContent)
    }
}

extension Item {
    /// The item with every representation's value left out, children too.
    var withoutContent: Item {
        var item = self
        item.representations = representations.map(\.withoutValue)
        item.children = children?.map(\.withoutContent)
        item.details = details?.withoutContent
        return item
    }
}

extension CardDetails {
    /// The details with the description's text left out (its version kept).
    var withoutContent: CardDetails {
        var details = self
        details.description = ""
        for index in details.comments.indices { details.comments[index].text = "" }
        return details
    }
}

extension BoardOperation {
    /// The operation with every representation's value left out: what a resend memory keeps.
    public var withoutContent: BoardOperation {
        switch self {
        case .insert(var insert):
            insert.items = insert.items.map(\.withoutContent)
            return .insert(insert)
        case .insertPlaceholder(var placeholder):
            placeholder.representations = placeholder.representations.map(\.withoutValue)
            return .insertPlaceholder(placeholder)
        case .commitPlaceholder(var commit):
            commit.representations = commit.representations.map(\.withoutValue)
            return .commitPlaceholder(commit)
        case .updateItem(var update):
            update.representations = update.representations.map(\.withoutValue)
            return .updateItem(update)
        case .updateCard(var update):
            update.description?.text = ""
            return .updateCard(update)
        case .addComment(var add):
            add.text = ""
            add.restore?.text = ""
            return .addComment(add)
        case .editComment(var edit):
            edit.text = ""
            return .editComment(edit)
        case .checklist(var change):
            change.name = change.name.map { _ in "" }
            change.text = change.text.map { _ in "" }
            change.from = change.from.map { _ in "" }
            change.restore = change.restore?.map { Checklist.Entry(id: $0.id, text: "", done: $0.done) }
            return .checklist(change)
        case .batch(var batch):
            batch.ops = batch.ops.map(\.withoutContent)
            return .batch(batch)
        default:
            return self
        }
    }
}

extension CommittedOperation {
    /// About how many bytes of memory the operation holds: its op and effect, content included.
    ///
    /// - Complexity: O(size of the operation).
    public var estimatedBytes: Int {
        OperationSize.string(opId) + OperationSize.string(clientId) + OperationSize.op(op)
            + OperationSize.effect(effect)
    }

    /// The operation without its content: representation values left out of the op and of the
    /// trees its effect removed (their ids, types and positions kept). What the resend memory
    /// keeps once the resume log has let the operation go.
    public var withoutContent: CommittedOperation {
        var stripped = self
        stripped.op = op.withoutContent
        stripped.effect.removed = effect.removed.map(\.withoutContent)
        return stripped
    }
}
