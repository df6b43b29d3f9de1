public import CorkboardModel

/// A checklist item a member is dragging in an open card, with where it would land (issue 41):
/// carried by that member's `cursor` so that peers with the card open see the item lifted and the
/// gap open. Ephemeral like every cursor: the latest per member per tick, never stored or sequenced;
/// the drop itself is a `checklist` `moveItem` operation.
///
/// JSON shape: `{"item":"i1","checklist":"k1","entry":"e1","index":2}`; `index` (counted without
/// the item, as `moveItem` counts it) is left out while the pointer is nowhere it would land.
public struct ChecklistDrag: Hashable, Codable, Sendable {
    /// The card.
    public var item: ItemID
    /// The checklist.
    public var checklist: ChecklistID
    /// The item being dragged.
    public var entry: ChecklistEntryID
    /// Where it would land among the checklist's other items.
    public var index: Int?

    /// Creates a checklist drag.
    public init(item: ItemID, checklist: ChecklistID, entry: ChecklistEntryID, index: Int? = nil) {
        self.item = item
        self.checklist = checklist
        self.entry = entry
        self.index = index
    }
}
