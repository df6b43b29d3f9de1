/// Byte counts of a board's snapshot JSON (R14), kept per element so the board can hold a running
/// estimate of its whole snapshot that changes in O(1) per operation (O(bytes of the content the
/// operation adds or removes), never O(board)).
///
/// The counts are upper bounds of the compact JSON every Corkboard encoder writes (keys in
/// declaration order, absent optionals left out): each string counts its quotes, two bytes for
/// `"`, `\`, `/` (`JSONEncoder` escapes slashes by default) and the short control escapes, six for
/// other control characters; a number counts the longest it can print; every element of a list
/// counts one separating comma. So the estimate is never below the real size and stays within a
/// few bytes per element of it.
public enum SnapshotSize {
    /// The default largest snapshot a board may reach: 64 MiB (R14).
    public static let defaultLimit = 64 << 20

    /// `{"version":1,"seq":` + the longest seq + `,"board":{"collections":[` … `]}}`.
    static let wrapper =
        #"{"version":1,"seq":"#.utf8.count + 20 + #","board":{"collections":[]}}"#.utf8.count
    /// `,"children":[]`, added when an item becomes a group.
    static let childrenField = #","children":[]"#.utf8.count
    /// The longest JSON number a `Double` prints as (`-2.2250738585072014e-308`).
    static let maxNumber = 24

    /// A JSON string with its quotes and escapes.
    ///
    /// Reads the string's contiguous UTF-8 through a table of each byte's encoded width, so a
    /// 64 KiB value costs a table lookup per byte rather than a branch per character.
    ///
    /// - Complexity: O(UTF-8 length).
    public static func string(_ value: String) -> Int {
        var value = value
        return value.withUTF8 { bytes in
            escapedWidth.withUnsafeBufferPointer { width in
                var count = 2
                for byte in bytes { count &+= Int(width[Int(byte)]) }
                return count
            }
        }
    }

    /// The bytes each UTF-8 byte takes in a JSON string: two for `"`, `\`, `/` and the short
    /// control escapes, six for other control characters, one for everything else.
    private static let escapedWidth: [UInt8] = (0..<256).map { byte in
        switch byte {
        case 0x22, 0x5C, 0x2F, 0x08, 0x09, 0x0A, 0x0C, 0x0D: 2
        case 0..<0x20: 6
        default: 1
        }
    }

    /// A list of representations: `{"type":…,"value":…}` each, with separators.
    static func representations(_ representations: [Representation]) -> Int {
        var count = 0
        for representation in representations {
            count += #"{"type":,"value":},"#.utf8.count + string(representation.type) + string(representation.value)
        }
        return count
    }

    /// An item without its children's own bytes: id, representations, the children list's brackets
    /// when it is a group, the placeholder, the version when above 0, and a separator.
    static func item(
        id: ItemID, representations: [Representation], isGroup: Bool, placeholderOwner: String?, version: Int = 0
    ) -> Int {
        var count = #"{"id":,"representations":[]},"#.utf8.count + string(id.rawValue)
        count += self.representations(representations)
        if isGroup { count += childrenField }
        if let placeholderOwner {
            count += #","placeholder":{"owner":,"createdAt":}"#.utf8.count + string(placeholderOwner) + maxNumber
        }
        count += self.version(version)
        return count
    }

    /// `,"version":N` when `version` is above 0, else nothing.
    static func version(_ version: Int) -> Int {
        version > 0 ? #","version":"#.utf8.count + String(version).utf8.count : 0
    }

    /// `,"details":{…}` of a card with details, else nothing: each field that is not at its
    /// default, with a separator.
    static func details(_ details: CardDetails?) -> Int {
        guard let details, !details.isEmpty else { return 0 }
        func number(_ key: String, _ value: Int?) -> Int {
            value.map { key.utf8.count + 4 + String($0).utf8.count } ?? 0
        }
        var count = #","details":{}"#.utf8.count
        if !details.description.isEmpty { count += #""description":,"#.utf8.count + string(details.description) }
        count += number("descriptionVersion", details.descriptionVersion > 0 ? details.descriptionVersion : nil)
        count += number("due", details.due) + number("start", details.start)
        count += number("datesVersion", details.datesVersion > 0 ? details.datesVersion : nil)
        if details.done { count += #""done":true,"#.utf8.count }
        if !details.assignees.isEmpty {
            count += #""assignees":[],"#.utf8.count + details.assignees.reduce(0) { $0 + string($1) + 1 }
        }
        if !details.labels.isEmpty {
            count += #""labels":[],"#.utf8.count + details.labels.reduce(0) { $0 + string($1.rawValue) + 1 }
        }
        if !details.comments.isEmpty {
            count += #""comments":[],"#.utf8.count + details.comments.reduce(0) { $0 + comment($1) }
        }
        if !details.attachments.isEmpty {
            count += #""attachments":[],"#.utf8.count + details.attachments.reduce(0) { $0 + attachment($1) }
        }
        if let cover = details.cover { count += #""cover":,"#.utf8.count + string(cover) }
        if !details.checklists.isEmpty {
            count += #""checklists":[],"#.utf8.count + details.checklists.reduce(0) { $0 + checklist($1) }
        }
        return count
    }

    /// An attached file with its separator.
    static func attachment(_ file: Attachment) -> Int {
        #"{"url":,"name":,"type":,"bytes":},"#.utf8.count + string(file.url) + string(file.name) + string(file.type)
            + String(file.bytes).utf8.count
    }

    /// A checklist with its items and separators.
    static func checklist(_ list: Checklist) -> Int {
        list.items.reduce(#"{"id":,"name":,"items":[]},"#.utf8.count + string(list.id.rawValue) + string(list.name)) {
            $0 + #"{"id":,"text":,"done":true},"#.utf8.count + string($1.id.rawValue) + string($1.text)
        }
    }

    /// A comment of a thread with its separator.
    static func comment(_ comment: CardComment) -> Int {
        #"{"id":,"author":,"name":,"at":,"text":},"#.utf8.count + string(comment.id.rawValue) + string(comment.author)
            + string(comment.name) + String(comment.at).utf8.count + string(comment.text)
            + self.version(comment.version)
    }

    /// A label of the board's list, `{"id":…,"name":…,"color":…},`, with the list's own
    /// `"labels":[],` counted on every label so that a board with labels is never underestimated.
    static func label(_ label: Label) -> Int {
        #""labels":[],{"id":,"name":,"color":},"#.utf8.count + string(label.id.rawValue) + string(label.name)
            + string(label.color.rawValue)
    }

    /// `"title":…,` of a board with its own title, else nothing.
    static func boardTitle(_ title: String?) -> Int {
        title.map { #""title":,"#.utf8.count + string($0) } ?? 0
    }

    /// A section without its items: id, title, the items list's brackets and a separator.
    static func section(id: SectionID, title: String) -> Int {
        #"{"id":,"title":,"items":[]},"#.utf8.count + string(id.rawValue) + string(title)
    }

    /// The accepts list's strings with separators.
    static func accepts(_ accepts: [String]) -> Int {
        accepts.reduce(0) { $0 + string($1) + 1 }
    }

    /// A collection without its sections: id, title, layout, accepts, the sections list's brackets
    /// and a separator.
    static func collection(id: CollectionID, title: String, layout: Layout, accepts: [String]) -> Int {
        #"{"id":,"title":,"layout":,"accepts":[],"sections":[]},"#.utf8.count + string(id.rawValue) + string(title)
            + string(layout.rawValue) + self.accepts(accepts)
    }

    /// A human size: `64 MiB`, `63.9 MiB`, `512 KiB`, `900 bytes`.
    public static func describe(_ bytes: Int) -> String {
        func scaled(_ unit: Int, _ name: String) -> String {
            let tenths = (bytes * 10 + unit / 2) / unit
            return tenths % 10 == 0 ? "\(tenths / 10) \(name)" : "\(tenths / 10).\(tenths % 10) \(name)"
        }
        if bytes >= 1 << 20 { return scaled(1 << 20, "MiB") }
        if bytes >= 1 << 10 { return scaled(1 << 10, "KiB") }
        return "\(bytes) bytes"
    }
}

extension Board {
    /// An upper bound of the board's snapshot as JSON, in bytes: what `Snapshot(seq:board:)`
    /// encodes to, whatever its seq (R14).
    ///
    /// Kept up to date by every change to the board, so reading it is O(1); it is never below the
    /// real size and exceeds it by a few bytes per item (see `SnapshotSize`).
    ///
    /// - Complexity: O(1).
    public var estimatedSnapshotBytes: Int {
        contentBytes + SnapshotSize.wrapper + (trash.entries.isEmpty ? 0 : #","trash":[]"#.utf8.count + trash.bytes)
    }

    /// The snapshot bytes the board's size limit counts (R14): `estimatedSnapshotBytes` without the
    /// Trash, which has its own bound (`Trash.Limits`, R15), so that a delete always shrinks it.
    ///
    /// - Complexity: O(1).
    public var limitedSnapshotBytes: Int { contentBytes + SnapshotSize.wrapper }

    /// The own bytes of the item in `slot` (children counted separately).
    func itemBytes(_ node: Node) -> Int {
        SnapshotSize.item(
            id: node.id, representations: node.representations, isGroup: node.children != nil,
            placeholderOwner: node.placeholder?.owner, version: node.version)
    }

    func sectionBytes(_ node: SectionNode) -> Int { SnapshotSize.section(id: node.id, title: node.title) }

    func collectionBytes(_ node: CollectionNode) -> Int {
        SnapshotSize.collection(id: node.id, title: node.title, layout: node.layout, accepts: node.accepts)
    }

    /// How much applying an operation could grow `estimatedSnapshotBytes`, at most: the new
    /// content it brings, less what it replaces. Zero or negative for operations that only move or
    /// remove things. Operations that would be rejected anyway may give any value.
    ///
    /// - Complexity: O(size of the content the operation adds): the new trees of an insert or
    ///   copy, the new representations of an update; O(1) for everything else.
    public func snapshotGrowth(of op: BoardOperation, clientId: String, opId: String) -> Int {
        let into = SnapshotSize.childrenField
        switch op {
        case .move(let move):
            return move.destination.intent == .insertIntoDestinationIndexPath ? into : 0
        case .copy(let copy):
            var n = 0
            var total = copy.destination.intent == .insertIntoDestinationIndexPath ? into : 0
            func visit(_ slot: Slot) {
                let node = nodes[Int(slot)]
                let id = Board.derivedID(clientId: clientId, opId: opId, n: n)
                n += 1
                total +=
                    SnapshotSize.item(
                        id: id, representations: node.representations, isGroup: node.children != nil,
                        placeholderOwner: nil) + SnapshotSize.details(cardDetails[slot])
                for child in node.children ?? [] { visit(child) }
            }
            for item in copy.items { if let slot = itemSlots[item] { visit(slot) } }
            return total
        case .insert(let insert):
            var n = 0
            var total = insert.destination.intent == .insertIntoDestinationIndexPath ? into : 0
            func visit(_ new: NewItem) {
                let id = new.id ?? Board.derivedID(clientId: clientId, opId: opId, n: n)
                n += 1
                total +=
                    SnapshotSize.item(
                        id: id, representations: new.representations, isGroup: new.children != nil,
                        placeholderOwner: nil, version: new.version) + SnapshotSize.details(new.details)
                for child in new.children ?? [] { visit(child) }
            }
            for item in insert.items { visit(item) }
            return total + (insert.labels ?? []).reduce(0) { $0 + SnapshotSize.label($1) }
        case .insertPlaceholder(let insert):
            return SnapshotSize.item(
                id: Board.derivedID(clientId: clientId, opId: opId, n: 0), representations: insert.representations,
                isGroup: false, placeholderOwner: clientId)
        case .commitPlaceholder(let commit):
            guard let slot = itemSlots[commit.item] else { return 0 }
            var node = nodes[Int(slot)]
            let before = itemBytes(node)
            node.representations = commit.representations
            node.placeholder = nil
            node.version += 1
            return itemBytes(node) - before
        case .updateItem(let update):
            guard let slot = itemSlots[update.item] else { return 0 }
            var node = nodes[Int(slot)]
            let before = itemBytes(node)
            node.representations = update.representations
            node.version += 1
            return itemBytes(node) - before
        case .createCollection(let create):
            return SnapshotSize.collection(
                id: create.id, title: create.title, layout: create.layout, accepts: create.accepts)
                + create.sections.reduce(0) { $0 + SnapshotSize.section(id: $1.id, title: $1.title) }
        case .setLayout(let set):
            guard let index = collectionIndex[set.collection] else { return 0 }
            return SnapshotSize.string(set.layout.rawValue)
                - SnapshotSize.string(collectionNodes[index].layout.rawValue)
        case .renameBoard(let rename):
            return SnapshotSize.boardTitle(rename.title) - SnapshotSize.boardTitle(title)
        case .setLabel(let set):
            return SnapshotSize.label(set.label) - (label(set.label.id).map(SnapshotSize.label) ?? 0)
        case .addComment(let add):
            let comment =
                add.restore
                ?? CardComment(
                    id: Board.commentID(clientId: clientId, opId: opId), author: clientId, name: add.name ?? "",
                    at: add.at ?? 0, text: add.text)
            return SnapshotSize.comment(comment) + #""comments":[],"details":{}"#.utf8.count
        case .editComment(let edit):
            guard let old = comment(edit.comment, on: edit.item) else { return 0 }
            return SnapshotSize.string(edit.text) - SnapshotSize.string(old.text) + SnapshotSize.maxNumber
        case .checklist(let change):
            guard let slot = itemSlots[change.item] else { return 0 }
            let old = cardDetails[slot]
            var new = old ?? CardDetails()
            guard (try? new.apply(change)) != nil else { return 0 }
            return SnapshotSize.details(new) - SnapshotSize.details(old)
        case .updateCard(let update):
            guard let slot = itemSlots[update.item] else { return 0 }
            let old = cardDetails[slot]
            return SnapshotSize.details(update.applied(to: old ?? CardDetails())) - SnapshotSize.details(old)
        case .batch(let batch):
            // An upper bound: each part measured on the board as it is, what shrinks not counted.
            return batch.ops.reduce(0) { $0 + max(0, snapshotGrowth(of: $1, clientId: clientId, opId: opId)) }
        case .renameCollection(let rename):
            guard let index = collectionIndex[rename.collection] else { return 0 }
            return SnapshotSize.string(rename.title) - SnapshotSize.string(collectionNodes[index].title)
        case .setAccepts(let set):
            guard let index = collectionIndex[set.collection] else { return 0 }
            return SnapshotSize.accepts(set.accepts) - SnapshotSize.accepts(collectionNodes[index].accepts)
        case .createSection(let create):
            return SnapshotSize.section(id: create.id, title: create.title)
        case .renameSection(let rename):
            guard let slot = sectionSlots[rename.section] else { return 0 }
            return SnapshotSize.string(rename.title) - SnapshotSize.string(sectionNodes[Int(slot)].title)
        case .restore(let restore):
            // The entry's bytes bound what it brings back (R15: a restore passes R14 like any growth).
            return trash.entry(restore.entry)?.bytes ?? 0
        case .deletePlaceholder, .delete, .moveOut, .deleteCollection, .moveCollection, .deleteSection, .moveSection,
            .deleteLabel, .deleteComment, .emptyTrash:
            return 0
        }
    }
}
