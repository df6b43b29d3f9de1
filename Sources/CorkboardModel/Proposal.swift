/// The operation a drop would perform, as in `UIDropOperation`.
public enum DropOperation: String, Hashable, Codable, Sendable {
    /// Nothing would happen (no items left, destination missing).
    case cancel
    /// The drop is not allowed here.
    case forbidden
    /// The items would move.
    case move
    /// The items would be copied.
    case copy
}

/// The answer to `dropUpdate`: what a drop here would do, with which intent, and why not when it
/// would not.
///
/// JSON shape: `{"operation":"move","intent":"insertAtDestinationIndexPath","reason":null}`.
public struct Proposal: Hashable, Codable, Sendable {
    /// The operation.
    public var operation: DropOperation
    /// The intent.
    public var intent: DropIntent
    /// For `cancel` and `forbidden`, a sentence saying why.
    public var reason: String?

    /// Creates a proposal.
    public init(operation: DropOperation, intent: DropIntent, reason: String? = nil) {
        self.operation = operation
        self.intent = intent
        self.reason = reason
    }
}

/// Where a drag hovers: collection, section, index and the intent the client hints.
public struct HoverTarget: Hashable, Codable, Sendable {
    /// The collection under the finger.
    public var collection: CollectionID
    /// The section under the finger.
    public var section: SectionID
    /// The index in the section (for `insertIntoDestinationIndexPath`, the item at that index).
    public var index: Int
    /// The intent hint.
    public var intent: DropIntent

    /// Creates a hover target.
    public init(
        collection: CollectionID, section: SectionID, index: Int, intent: DropIntent = .insertAtDestinationIndexPath
    ) {
        self.collection = collection
        self.section = section
        self.index = index
        self.intent = intent
    }
}

extension Board {
    /// Proposes what a drop would do (the contract's Proposals section).
    ///
    /// `cancel` when the destination is missing or no dragged item is left; `forbidden` for a
    /// viewer, a placeholder target, a drop into itself or a descendant (cycle), dragged
    /// placeholders, or types the collection does not accept; otherwise `copy` for items from
    /// another board or outside (`foreignTypes`, one type list per item) or when `copyRequested`,
    /// else `move`. An `insertIntoDestinationIndexPath` hint with no item at the index becomes
    /// `insertAtDestinationIndexPath`; `unspecified` stays as hinted.
    ///
    /// - Parameters:
    ///   - items: Dragged items of this board, in drag order; vanished ones are ignored.
    ///   - foreignTypes: Type lists of items dragged from another board or from outside.
    ///   - target: Where the drag hovers.
    ///   - copyRequested: The user asked to copy (e.g. holds Option).
    ///   - canEdit: `false` for viewers.
    /// - Complexity: O(k · depth + k · accepts · types) for k items, one small array of slots;
    ///   cheap enough for 30 Hz per dragger (the rate is in docs/BENCHMARKS.md, "The model").
    public func proposal(
        items: [ItemID], foreignTypes: [[String]] = [], at target: HoverTarget, copyRequested: Bool = false,
        canEdit: Bool = true
    ) -> Proposal {
        var intent = target.intent
        guard let collectionIndex = collectionIndex[target.collection], let section = sectionSlots[target.section],
            sectionNodes[Int(section)].collection == target.collection
        else {
            return Proposal(operation: .cancel, intent: intent, reason: "The destination no longer exists.")
        }
        let local = items.compactMap { itemSlots[$0] }
        guard !local.isEmpty || !foreignTypes.isEmpty else {
            return Proposal(operation: .cancel, intent: intent, reason: "None of the dragged items is left.")
        }
        guard canEdit else {
            return Proposal(operation: .forbidden, intent: intent, reason: "You can only view this board.")
        }
        let copying = copyRequested || !foreignTypes.isEmpty
        if intent == .insertIntoDestinationIndexPath {
            let list = sectionNodes[Int(section)].items
            if target.index >= 0, target.index < list.count {
                let into = list[target.index]
                if nodes[Int(into)].placeholder != nil {
                    return Proposal(
                        operation: .forbidden, intent: intent, reason: "A placeholder cannot receive a drop.")
                }
                if !copying, local.contains(where: { isAncestorOrSelf($0, of: into) }) {
                    return Proposal(
                        operation: .forbidden, intent: intent, reason: "An item cannot be dropped into itself.")
                }
            } else {
                intent = .insertAtDestinationIndexPath
            }
        }
        let accepts = collectionNodes[collectionIndex].accepts
        for slot in local {
            if nodes[Int(slot)].placeholder != nil {
                return Proposal(operation: .forbidden, intent: intent, reason: "A placeholder cannot be dragged.")
            }
            if !matches(accepts, slot: slot) {
                return Proposal(
                    operation: .forbidden, intent: intent,
                    reason: "This collection accepts only \(accepts.joined(separator: ", ")).")
            }
        }
        for types in foreignTypes where !TypeMatching.accepts(accepts, types: types) {
            return Proposal(
                operation: .forbidden, intent: intent,
                reason: "This collection accepts only \(accepts.joined(separator: ", ")).")
        }
        return Proposal(operation: copying ? .copy : .move, intent: intent)
    }
}
