/// One representation of an item: a uniform type identifier and its value.
///
/// Mirrors one registered type of an `NSItemProvider` (`public.plain-text`, `public.url`,
/// `public.image`, `corkboard.card`, …). The value is an opaque string (text, URL, a blob
/// reference); the model never interprets it.
public struct Representation: Hashable, Codable, Sendable {
    /// The type identifier, e.g. `public.url`.
    public var type: String
    /// The value for that type.
    public var value: String

    /// Creates a representation.
    public init(type: String, value: String) {
        self.type = type
        self.value = value
    }
}

/// Marks an item as a drop placeholder (R8): owned by one client until committed or deleted.
public struct PlaceholderInfo: Hashable, Codable, Sendable {
    /// The client id of the owner; only the owner commits it, the owner or the room deletes it.
    public var owner: String
    /// Server time (seconds) at which the placeholder was sequenced; chosen by the sequencer so
    /// every replica agrees.
    public var createdAt: Double

    /// Creates placeholder information.
    public init(owner: String, createdAt: Double) {
        self.owner = owner
        self.createdAt = createdAt
    }
}

/// An item as a value tree: its id, its representations, its children when it is a group, and
/// its placeholder state.
///
/// This is the shape items take in snapshots, in effects (`Effect.removed`) and on the wire:
/// `{"id":"…","representations":[{"type":"…","value":"…"}],"children":[…],"placeholder":{…}}`.
/// Representations are ordered best first, so they are an array rather than a JSON object.
public struct Item: Hashable, Codable, Sendable {
    /// The item id.
    public var id: ItemID
    /// The representations, best first.
    public var representations: [Representation]
    /// The children when the item is a group (possibly empty); `nil` for a plain item.
    public var children: [Item]?
    /// Set while the item is an uncommitted placeholder.
    public var placeholder: PlaceholderInfo?

    /// Creates an item tree.
    public init(
        id: ItemID, representations: [Representation] = [], children: [Item]? = nil,
        placeholder: PlaceholderInfo? = nil
    ) {
        self.id = id
        self.representations = representations
        self.children = children
        self.placeholder = placeholder
    }

    /// The type identifiers of the representations, best first.
    public var types: [String] { representations.map(\.type) }

    /// Every id in this tree, pre-order (the item first, then its children depth first).
    ///
    /// - Complexity: O(n) in the size of the tree.
    public var allIDs: [ItemID] {
        var result: [ItemID] = []
        func visit(_ item: Item) {
            result.append(item.id)
            for child in item.children ?? [] { visit(child) }
        }
        visit(self)
        return result
    }
}

/// An item to insert from outside the board: representations, optional children, and an optional
/// id.
///
/// When `id` is `nil` the board derives one from the operation (`Board.derivedID`), so a resend is
/// idempotent and every replica chooses the same id. Items moving in from another board of the
/// same server keep their ids (R6).
public struct NewItem: Hashable, Codable, Sendable {
    /// The id to use, or `nil` to derive one from the operation.
    public var id: ItemID?
    /// The representations, best first.
    public var representations: [Representation]
    /// Children when the new item is a group.
    public var children: [NewItem]?

    /// Creates an item to insert.
    public init(id: ItemID? = nil, representations: [Representation], children: [NewItem]? = nil) {
        self.id = id
        self.representations = representations
        self.children = children
    }

    /// Turns an existing item tree into one to insert, keeping its ids (a move between boards).
    /// Placeholder state is dropped.
    public init(_ item: Item) {
        self.id = item.id
        self.representations = item.representations
        self.children = item.children.map { $0.map(NewItem.init) }
    }
}

/// How a collection lays out its items.
public enum Layout: String, Hashable, Codable, Sendable {
    /// A grid, like a flow-layout `UICollectionView`.
    case grid
    /// A vertical list, like a `UITableView`.
    case list
}

/// A section of a collection as a value: id, title, ordered items.
public struct Section: Hashable, Codable, Sendable {
    /// The section id.
    public var id: SectionID
    /// The title shown above the section.
    public var title: String
    /// The items in order.
    public var items: [Item]

    /// Creates a section.
    public init(id: SectionID, title: String = "", items: [Item] = []) {
        self.id = id
        self.title = title
        self.items = items
    }
}

/// A collection on a board as a value: id, title, layout, accepted types, sections.
///
/// Named `BoardCollection` so it does not shadow Swift's `Collection` protocol.
public struct BoardCollection: Hashable, Codable, Sendable {
    /// The collection id.
    public var id: CollectionID
    /// The title shown for the collection.
    public var title: String
    /// Grid or list.
    public var layout: Layout
    /// Accepted type identifiers (`canHandle`); empty accepts everything.
    public var accepts: [String]
    /// The sections in order.
    public var sections: [Section]

    /// Creates a collection.
    public init(
        id: CollectionID, title: String = "", layout: Layout = .grid, accepts: [String] = [],
        sections: [Section] = []
    ) {
        self.id = id
        self.title = title
        self.layout = layout
        self.accepts = accepts
        self.sections = sections
    }
}

/// Type matching for `accepts` lists (R5).
public enum TypeMatching {
    /// Whether an accepts entry matches a type: equal to it, or a dot-prefix of it
    /// (`public.image` accepts `public.image.png`).
    ///
    /// - Complexity: O(length of the strings).
    public static func entry(_ entry: String, matches type: String) -> Bool {
        if entry == type { return true }
        guard type.count > entry.count, type.hasPrefix(entry) else { return false }
        return type[type.index(type.startIndex, offsetBy: entry.count)] == "."
    }

    /// Whether a list of types is accepted: an empty accepts list takes everything; otherwise any
    /// type must match any entry.
    ///
    /// - Complexity: O(accepts × types).
    public static func accepts(_ accepts: [String], types: some Sequence<String>) -> Bool {
        if accepts.isEmpty { return true }
        for type in types where accepts.contains(where: { entry($0, matches: type) }) { return true }
        return false
    }
}

/// The contract's placeholder clean-up limits (R8), for the room's sweeps.
public enum PlaceholderLimits {
    /// How long (seconds) a departed owner may take to resume before the room deletes its
    /// placeholders: 30 s.
    public static let ownerGracePeriod: Double = 30
    /// How long (seconds) a placeholder may stay uncommitted before the room deletes it: 5 min.
    public static let maximumAge: Double = 300
}
