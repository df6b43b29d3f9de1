/// One item's change in a committed operation: where it was and where it is now.
///
/// `from == nil` means the item was created (insert, copy, placeholder); `to == nil` means it was
/// deleted or moved out of the board.
public struct ItemChange: Hashable, Codable, Sendable {
    /// The item.
    public var item: ItemID
    /// Its position before the operation, or `nil` if it is new.
    public var from: Position?
    /// Its position after the operation, or `nil` if it left the board.
    public var to: Position?

    /// Creates a change record.
    public init(item: ItemID, from: Position?, to: Position?) {
        self.item = item
        self.from = from
        self.to = to
    }
}

/// What an applied operation did: the items it changed, the ones it skipped because they had
/// vanished (R4), and the trees it removed (for `moveOut`, R6).
///
/// `from` positions are taken before the operation, `to` positions after it, so a drop's `to`
/// indexes are its final positions (the acknowledgement of a drop). Structural operations on
/// collections and sections report the items they deleted with `to == nil`.
public struct Effect: Hashable, Codable, Sendable {
    /// The items changed, in the operation's order.
    public var changes: [ItemChange]
    /// Items named by the operation that no longer existed; they were skipped (R4).
    public var skipped: [ItemID]
    /// Trees taken off the board by `moveOut` or `delete`, in order.
    public var removed: [Item]
    /// Trash entries that fell out of the bounded Trash (R15) with this operation, oldest first;
    /// `nil` when none did. Gone for good; the browser's replica drops them by this list.
    public var evicted: [String]?

    /// Creates an effect.
    public init(changes: [ItemChange] = [], skipped: [ItemID] = [], removed: [Item] = [], evicted: [String]? = nil) {
        self.changes = changes
        self.skipped = skipped
        self.removed = removed
        self.evicted = evicted
    }
}
