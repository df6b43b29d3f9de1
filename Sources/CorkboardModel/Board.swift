/// A board: ordered collections of ordered sections of ordered items, some of them groups.
///
/// `Board` is a value. It changes only through `apply(_:)` (a committed operation) or, inside the
/// sequencer and the client replica, `apply(_:clientId:opId:)`; each returns the `Effect` or throws
/// a `Rejection` and then leaves the board untouched. The same operations in the same order give
/// the same board on every replica.
///
/// Internally items and sections live in slot tables with an id → slot index and a parent link per
/// item, so finding an item is one hash lookup and moving it costs a scan of the section it leaves
/// and the one it enters. Equality compares the visible structure (`collections`), not slot
/// numbers, so two replicas that reached the same board by different paths compare equal.
///
/// JSON shape: `{"title":"…","labels":[Label…],"collections":[BoardCollection…]}` — the nested
/// tree, ids as strings; `title` only once the board was renamed (`renameBoard`), `labels` only
/// while it has some (`setLabel`).
public struct Board: Sendable {
    typealias Slot = Int32

    enum Parent: Hashable, Sendable {
        case section(Slot)
        case group(Slot)
    }

    /// An item's slot. Slots of deleted items are reused; `isFree` marks them meanwhile (a
    /// non-optional element lets hot paths read one field without copying the node).
    struct Node: Sendable {
        static let freed = Node(
            id: "", representations: [], children: nil, placeholder: nil, parent: .group(-1), isFree: true)
        var id: ItemID
        var representations: [Representation]
        var children: [Slot]?
        var placeholder: PlaceholderInfo?
        var parent: Parent
        var isFree = false
        /// The content version (R12).
        var version = 0
    }

    /// A section's slot; `isFree` marks slots of deleted sections.
    struct SectionNode: Sendable {
        static let freed = SectionNode(id: "", collection: "", title: "", items: [], isFree: true)
        var id: SectionID
        var collection: CollectionID
        var title: String
        var items: [Slot]
        var isFree = false
        /// The collection's index in `collectionNodes`, kept by `rebuildCollectionIndex()` (saves a
        /// hash lookup per drop).
        var collectionOrdinal = 0
    }

    struct CollectionNode: Sendable {
        var id: CollectionID
        var title: String
        var layout: Layout
        var accepts: [String]
        var sections: [Slot]
    }

    /// The board's own title, once renamed (`renameBoard`); `nil` keeps the title it was created
    /// with (the board list's).
    public internal(set) var title: String?
    /// The board's labels, in order (R16); cards carry them by id.
    public internal(set) var labels: [Label] = []
    var collectionNodes: [CollectionNode] = []
    var collectionIndex: [CollectionID: Int] = [:]
    var sectionNodes: [SectionNode] = []
    var sectionSlots: [SectionID: Slot] = [:]
    var freeSectionSlots: [Slot] = []
    var nodes: [Node] = []
    var itemSlots: [ItemID: Slot] = [:]
    var freeItemSlots: [Slot] = []
    /// The details of the cards that have some (R16), by slot: kept beside the nodes rather than in
    /// them, so that moves, which never touch details, copy no more than they did.
    var cardDetails: [Slot: CardDetails] = [:]
    /// The snapshot bytes of every collection, section and item (R14), kept by each change; see
    /// `estimatedSnapshotBytes`.
    var contentBytes = 0
    /// The number of placeholders on the board (R8), kept as items come and go.
    public internal(set) var placeholderCount = 0
    /// What deletes removed, to restore (R15); not part of the visible structure `==` compares.
    public internal(set) var trash = Trash()

    /// An empty board.
    public init() {}

    /// Builds a board from its tree, with its own title when it was renamed and its labels. Labels a
    /// card carries that are not among `labels` are left out.
    ///
    /// - Throws: `Rejection` with code `duplicate-id` when an id appears twice, `invalid` when a
    ///   placeholder is nested in a group, has children or has no owner.
    /// - Complexity: O(n) in the number of items.
    public init(collections: [BoardCollection], title: String? = nil, labels: [Label] = []) throws(Rejection) {
        self.title = title
        contentBytes += SnapshotSize.boardTitle(title)
        for label in labels where self.label(label.id) == nil { addLabel(label, at: self.labels.count) }
        for collection in collections {
            guard collectionIndex[collection.id] == nil else {
                throw Rejection(
                    .duplicateID, "Collection id \(collection.id) appears twice; give each collection its own id.",
                    field: "collections")
            }
            collectionIndex[collection.id] = collectionNodes.count
            var sectionList: [Slot] = []
            for section in collection.sections {
                guard sectionSlots[section.id] == nil else {
                    throw Rejection(
                        .duplicateID, "Section id \(section.id) appears twice; give each section its own id.",
                        field: "sections")
                }
                let slot = Slot(sectionNodes.count)
                sectionNodes.append(
                    SectionNode(
                        id: section.id, collection: collection.id, title: section.title, items: [],
                        collectionOrdinal: collectionNodes.count))
                sectionSlots[section.id] = slot
                sectionList.append(slot)
                contentBytes += SnapshotSize.section(id: section.id, title: section.title)
                for item in section.items {
                    let itemSlot = try insertTree(item, parent: .section(slot))
                    sectionNodes[Int(slot)].items.append(itemSlot)
                }
            }
            collectionNodes.append(
                CollectionNode(
                    id: collection.id, title: collection.title, layout: collection.layout,
                    accepts: collection.accepts, sections: sectionList))
            contentBytes += collectionBytes(collectionNodes[collectionNodes.count - 1])
        }
    }

    /// The id the board gives the `n`th new item of an operation that did not choose ids itself
    /// (copies, inserts without ids, placeholders): `"<clientId>:<opId>:<n>"`.
    ///
    /// Deriving ids from the operation makes a resend idempotent and lets every replica, including
    /// the submitting client's optimistic view, choose the same id. `n` counts new items in
    /// pre-order across the operation, starting at 0.
    public static func derivedID(clientId: String, opId: String, n: Int) -> ItemID {
        ItemID("\(clientId):\(opId):\(n)")
    }

    // MARK: Reading

    /// The whole board as a tree, collections in order.
    ///
    /// - Complexity: O(n) in the number of items.
    public var collections: [BoardCollection] {
        collectionNodes.map { c in
            BoardCollection(
                id: c.id, title: c.title, layout: c.layout, accepts: c.accepts,
                sections: c.sections.map { s in
                    let section = sectionNodes[Int(s)]
                    return Section(id: section.id, title: section.title, items: section.items.map(tree(of:)))
                })
        }
    }

    /// The collection ids in order.
    ///
    /// - Complexity: O(collections).
    public var collectionIDs: [CollectionID] { collectionNodes.map(\.id) }

    /// A collection's section ids in order, or `nil` if there is no such collection.
    ///
    /// - Complexity: O(sections in the collection).
    public func sectionIDs(in collection: CollectionID) -> [SectionID]? {
        guard let index = collectionIndex[collection] else { return nil }
        return collectionNodes[index].sections.map { sectionNodes[Int($0)].id }
    }

    /// A collection's accepted types, or `nil` if there is no such collection.
    ///
    /// - Complexity: O(1).
    public func accepts(of collection: CollectionID) -> [String]? {
        collectionIndex[collection].map { collectionNodes[$0].accepts }
    }

    /// The collection a section belongs to, or `nil` if there is no such section.
    ///
    /// - Complexity: O(1).
    public func collection(of section: SectionID) -> CollectionID? {
        sectionSlots[section].map { sectionNodes[Int($0)].collection }
    }

    /// A section's item ids in order, or `nil` if there is no such section.
    ///
    /// - Complexity: O(items in the section).
    public func itemIDs(in section: SectionID) -> [ItemID]? {
        guard let slot = sectionSlots[section] else { return nil }
        return sectionNodes[Int(slot)].items.map { nodes[Int($0)].id }
    }

    /// A group's children ids, or `nil` if the item does not exist or is not a group.
    ///
    /// - Complexity: O(children).
    public func children(of item: ItemID) -> [ItemID]? {
        guard let slot = itemSlots[item], let children = nodes[Int(slot)].children else { return nil }
        return children.map { nodes[Int($0)].id }
    }

    /// Whether the item is on the board (in a section or in a group).
    ///
    /// - Complexity: O(1).
    public func contains(_ item: ItemID) -> Bool { itemSlots[item] != nil }

    /// The number of items on the board, group children included.
    ///
    /// - Complexity: O(1).
    public var itemCount: Int { itemSlots.count }

    /// Every item id on the board, in no particular order.
    ///
    /// - Complexity: O(n).
    public var allItemIDs: [ItemID] { Array(itemSlots.keys) }

    /// The item's tree (representations, children, placeholder state), or `nil` if it is gone.
    ///
    /// - Complexity: O(size of the item's subtree).
    public func item(_ id: ItemID) -> Item? {
        itemSlots[id].map(tree(of:))
    }

    /// Where the item stands now, or `nil` if it is gone.
    ///
    /// - Complexity: O(depth + length of the list it stands in).
    public func position(of item: ItemID) -> Position? {
        itemSlots[item].map(position(ofSlot:))
    }

    // MARK: Internals shared by apply, invariants and leases

    func tree(of slot: Slot) -> Item {
        let node = nodes[Int(slot)]
        return Item(
            id: node.id, representations: node.representations, children: node.children?.map(tree(of:)),
            placeholder: node.placeholder, version: node.version, details: cardDetails[slot])
    }

    /// The section slot an item ultimately stands in (through its groups).
    func rootSection(of slot: Slot) -> Slot {
        var current = slot
        while true {
            switch nodes[Int(current)].parent {
            case .section(let s): return s
            case .group(let g): current = g
            }
        }
    }

    func position(ofSlot slot: Slot) -> Position {
        let root = Int(rootSection(of: slot))
        switch nodes[Int(slot)].parent {
        case .section(let s):
            let index = sectionNodes[Int(s)].items.firstIndex(of: slot)!
            return Position(collection: sectionNodes[root].collection, section: sectionNodes[root].id, index: index)
        case .group(let g):
            let index = nodes[Int(g)].children!.firstIndex(of: slot)!
            return Position(
                collection: sectionNodes[root].collection, section: sectionNodes[root].id, group: nodes[Int(g)].id,
                index: index)
        }
    }

    /// Whether `ancestor` is `slot` or one of the groups containing it.
    func isAncestorOrSelf(_ ancestor: Slot, of slot: Slot) -> Bool {
        var current = slot
        while true {
            if current == ancestor { return true }
            guard case .group(let g) = nodes[Int(current)].parent else { return false }
            current = g
        }
    }

    /// The accepts list of the collection a section slot belongs to.
    func accepts(ofSection section: Slot) -> [String] {
        collectionNodes[sectionNodes[Int(section)].collectionOrdinal].accepts
    }

    /// Whether the item or, for a group without representations, any descendant matches.
    func matches(_ accepts: [String], slot: Slot) -> Bool {
        if accepts.isEmpty { return true }
        let node = nodes[Int(slot)]
        if TypeMatching.accepts(accepts, types: node.representations.lazy.map(\.type)) { return true }
        guard node.representations.isEmpty, let children = node.children else { return false }
        return children.contains { matches(accepts, slot: $0) }
    }

    /// Puts `node` in the slot freed last, or at the end of `table` when none is free.
    static func place<Element>(_ node: Element, in table: inout [Element], reusing free: inout [Slot]) -> Slot {
        if let slot = free.popLast() {
            table[Int(slot)] = node
            return slot
        }
        table.append(node)
        return Slot(table.count - 1)
    }

    mutating func allocate(_ node: Node) -> Slot {
        let slot = Self.place(node, in: &nodes, reusing: &freeItemSlots)
        itemSlots[node.id] = slot
        contentBytes += itemBytes(node)
        if node.placeholder != nil { placeholderCount += 1 }
        return slot
    }

    /// Inserts a tree's nodes (not linking the root into its parent's list).
    mutating func insertTree(_ item: Item, parent: Parent) throws(Rejection) -> Slot {
        guard itemSlots[item.id] == nil else {
            throw Rejection(
                .duplicateID, "Item id \(item.id) appears twice; give each item its own id.", item: item.id)
        }
        if let placeholder = item.placeholder {
            if case .group = parent {
                throw Rejection(
                    .invalid, "Placeholder \(item.id) is inside a group; placeholders stand only in sections.")
            }
            if item.children != nil || placeholder.owner.isEmpty {
                throw Rejection(
                    .invalid, "Placeholder \(item.id) needs an owner and no children; fix or drop it from the data.")
            }
        }
        let slot = allocate(
            Node(
                id: item.id, representations: item.representations, children: item.children == nil ? nil : [],
                placeholder: item.placeholder, parent: parent, version: item.version))
        if var details = item.details {
            if !details.labels.isEmpty { details.labels.removeAll { label($0) == nil } }
            setDetails(details, of: slot)
        }
        for child in item.children ?? [] {
            let childSlot = try insertTree(child, parent: .group(slot))
            nodes[Int(slot)].children!.append(childSlot)
        }
        return slot
    }

    /// Frees a subtree's slots (the root must already be unlinked from its parent's list).
    mutating func free(_ slot: Slot) {
        let node = nodes[Int(slot)]
        for child in node.children ?? [] { free(child) }
        contentBytes -= itemBytes(node)
        if cardDetails[slot] != nil { setDetails(CardDetails(), of: slot) }
        if node.placeholder != nil { placeholderCount -= 1 }
        itemSlots[node.id] = nil
        nodes[Int(slot)] = .freed
        freeItemSlots.append(slot)
    }

    /// Unlinks an item from its parent's list. A group left without children dissolves: it is a
    /// plain item again (`children == nil`), as in a collection view where the last card dragged
    /// out of a stack leaves a single card.
    mutating func detach(_ slot: Slot) {
        switch nodes[Int(slot)].parent {
        case .section(let s):
            let index = sectionNodes[Int(s)].items.firstIndex(of: slot)!
            sectionNodes[Int(s)].items.remove(at: index)
        case .group(let g):
            let index = nodes[Int(g)].children!.firstIndex(of: slot)!
            nodes[Int(g)].children!.remove(at: index)
            if nodes[Int(g)].children!.isEmpty {
                nodes[Int(g)].children = nil
                contentBytes -= SnapshotSize.childrenField
            }
        }
    }

    /// Gives the card in `slot` its details (none when `details` is empty), keeping the snapshot
    /// estimate (R14).
    mutating func setDetails(_ details: CardDetails, of slot: Slot) {
        contentBytes -= SnapshotSize.details(cardDetails[slot])
        cardDetails[slot] = details.isEmpty ? nil : details
        contentBytes += SnapshotSize.details(cardDetails[slot])
    }

    mutating func rebuildCollectionIndex() {
        collectionIndex.removeAll(keepingCapacity: true)
        for (index, collection) in collectionNodes.enumerated() {
            collectionIndex[collection.id] = index
            for section in collection.sections { sectionNodes[Int(section)].collectionOrdinal = index }
        }
    }
}

extension Board: Equatable {
    /// Whether two boards have the same visible structure: the same collections, sections and
    /// items in the same order with the same content.
    ///
    /// - Complexity: O(n).
    public static func == (lhs: Board, rhs: Board) -> Bool {
        lhs.itemCount == rhs.itemCount && lhs.title == rhs.title && lhs.labels == rhs.labels
            && lhs.collections == rhs.collections
    }
}

extension Board: Codable {
    private enum CodingKeys: String, CodingKey { case title, labels, collections, trash }

    /// Decodes `{"title":"…","labels":[…],"collections":[…],"trash":[…]}` (`title`, `labels` and
    /// `trash` optional) and rebuilds the indexes.
    ///
    /// - Complexity: O(n).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let collections = try container.decode([BoardCollection].self, forKey: .collections)
        let title = try container.decodeIfPresent(String.self, forKey: .title)
        let labels = try container.decodeIfPresent([Label].self, forKey: .labels) ?? []
        do {
            try self.init(collections: collections, title: title, labels: labels)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .collections, in: container, debugDescription: error.message)
        }
        trash = Trash(entries: try container.decodeIfPresent([TrashEntry].self, forKey: .trash) ?? [])
    }

    /// Encodes `{"title":"…","labels":[…],"collections":[…],"trash":[…]}`, `title` only when the
    /// board has its own, `labels` and `trash` only when it has some.
    ///
    /// - Complexity: O(n).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(title, forKey: .title)
        if !labels.isEmpty { try container.encode(labels, forKey: .labels) }
        try container.encode(collections, forKey: .collections)
        if !trash.entries.isEmpty { try container.encode(trash.entries, forKey: .trash) }
    }
}

extension Board {
    /// Placeholders (R8), optionally only those owned by a client and/or created before a time,
    /// sorted by id.
    ///
    /// The room uses it to delete, with sequenced operations from `ClientIdentity.system`, the
    /// placeholders of an owner who left and did not resume within the grace period (default 30 s),
    /// and those left uncommitted past the age limit (default 5 min): pass
    /// `createdBefore: now - limit`.
    ///
    /// - Complexity: O(n) in the number of items.
    public func placeholders(ownedBy owner: String? = nil, createdBefore: Double? = nil) -> [ItemID] {
        var result: [ItemID] = []
        for node in nodes where !node.isFree {
            guard let placeholder = node.placeholder else { continue }
            if let owner, placeholder.owner != owner { continue }
            if let createdBefore, placeholder.createdAt >= createdBefore { continue }
            result.append(node.id)
        }
        return result.sorted()
    }

    /// The creation time (seconds since 1970) of the oldest placeholder; `nil` without any.
    ///
    /// - Complexity: O(1) without placeholders, else O(n).
    public var earliestPlaceholderCreation: Double? {
        guard placeholderCount > 0 else { return nil }
        var earliest: Double?
        for node in nodes where !node.isFree {
            guard let createdAt = node.placeholder?.createdAt else { continue }
            earliest = min(earliest ?? createdAt, createdAt)
        }
        return earliest
    }

    /// Whether the item exists and is a placeholder.
    ///
    /// - Complexity: O(1).
    public func isPlaceholder(_ item: ItemID) -> Bool {
        guard let slot = itemSlots[item] else { return false }
        return nodes[Int(slot)].placeholder != nil
    }
}
