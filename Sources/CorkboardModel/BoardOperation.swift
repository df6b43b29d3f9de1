/// A change to a board: what a client asks the sequencer to do.
///
/// On the wire every operation is a tagged object: `{"kind":"move","items":[…],"destination":{…}}`;
/// the payload's fields sit next to `kind`. Kinds: `move`, `copy`, `insert`, `insertPlaceholder`,
/// `commitPlaceholder`, `deletePlaceholder`, `delete`, `moveOut`, `updateItem`, `createCollection`,
/// `renameCollection`, `deleteCollection`, `moveCollection`, `setAccepts`, `setLayout`,
/// `createSection`, `renameSection`, `deleteSection`, `moveSection`, `renameBoard`, and `batch`
/// (made by the server only, for undo and redo).
public enum BoardOperation: Hashable, Sendable {
    /// Move items to a destination (R2, R3, R4, R5, R7, R9).
    case move(Move)
    /// Copy items, deeply, with fresh ids derived from the operation (R6).
    case copy(Copy)
    /// Insert new items from outside the board, or items moving in from another board (R6).
    case insert(Insert)
    /// Insert a placeholder owned by the submitting client (R8).
    case insertPlaceholder(InsertPlaceholder)
    /// Give a placeholder its content, in the place it holds now (R8). Owner only.
    case commitPlaceholder(CommitPlaceholder)
    /// Delete a placeholder (R8). Owner, or the room (`ClientIdentity.system`).
    case deletePlaceholder(DeletePlaceholder)
    /// Delete items and their children, into the board's Trash (R15).
    case delete(Delete)
    /// Take items off this board so the room can insert them into another (R6); the effect
    /// carries the removed trees.
    case moveOut(Delete)
    /// Replace an item's representations (R12: on the version it names, if any).
    case updateItem(UpdateItem)
    /// Change a card's details: description, dates, done, assignees (R16).
    case updateCard(UpdateCard)
    /// Create a collection.
    case createCollection(CreateCollection)
    /// Rename a collection.
    case renameCollection(RenameCollection)
    /// Delete a collection with its sections and items.
    case deleteCollection(DeleteCollection)
    /// Move a collection to another index among the board's collections.
    case moveCollection(MoveCollection)
    /// Change a collection's accepted types; items already there stay.
    case setAccepts(SetAccepts)
    /// Switch a collection between grid and list.
    case setLayout(SetLayout)
    /// Create a section in a collection.
    case createSection(CreateSection)
    /// Rename a section.
    case renameSection(RenameSection)
    /// Delete a section with its items.
    case deleteSection(DeleteSection)
    /// Move a section to another index within its collection.
    case moveSection(MoveSection)
    /// Give the board its own title.
    case renameBoard(RenameBoard)
    /// Create a label of the board, or change one's name or colour (R16).
    case setLabel(SetLabel)
    /// Delete a label of the board, taking it off every card.
    case deleteLabel(DeleteLabel)
    /// Add a comment to a card's thread.
    case addComment(AddComment)
    /// Change one's own comment.
    case editComment(EditComment)
    /// Delete one's own comment.
    case deleteComment(DeleteComment)
    /// Change a card's checklists: add, rename or delete one, or add, check, rename, delete or
    /// move one of its items (R16).
    case checklist(ChecklistChange)
    /// Several operations applied as one, all or none (R13): how an undo or redo that takes more
    /// than one step is sequenced. Made by the server only; the rooms refuse it from clients.
    case batch(Batch)
    /// Put a Trash entry back where it was (R15), once.
    case restore(Restore)
    /// Empty the Trash; what it held is gone for good (R15).
    case emptyTrash(EmptyTrash)

    /// The operation's wire tag.
    public var kind: String {
        switch self {
        case .move: "move"
        case .copy: "copy"
        case .insert: "insert"
        case .insertPlaceholder: "insertPlaceholder"
        case .commitPlaceholder: "commitPlaceholder"
        case .deletePlaceholder: "deletePlaceholder"
        case .delete: "delete"
        case .moveOut: "moveOut"
        case .updateItem: "updateItem"
        case .updateCard: "updateCard"
        case .createCollection: "createCollection"
        case .renameCollection: "renameCollection"
        case .deleteCollection: "deleteCollection"
        case .moveCollection: "moveCollection"
        case .setAccepts: "setAccepts"
        case .setLayout: "setLayout"
        case .createSection: "createSection"
        case .renameSection: "renameSection"
        case .deleteSection: "deleteSection"
        case .moveSection: "moveSection"
        case .renameBoard: "renameBoard"
        case .setLabel: "setLabel"
        case .deleteLabel: "deleteLabel"
        case .addComment: "addComment"
        case .editComment: "editComment"
        case .deleteComment: "deleteComment"
        case .checklist: "checklist"
        case .batch: "batch"
        case .restore: "restore"
        case .emptyTrash: "emptyTrash"
        }
    }

    /// Every operation kind, in the order of `docs/PROTOCOL.md`.
    public static let kinds = [
        "move", "copy", "insert", "insertPlaceholder", "commitPlaceholder", "deletePlaceholder", "delete", "moveOut",
        "updateItem", "updateCard", "createCollection", "renameCollection", "deleteCollection", "moveCollection",
        "setAccepts",
        "setLayout", "createSection", "renameSection", "deleteSection", "moveSection", "renameBoard", "batch",
        "setLabel", "deleteLabel", "addComment", "editComment", "deleteComment",
        "checklist", "restore", "emptyTrash",
    ]

    /// The drag session the operation finishes, for the lease check (R9): items leased to this
    /// session may be moved or deleted by it.
    public var session: String? {
        switch self {
        case .move(let m): m.session
        case .delete(let d), .moveOut(let d): d.session
        default: nil
        }
    }

    /// Payload of `move`.
    public struct Move: Hashable, Codable, Sendable {
        /// The dragged items in drag order.
        public var items: [ItemID]
        /// Where they land.
        public var destination: Destination
        /// The drag session the drop ends, if any (R9).
        public var session: String?
        /// Creates a move.
        public init(items: [ItemID], destination: Destination, session: String? = nil) {
            self.items = items
            self.destination = destination
            self.session = session
        }
    }

    /// Payload of `copy`.
    public struct Copy: Hashable, Codable, Sendable {
        /// The items to copy, in drag order.
        public var items: [ItemID]
        /// Where the copies land.
        public var destination: Destination
        /// Creates a copy.
        public init(items: [ItemID], destination: Destination) {
            self.items = items
            self.destination = destination
        }
    }

    /// Payload of `insert`.
    public struct Insert: Hashable, Codable, Sendable {
        /// The items to insert, in order.
        public var items: [NewItem]
        /// Where they land.
        public var destination: Destination
        /// The definitions of the labels the items carry, when they come from another board: each
        /// one the board does not have yet is added (while it has room, `CardLimits.labels`).
        public var labels: [Label]?
        /// Creates an insert.
        public init(items: [NewItem], destination: Destination, labels: [Label]? = nil) {
            self.items = items
            self.destination = destination
            self.labels = labels
        }
    }

    /// Payload of `insertPlaceholder`. The placeholder's id is `Board.derivedID(client, opId, 0)`.
    public struct InsertPlaceholder: Hashable, Codable, Sendable {
        /// Where the placeholder stands (intent must not be `insertIntoDestinationIndexPath`).
        public var destination: Destination
        /// Preview representations shown until commit; may be empty.
        public var representations: [Representation]
        /// Server time of creation; the sequencer overwrites whatever the client sent.
        public var createdAt: Double
        /// Creates a placeholder insert.
        public init(destination: Destination, representations: [Representation] = [], createdAt: Double = 0) {
            self.destination = destination
            self.representations = representations
            self.createdAt = createdAt
        }
    }

    /// Payload of `commitPlaceholder`.
    public struct CommitPlaceholder: Hashable, Codable, Sendable {
        /// The placeholder.
        public var item: ItemID
        /// Its final representations.
        public var representations: [Representation]
        /// Creates a commit.
        public init(item: ItemID, representations: [Representation]) {
            self.item = item
            self.representations = representations
        }
    }

    /// Payload of `deletePlaceholder`.
    public struct DeletePlaceholder: Hashable, Codable, Sendable {
        /// The placeholder.
        public var item: ItemID
        /// Creates a placeholder deletion.
        public init(item: ItemID) { self.item = item }
    }

    /// Payload of `delete` and `moveOut`.
    public struct Delete: Hashable, Codable, Sendable {
        /// The items to remove (with their children).
        public var items: [ItemID]
        /// The drag session doing it, if any (R9).
        public var session: String?
        /// Who deleted, for the Trash: set by the room (a client's is replaced).
        public var name: String?
        /// When, in milliseconds since 1970: set by the sequencer.
        public var at: Int?
        /// Creates a deletion.
        public init(items: [ItemID], session: String? = nil, name: String? = nil, at: Int? = nil) {
            self.items = items
            self.session = session
            self.name = name
            self.at = at
        }
    }

    /// Payload of `updateItem`.
    public struct UpdateItem: Hashable, Codable, Sendable {
        /// The item.
        public var item: ItemID
        /// Its new representations.
        public var representations: [Representation]
        /// The item's version the edit was made on (R12); when the item is at another version the
        /// update is refused `conflict` and changes nothing. `nil` replaces whatever is there.
        public var version: Int?
        /// Creates an update.
        public init(item: ItemID, representations: [Representation], version: Int? = nil) {
            self.item = item
            self.representations = representations
            self.version = version
        }
    }

    /// Payload of `createCollection`.
    public struct CreateCollection: Hashable, Codable, Sendable {
        /// The new collection's id (client-chosen, must be unused).
        public var id: CollectionID
        /// Its title.
        public var title: String
        /// Its layout.
        public var layout: Layout
        /// Its accepted types; empty accepts everything.
        public var accepts: [String]
        /// Where it goes among the collections; `nil` or past the end appends.
        public var index: Int?
        /// Its first sections, empty (client-chosen ids, unused on the board), so a collection and
        /// its sections are one operation and one undo.
        public var sections: [NewSection]
        /// Creates a collection creation.
        public init(
            id: CollectionID, title: String = "", layout: Layout = .grid, accepts: [String] = [], index: Int? = nil,
            sections: [NewSection] = []
        ) {
            self.id = id
            self.title = title
            self.layout = layout
            self.accepts = accepts
            self.index = index
            self.sections = sections
        }
    }

    /// A section created with its collection (`createCollection.sections`).
    public struct NewSection: Hashable, Codable, Sendable {
        /// The section's id.
        public var id: SectionID
        /// Its title.
        public var title: String
        /// Creates a section description.
        public init(id: SectionID, title: String = "") {
            self.id = id
            self.title = title
        }
    }

    /// Payload of `renameCollection`.
    public struct RenameCollection: Hashable, Codable, Sendable {
        /// The collection.
        public var collection: CollectionID
        /// The new title.
        public var title: String
        /// Creates a rename.
        public init(collection: CollectionID, title: String) {
            self.collection = collection
            self.title = title
        }
    }

    /// Payload of `deleteCollection`.
    public struct DeleteCollection: Hashable, Codable, Sendable {
        /// The collection.
        public var collection: CollectionID
        /// Who deleted and when (ms since 1970), for the Trash: set by the room and the sequencer.
        public var name: String?, at: Int?
        /// Creates a deletion.
        public init(collection: CollectionID, name: String? = nil, at: Int? = nil) {
            self.collection = collection
            self.name = name
            self.at = at
        }
    }

    /// Payload of `moveCollection`.
    public struct MoveCollection: Hashable, Codable, Sendable {
        /// The collection.
        public var collection: CollectionID
        /// Its new index, clamped.
        public var index: Int
        /// Creates a collection move.
        public init(collection: CollectionID, index: Int) {
            self.collection = collection
            self.index = index
        }
    }

    /// Payload of `setAccepts`.
    public struct SetAccepts: Hashable, Codable, Sendable {
        /// The collection.
        public var collection: CollectionID
        /// The new accepted types; empty accepts everything.
        public var accepts: [String]
        /// Creates an accepts change.
        public init(collection: CollectionID, accepts: [String]) {
            self.collection = collection
            self.accepts = accepts
        }
    }

    /// Payload of `setLayout`.
    public struct SetLayout: Hashable, Codable, Sendable {
        /// The collection.
        public var collection: CollectionID
        /// Grid or list.
        public var layout: Layout
        /// Creates a layout change.
        public init(collection: CollectionID, layout: Layout) {
            self.collection = collection
            self.layout = layout
        }
    }

    /// Payload of `renameBoard`.
    public struct RenameBoard: Hashable, Codable, Sendable {
        /// The board's new title; `nil` gives it back the title it was created with (the board
        /// list's), as undoing its first rename does.
        public var title: String?
        /// Creates a board rename.
        public init(title: String?) { self.title = title }
    }

    /// Payload of `batch`: operations applied in order as one, all or none.
    ///
    /// Each part applies as if submitted alone by the batch's client under the batch's opId; a
    /// part may not be a batch or a `moveOut`. The effect is the parts' effects one after another.
    public struct Batch: Hashable, Codable, Sendable {
        /// The parts, in order.
        public var ops: [BoardOperation]
        /// Creates a batch.
        public init(ops: [BoardOperation]) { self.ops = ops }
    }

}

// Fields with a sensible default may be left out on the wire.
extension BoardOperation.InsertPlaceholder {
    private enum CodingKeys: String, CodingKey { case destination, representations, createdAt }

    /// Decodes; `representations` defaults to none and `createdAt` to 0 (the sequencer sets it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            destination: try container.decode(Destination.self, forKey: .destination),
            representations: try container.decodeIfPresent([Representation].self, forKey: .representations) ?? [],
            createdAt: try container.decodeIfPresent(Double.self, forKey: .createdAt) ?? 0)
    }
}

extension BoardOperation.CreateCollection {
    private enum CodingKeys: String, CodingKey { case id, title, layout, accepts, index, sections }

    /// Decodes; `title` defaults to empty, `layout` to grid, `accepts` to everything, `sections` to
    /// none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(CollectionID.self, forKey: .id),
            title: try container.decodeIfPresent(String.self, forKey: .title) ?? "",
            layout: try container.decodeIfPresent(Layout.self, forKey: .layout) ?? .grid,
            accepts: try container.decodeIfPresent([String].self, forKey: .accepts) ?? [],
            index: try container.decodeIfPresent(Int.self, forKey: .index),
            sections: try container.decodeIfPresent([BoardOperation.NewSection].self, forKey: .sections) ?? [])
    }

    /// Encodes; `sections` only when there are some.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(layout, forKey: .layout)
        try container.encode(accepts, forKey: .accepts)
        try container.encodeIfPresent(index, forKey: .index)
        if !sections.isEmpty { try container.encode(sections, forKey: .sections) }
    }
}

extension BoardOperation.NewSection {
    private enum CodingKeys: String, CodingKey { case id, title }

    /// Decodes; `title` defaults to empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(SectionID.self, forKey: .id),
            title: try container.decodeIfPresent(String.self, forKey: .title) ?? "")
    }
}
