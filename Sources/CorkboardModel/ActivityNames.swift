/// The names of a board's collections and sections as people last saw them, so an activity entry
/// can name a collection that an operation just renamed or deleted (the board after the operation
/// no longer has its old name), and the sentence each committed operation becomes (issue 43).
///
/// A value the room keeps beside its board: built from the board once (`init(board:)`), then kept
/// current by `entry(for:…)` at O(1) per operation, and rebuilt when the room rolls its board back.
public struct ActivityNames: Sendable {
    /// Each collection's title, and each section's title with its collection.
    private(set) var collections: [CollectionID: String] = [:]
    private(set) var sections: [SectionID: (title: String, collection: CollectionID)] = [:]

    /// The names on `board`.
    ///
    /// - Complexity: O(collections + sections).
    public init(board: Board) {
        for collection in board.collectionNodes {
            collections[collection.id] = collection.title
            for slot in collection.sections {
                let section = board.sectionNodes[Int(slot)]
                sections[section.id] = (section.title, collection.id)
            }
        }
    }

    /// Who did an operation: the name and colour the room knows them by.
    public struct Actor: Sendable {
        public var name: String
        public var clientId: String
        public var color: String
        /// Creates an actor.
        public init(name: String, clientId: String, color: String) {
            self.name = name
            self.clientId = clientId
            self.color = color
        }
    }

    /// The entry for `committed`, applied to `board` (the board after it), by `actor` at `at`
    /// (milliseconds since 1970); `nil` for operations nobody sees as a change (placeholders, an
    /// operation that skipped every item). Updates the names the operation changed.
    ///
    /// - Complexity: O(items the operation changed, up to the caps).
    public mutating func entry(
        for committed: CommittedOperation, on board: Board, by actor: Actor, at: Int
    ) -> ActivityEntry? {
        let described = describe(committed.op, committed.effect, on: board)
        note(committed.op)
        guard let (verb, text, items) = described else { return nil }
        return ActivityEntry(
            seq: committed.seq, at: at, actor: actor.name, clientId: actor.clientId, color: actor.color, verb: verb,
            text: text, items: Array(items.prefix(ActivityLimits.itemsPerEntry)))
    }

    /// Where items stand, as the board shows it: the section's title ("To find"), or the
    /// collection's when the section has none (a collection's one untitled section).
    func place(_ collection: CollectionID, _ section: SectionID?) -> String {
        if let section, let title = sections[section]?.title, !title.isEmpty { return ItemNames.cut(title) }
        return collections[collection].map { Self.titled($0, or: "an untitled collection") } ?? "a deleted collection"
    }

    /// A title as shown (cut to one short line), or `fallback` when it is empty.
    static func titled(_ title: String, or fallback: String) -> String {
        title.isEmpty ? fallback : ItemNames.cut(title)
    }

    /// "“A”", "“A” and “B”", "“A”, “B”, “C” and 2 more".
    static func list(_ names: [String]) -> String {
        let shown = names.prefix(ActivityLimits.namesPerEntry)
        let rest = names.count - shown.count
        if rest > 0 { return shown.joined(separator: ", ") + " and \(rest) more" }
        if shown.count <= 1 { return shown.first ?? "nothing" }
        return shown.dropLast().joined(separator: ", ") + " and " + shown.last!
    }

    /// Keeps the names current after `op`.
    private mutating func note(_ op: BoardOperation) {
        switch op {
        case .createCollection(let c):
            collections[c.id] = c.title
            for section in c.sections { sections[section.id] = (section.title, c.id) }
        case .renameCollection(let r): collections[r.collection] = r.title
        case .deleteCollection(let d):
            collections[d.collection] = nil
            sections = sections.filter { $0.value.collection != d.collection }
        case .createSection(let s): sections[s.id] = (s.title, s.collection)
        case .renameSection(let r): sections[r.section]?.title = r.title
        case .deleteSection(let d): sections[d.section] = nil
        case .batch(let b): for op in b.ops { note(op) }
        default: break
        }
    }
}
