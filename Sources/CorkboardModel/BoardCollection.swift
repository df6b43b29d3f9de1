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
