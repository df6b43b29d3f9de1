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
