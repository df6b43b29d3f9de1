/// Where an item stands: a (collection, section, index) position, or an index among a group's
/// children.
///
/// For an item inside a group, `collection` and `section` name where its outermost group stands
/// and `group` names its direct parent; `index` is then the index among that group's children.
public struct Position: Hashable, Codable, Sendable, CustomStringConvertible {
    /// The collection the item (or its outermost group) is in.
    public var collection: CollectionID
    /// The section the item (or its outermost group) is in.
    public var section: SectionID
    /// The direct parent group, or `nil` when the item stands in the section itself.
    public var group: ItemID?
    /// The index within the section, or within the group's children.
    public var index: Int

    /// Creates a position.
    public init(collection: CollectionID, section: SectionID, group: ItemID? = nil, index: Int) {
        self.collection = collection
        self.section = section
        self.group = group
        self.index = index
    }

    /// A short human form, e.g. `c1/s2[3]` or `c1/s2/g7[0]`.
    public var description: String {
        if let group { return "\(collection)/\(section)/\(group)[\(index)]" }
        return "\(collection)/\(section)[\(index)]"
    }
}

/// The intent of a drop, as in `UICollectionViewDropProposal.Intent`.
public enum DropIntent: String, Hashable, Codable, Sendable {
    /// No preference; applied like `insertAtDestinationIndexPath`.
    case unspecified
    /// Insert the items at the destination index path (the gap between `after` and `before`).
    case insertAtDestinationIndexPath
    /// Drop the items into the item at the destination (R7): it becomes a group and the items are
    /// appended to its children.
    case insertIntoDestinationIndexPath
}

/// Where a drop lands: collection, section, index, the anchors the sender saw, and the intent.
///
/// R3: the items go right after `after` if that item is still in the destination section and is
/// not itself being moved; else right before `before` under the same test; else at
/// `min(index, count)`. `index` counts positions in the section *after* the moved items have been
/// taken out of it (the final index of the first dropped item, as UIKit reports a move's
/// destination index path), clamped to the section's count.
///
/// With intent `insertIntoDestinationIndexPath`, `target` names the item dropped into (required);
/// the anchors and index are then ignored.
public struct Destination: Hashable, Codable, Sendable {
    /// The destination collection.
    public var collection: CollectionID
    /// The destination section.
    public var section: SectionID
    /// The index in the section after the moved items were removed; clamped.
    public var index: Int
    /// The item just before the gap, as the sender saw it.
    public var after: ItemID?
    /// The item just after the gap, as the sender saw it.
    public var before: ItemID?
    /// The drop intent.
    public var intent: DropIntent
    /// The item dropped into, for `insertIntoDestinationIndexPath`.
    public var target: ItemID?

    /// Creates a destination.
    public init(
        collection: CollectionID, section: SectionID, index: Int, after: ItemID? = nil, before: ItemID? = nil,
        intent: DropIntent = .insertAtDestinationIndexPath, target: ItemID? = nil
    ) {
        self.collection = collection
        self.section = section
        self.index = index
        self.after = after
        self.before = before
        self.intent = intent
        self.target = target
    }

    /// A destination dropping into `target` (R7).
    public static func into(_ target: ItemID, collection: CollectionID, section: SectionID) -> Destination {
        Destination(
            collection: collection, section: section, index: 0, intent: .insertIntoDestinationIndexPath,
            target: target)
    }
}
