import CorkboardModel
import CorkboardProtocol

/// What a bot can choose from on the board it sees (its replica's view).
///
/// Every list is sorted or in board order, so the same seed makes the same choices on the same
/// board.
struct BoardChoices {
    /// A section and the collection it belongs to.
    struct Place: Hashable {
        /// The collection.
        var collection: CollectionID
        /// The section.
        var section: SectionID
    }

    /// The board as the bot sees it.
    let board: Board

    /// Items that can be dragged (not placeholders), group children included, sorted.
    var draggable: [ItemID] {
        board.allItemIDs.filter { !board.isPlaceholder($0) }.sorted()
    }

    /// Every section in board order.
    var places: [Place] {
        board.collectionIDs.flatMap { collection in
            (board.sectionIDs(in: collection) ?? []).map { Place(collection: collection, section: $0) }
        }
    }

    /// The items standing directly in a section, in order.
    func items(in place: Place) -> [ItemID] { board.itemIDs(in: place.section) ?? [] }

    /// Where an item stands (its outermost group's section for a nested item).
    func place(of item: ItemID) -> Place? {
        board.position(of: item).map { Place(collection: $0.collection, section: $0.section) }
    }

    /// A drop at `index` of a section as the bot sees it now, with the anchors around the gap (R3),
    /// counting positions without the items being moved.
    func destination(at place: Place, index: Int, moving: [ItemID]) -> Destination {
        let list = items(in: place).filter { !moving.contains($0) }
        let index = min(max(0, index), list.count)
        return Destination(
            collection: place.collection, section: place.section, index: index,
            after: index > 0 ? list[index - 1] : nil, before: index < list.count ? list[index] : nil)
    }

    /// The hover target of a destination.
    func target(_ destination: Destination) -> DragTarget {
        DragTarget(
            collection: destination.collection, section: destination.section, index: destination.index,
            intent: destination.intent)
    }

    /// What the board itself proposes for dropping `items` (and outside content) at `target`.
    func proposal(
        items: [ItemID], external: [[String]] = [], at target: DragTarget, copy: Bool = false
    ) -> Proposal {
        board.proposal(items: items, foreignTypes: external, at: target.hover, copyRequested: copy)
    }

    /// Whether the section's collection would take the items (R5).
    func accepts(_ items: [ItemID], at place: Place, copy: Bool = false) -> Bool {
        let operation = proposal(
            items: items, at: DragTarget(collection: place.collection, section: place.section, index: 0), copy: copy
        ).operation
        return operation == .move || operation == .copy
    }

    /// The first section whose collection takes plain text: the demo board's Inbox.
    var inbox: Place? {
        places.first { place in
            TypeMatching.accepts(board.accepts(of: place.collection) ?? [], types: ["public.plain-text"])
        }
    }

    /// Items made by operations (copies, committed notes): their ids are derived, `client:opId:n`.
    /// Placeholders are left to their owners.
    var derivedItems: [ItemID] {
        draggable.filter { $0.rawValue.contains(":") }
    }
}

extension RandomNumberGenerator {
    /// A random element, or `nil` for an empty collection.
    mutating func pick<C: Collection>(_ elements: C) -> C.Element? {
        elements.randomElement(using: &self)
    }

    /// Up to `count` distinct random elements, in the collection's order.
    mutating func pick<T: Hashable>(upTo count: Int, of elements: [T]) -> [T] {
        guard count > 0, !elements.isEmpty else { return [] }
        var chosen = Set<T>()
        for _ in 0..<count * 3 where chosen.count < count {
            if let element = elements.randomElement(using: &self) { chosen.insert(element) }
        }
        return elements.filter(chosen.contains)
    }
}
