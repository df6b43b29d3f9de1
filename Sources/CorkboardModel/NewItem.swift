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
