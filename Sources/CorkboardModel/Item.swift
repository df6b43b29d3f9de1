/// An item as a value tree: its id, its representations, its children when it is a group, its
/// placeholder state, its content version and its card details.
///
/// This is the shape items take in snapshots, in effects (`Effect.removed`) and on the wire:
/// `{"id":"…","representations":[{"type":"…","value":"…"}],"children":[…],"placeholder":{…},"version":2,`
/// `"details":{…}}`. Representations are ordered best first, so they are an array rather than a
/// JSON object; `version` is left out while it is 0, `details` while they are empty.
public struct Item: Hashable, Sendable {
    /// The item id.
    public var id: ItemID
    /// The representations, best first.
    public var representations: [Representation]
    /// The children when the item is a group (possibly empty); `nil` for a plain item.
    public var children: [Item]?
    /// Set while the item is an uncommitted placeholder.
    public var placeholder: PlaceholderInfo?
    /// How many times its content changed (R12): 0 for content never edited, one more for each
    /// `updateItem` and `commitPlaceholder`. An `updateItem` names the version it was made on and
    /// is refused `conflict` when the item moved past it.
    public var version: Int
    /// The card's description, dates, done flag and assignees (R16); `nil` while all are empty.
    public var details: CardDetails?

    /// Creates an item tree; empty `details` are kept as `nil`.
    public init(
        id: ItemID, representations: [Representation] = [], children: [Item]? = nil,
        placeholder: PlaceholderInfo? = nil, version: Int = 0, details: CardDetails? = nil
    ) {
        self.id = id
        self.representations = representations
        self.children = children
        self.placeholder = placeholder
        self.version = version
        self.details = details?.isEmpty == true ? nil : details
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

extension Item: Codable {
    private enum CodingKeys: String, CodingKey { case id, representations, children, placeholder, version, details }

    /// Decodes an item; `version` defaults to 0 and `details` to none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(ItemID.self, forKey: .id),
            representations: try container.decode([Representation].self, forKey: .representations),
            children: try container.decodeIfPresent([Item].self, forKey: .children),
            placeholder: try container.decodeIfPresent(PlaceholderInfo.self, forKey: .placeholder),
            version: try container.decodeIfPresent(Int.self, forKey: .version) ?? 0,
            details: try container.decodeIfPresent(CardDetails.self, forKey: .details))
    }

    /// Encodes an item; `children`, `placeholder` and `details` only when present, `version` only
    /// when above 0.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(representations, forKey: .representations)
        try container.encodeIfPresent(children, forKey: .children)
        try container.encodeIfPresent(placeholder, forKey: .placeholder)
        if version > 0 { try container.encode(version, forKey: .version) }
        try container.encodeIfPresent(details, forKey: .details)
    }
}
