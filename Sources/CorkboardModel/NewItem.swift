/// An item to insert from outside the board: representations, optional children, and an optional
/// id.
///
/// When `id` is `nil` the board derives one from the operation (`Board.derivedID`), so a resend is
/// idempotent and every replica chooses the same id. Items moving in from another board of the
/// same server keep their ids (R6).
public struct NewItem: Hashable, Sendable {
    /// The id to use, or `nil` to derive one from the operation.
    public var id: ItemID?
    /// The representations, best first.
    public var representations: [Representation]
    /// Children when the new item is a group.
    public var children: [NewItem]?
    /// The content version it comes back with (R12): kept when an item moves between boards or an
    /// undo restores a deleted one (R13); 0 for anything new. Clients leave it out.
    public var version: Int
    /// The card's details (R16): carried when an item moves between boards or comes back, or set by
    /// a client that inserts a card with a description or dates; `nil` while empty.
    public var details: CardDetails?

    /// Creates an item to insert; empty `details` are kept as `nil`.
    public init(
        id: ItemID? = nil, representations: [Representation], children: [NewItem]? = nil, version: Int = 0,
        details: CardDetails? = nil
    ) {
        self.id = id
        self.representations = representations
        self.children = children
        self.version = version
        self.details = details?.isEmpty == true ? nil : details
    }

    /// Turns an existing item tree into one to insert, keeping its ids, versions and details (a move
    /// between boards, a deleted item restored by undo). Placeholder state is dropped.
    public init(_ item: Item) {
        self.init(
            id: item.id, representations: item.representations, children: item.children.map { $0.map(NewItem.init) },
            version: item.version, details: item.details)
    }
}

extension NewItem: Codable {
    private enum CodingKeys: String, CodingKey { case id, representations, children, version, details }

    /// Decodes a new item; `version` defaults to 0 and `details` to none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decodeIfPresent(ItemID.self, forKey: .id),
            representations: try container.decode([Representation].self, forKey: .representations),
            children: try container.decodeIfPresent([NewItem].self, forKey: .children),
            version: try container.decodeIfPresent(Int.self, forKey: .version) ?? 0,
            details: try container.decodeIfPresent(CardDetails.self, forKey: .details))
    }

    /// Encodes a new item; `version` only when above 0, `details` only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(representations, forKey: .representations)
        try container.encodeIfPresent(children, forKey: .children)
        if version > 0 { try container.encode(version, forKey: .version) }
        try container.encodeIfPresent(details, forKey: .details)
    }
}
