/// How to reverse one committed operation of a client (R13), taken when it commits.
///
/// A recipe keeps only what the board will no longer know: where moved items came from (their
/// container, index and R3 anchors), the trees a delete removed, old titles, accepts and layouts,
/// the content an edit replaced. The reverse operation itself is made later, against the board as
/// it is *then* (`inverse(on:boardTitle:)`): items that vanished meanwhile are skipped, a
/// destination that vanished or a change someone made since refuses the undo with a sentence.
///
/// Made by `UndoRecipe.Capture`: `init` before the operation applies, `recipe(effect:board:)`
/// after it committed. An undo or redo is an operation like any other, so its own recipe is what
/// redoes (or undoes again) it.
public struct UndoRecipe: Hashable, Codable, Sendable {
    /// Where an item stood: its list (a section, or a group's children) and its place in it.
    public struct Origin: Hashable, Codable, Sendable {
        /// The collection and section it stood in (its outermost group's, inside a group).
        public var collection: CollectionID
        /// The section.
        public var section: SectionID
        /// The group it stood in directly, if any.
        public var group: ItemID?
        /// Its index in that list before the operation.
        public var index: Int
        /// The item just before the run it belonged to (R3), if any.
        public var after: ItemID?
        /// The item just after the run, if any.
        public var before: ItemID?

        /// Where a run of items goes back to: its anchors in a section, or into its group.
        var destination: Destination {
            if let group { return .into(group, collection: collection, section: section) }
            return Destination(collection: collection, section: section, index: index, after: after, before: before)
        }
    }

    /// Items that stood next to each other in one list, in order, with the run's origin.
    public struct Run<Element: Hashable & Sendable>: Hashable, Sendable {
        /// The run's first place and its anchors.
        public var origin: Origin
        /// The items (ids for a move, trees for a delete), in their order.
        public var elements: [Element]
    }

    /// What reverses the operation.
    public enum Step: Hashable, Codable, Sendable {
        /// Moved items go back to their runs (a `move`).
        case moveBack([Run<ItemID>])
        /// Created items are deleted (an `insert`, `copy` or `commitPlaceholder`), unless someone
        /// changed them or put cards into them since: the content each had when created.
        case remove(roots: [ItemID], created: [ItemID: [Representation]])
        /// Deleted trees come back with their ids, content and versions (a `delete` recorded before
        /// the Trash, R15; kept so that stored histories still read).
        case restore([Run<Item>])
        /// A delete's Trash entry is restored (R15): the id only, so that an undo and someone's
        /// restore of the same entry apply once, and the history holds no content (R18).
        case restoreTrash(String)
        /// A restore is undone by deleting again, into the Trash (`delete`, `deleteSection` or
        /// `deleteCollection`, ids only).
        case trashAgain(BoardOperation)
        /// An edit is reverted to `old`, unless the item moved past `version` since (`updateItem`).
        case revertContent(item: ItemID, old: [Representation], version: Int)
        /// A card's details go back (`updateCard`): the reverse update, made on the versions the
        /// change left, so that someone's later edit refuses it.
        case revertCard(BoardOperation.UpdateCard)
        /// A label goes back from `now` to `old`, unless someone changed it since; a created one
        /// (`old == nil`) is deleted, unless someone put it on a card since (`setLabel`).
        case relabel(now: Label, old: Label?)
        /// A deleted label comes back at its index, on the cards that carried it and are still here.
        case restoreLabel(Label, index: Int, cards: [ItemID])
        /// An added comment is deleted (`addComment`).
        case removeComment(item: ItemID, comment: CommentID)
        /// An edited comment gets its old text back, unless it was edited again since (`editComment`).
        case revertComment(item: ItemID, comment: CommentID, old: String, version: Int)
        /// A deleted comment comes back at its place in the thread (`deleteComment`).
        case restoreComment(item: ItemID, comment: CardComment, index: Int)
        /// A card's checklist change is reversed (`checklist`): the reverse change, a rename's
        /// made on the name it left, so that someone's later rename refuses it.
        case revertChecklist(BoardOperation.ChecklistChange)
        /// A deleted section comes back at its index, with its items (`deleteSection`).
        case restoreSection(collection: CollectionID, section: Section, index: Int)
        /// A deleted collection comes back at its index, with its sections and items.
        case restoreCollection(BoardCollection, index: Int)
        /// A created collection is deleted, if it still holds no card.
        case deleteCollection(CollectionID, title: String)
        /// A created section is deleted, if it still holds no card.
        case deleteSection(SectionID, title: String)
        /// A title goes back from `now` to `old`, unless someone retitled it since.
        case retitleCollection(CollectionID, now: String, old: String)
        case retitleSection(SectionID, now: String, old: String)
        /// `old == nil`: the board had the title it was created with; `now == nil`: it was given
        /// that back.
        case retitleBoard(now: String?, old: String?)
        /// What a collection takes goes back, unless someone changed it since.
        case reaccept(CollectionID, now: [String], old: [String])
        /// A layout goes back, unless someone changed it since.
        case relayout(CollectionID, now: Layout, old: Layout)
        /// A collection or section goes back to its index.
        case moveCollectionBack(CollectionID, index: Int)
        case moveSectionBack(SectionID, index: Int)
        /// Cannot be undone; the sentence says why and what to do.
        case notUndoable(String)
        /// The parts of a `batch`, in the batch's order (reversed last part first).
        case parts([UndoRecipe])
    }

    /// What reverses the operation.
    public var step: Step
    /// What the operation did, kept so that its cards' names are worked out only when read.
    var described: Summary

    /// What the operation did, for sentences: "moving “Old Mill Wheel”", "deleting 3 cards".
    ///
    /// - Complexity: O(size of the named card's content): a card's name is read from its content
    ///   (as it was when the recipe was taken) each time this is read.
    public var summary: String {
        get { described.text }
        set { described = Summary(lead: newValue) }
    }

    /// A recipe whose summary is a plain sentence part.
    init(step: Step, summary: String) {
        self.init(step: step, described: Summary(lead: summary))
    }

    init(step: Step, described: Summary) {
        self.step = step
        self.described = described
    }

    /// A recipe for an operation that cannot be undone, saying why.
    public static func notUndoable(_ sentence: String, summary: String) -> UndoRecipe {
        UndoRecipe(step: .notUndoable(sentence), summary: summary)
    }

    /// About how many bytes of board content the recipe holds (the trees a delete took), so a
    /// history can bound its memory.
    ///
    /// - Complexity: O(size of the held trees).
    public var heldBytes: Int {
        func bytes(_ item: Item) -> Int {
            item.id.rawValue.utf8.count + Self.contentBytes(item.representations)
                + OperationSize.details(item.details) + (item.children ?? []).reduce(0) { $0 + bytes($1) }
        }
        switch step {
        case .restore(let runs): return runs.reduce(0) { $0 + $1.elements.reduce(0) { $0 + bytes($1) } }
        case .restoreSection(_, let section, _): return section.items.reduce(0) { $0 + bytes($1) }
        case .restoreCollection(let collection, _):
            return collection.sections.reduce(0) { $0 + $1.items.reduce(0) { $0 + bytes($1) } }
        case .revertContent(_, let old, _): return old.reduce(0) { $0 + $1.value.utf8.count }
        case .revertCard(let update): return 64 + (update.description?.text.utf8.count ?? 0)
        case .restoreLabel(_, _, let cards): return cards.reduce(64) { $0 + $1.rawValue.utf8.count }
        case .revertComment(_, _, let old, _): return 64 + old.utf8.count
        case .restoreComment(_, let comment, _): return 64 + comment.text.utf8.count
        case .revertChecklist(let change):
            return (change.restore ?? []).reduce(64 + (change.name ?? change.text ?? "").utf8.count) {
                $0 + 16 + $1.text.utf8.count
            }
        case .parts(let parts): return parts.reduce(0) { $0 + $1.heldBytes }
        case .restoreTrash(let entry): return 64 + entry.utf8.count
        case .trashAgain(let op): return 64 + op.trashedIDBytes
        default: return 64
        }
    }

    /// The bytes of the types and values of an item's content.
    static func contentBytes(_ representations: [Representation]) -> Int {
        representations.reduce(0) { $0 + $1.type.utf8.count + $1.value.utf8.count }
    }
}

// MARK: - Capturing

extension UndoRecipe {
    /// What an operation's recipe needs from the board *before* it applies; `recipe(effect:board:)`
    /// completes it once the operation committed.
    ///
    /// - Complexity: about the operation's own apply cost: O(length of the lists the moved or
    ///   deleted items stand in), O(size of what a delete removes); a `batch` replays its parts on
    ///   a copy of the board (O(n)).
    public struct Capture: Sendable {
        enum Pending: Sendable {
            case done(UndoRecipe?)
            case created(summaryKind: String)
            case committed(ItemID)
        }

        let pending: Pending

        /// Captures, on the board before it applies, what reversing `op` of `clientId` will need.
        public init(_ op: BoardOperation, on board: Board, clientId: String, opId: String, boardTitle: String) {
            switch op {
            case .insert: pending = .created(summaryKind: "adding")
            case .copy: pending = .created(summaryKind: "copying")
            case .commitPlaceholder(let commit): pending = .committed(commit.item)
            case .addComment(let add):
                let id = add.restore?.id ?? Board.commentID(clientId: clientId, opId: opId)
                pending = .done(
                    board.item(add.item).map {
                        UndoRecipe(
                            step: .removeComment(item: add.item, comment: id),
                            described: Summary(lead: "commenting on ", name: .of($0)))
                    })
            case .batch(let batch):
                var scratch = board
                var parts: [UndoRecipe] = []
                for part in batch.ops {
                    let capture = Capture(part, on: scratch, clientId: clientId, opId: opId, boardTitle: boardTitle)
                    guard let effect = try? scratch.apply(part, clientId: clientId, opId: opId) else { break }
                    if let recipe = capture.recipe(effect: effect, board: scratch) { parts.append(recipe) }
                }
                pending = .done(
                    parts.last.map { UndoRecipe(step: .parts(parts), described: $0.described) })
            case .delete, .deleteSection, .deleteCollection, .restore, .emptyTrash:
                pending = .done(UndoRecipe.trashing(op, on: board, clientId: clientId, opId: opId))
            default:
                pending = .done(UndoRecipe.before(op, on: board, boardTitle: boardTitle))
            }
        }

        /// The recipe, from the committed operation's effect and the board right after it; `nil`
        /// for operations that are not undone on their own (placeholders inserted or deleted).
        ///
        /// - Complexity: O(size of the trees the operation created).
        public func recipe(effect: Effect, board: Board) -> UndoRecipe? {
            switch pending {
            case .done(let recipe):
                return recipe
            case .created(let kind):
                let roots = effect.changes.filter { $0.from == nil }.map(\.item)
                return UndoRecipe.removing(roots, kind: kind, on: board)
            case .committed(let item):
                return UndoRecipe.removing([item], kind: "adding", on: board)
            }
        }
    }

    /// The recipe of a creation: delete the roots, knowing every created id and its content.
    static func removing(_ roots: [ItemID], kind: String, on board: Board) -> UndoRecipe? {
        guard !roots.isEmpty else { return nil }
        var created: [ItemID: [Representation]] = [:]
        func visit(_ item: Item) {
            created[item.id] = item.representations
            for child in item.children ?? [] { visit(child) }
        }
        for root in roots { board.item(root).map(visit) }
        return UndoRecipe(
            step: .remove(roots: roots, created: created),
            described: Summary(lead: "\(kind) ", name: board.names(of: roots)))
    }

    /// The recipe of an operation whose reversal is known before it applies.
    static func before(_ op: BoardOperation, on board: Board, boardTitle: String) -> UndoRecipe? {
        switch op {
        case .move(let move):
            let runs = board.runs(of: move.items)
            return UndoRecipe(
                step: .moveBack(runs), described: Summary(lead: "moving ", name: board.names(of: move.items)))
        case .updateItem(let update):
            guard let item = board.item(update.item) else { return nil }
            return UndoRecipe(
                step: .revertContent(item: update.item, old: item.representations, version: item.version + 1),
                described: Summary(lead: "editing ", name: .of(item)))
        case .setLabel, .deleteLabel, .addComment, .editComment, .deleteComment, .updateCard, .checklist:
            return beforeCardChange(op, on: board)
        case .createCollection(let create):
            return UndoRecipe(
                step: .deleteCollection(create.id, title: create.title),
                summary: "adding the collection \(quoted(create.title))")
        case .renameCollection(let rename):
            guard let old = board.collectionIndex[rename.collection].map({ board.collectionNodes[$0].title }) else {
                return nil
            }
            return UndoRecipe(
                step: .retitleCollection(rename.collection, now: rename.title, old: old),
                summary: "renaming \(quoted(old))")
        case .moveCollection(let move):
            guard let index = board.collectionIndex[move.collection] else { return nil }
            return UndoRecipe(
                step: .moveCollectionBack(move.collection, index: index),
                summary: "moving \(quoted(board.collectionNodes[index].title))")
        case .setAccepts(let set):
            guard let index = board.collectionIndex[set.collection] else { return nil }
            let node = board.collectionNodes[index]
            return UndoRecipe(
                step: .reaccept(set.collection, now: set.accepts, old: node.accepts),
                summary: "changing what \(quoted(node.title)) takes")
        case .setLayout(let set):
            guard let index = board.collectionIndex[set.collection] else { return nil }
            let node = board.collectionNodes[index]
            return UndoRecipe(
                step: .relayout(set.collection, now: set.layout, old: node.layout),
                summary: "showing \(quoted(node.title)) as a \(set.layout.rawValue)")
        case .createSection(let create):
            return UndoRecipe(
                step: .deleteSection(create.id, title: create.title),
                summary: "adding the section \(quoted(create.title))")
        case .renameSection(let rename):
            guard let slot = board.sectionSlots[rename.section] else { return nil }
            let old = board.sectionNodes[Int(slot)].title
            return UndoRecipe(
                step: .retitleSection(rename.section, now: rename.title, old: old), summary: "renaming \(quoted(old))")
        case .moveSection(let move):
            guard let slot = board.sectionSlots[move.section] else { return nil }
            let node = board.sectionNodes[Int(slot)]
            let index = board.collectionNodes[node.collectionOrdinal].sections.firstIndex(of: slot)!
            return UndoRecipe(
                step: .moveSectionBack(move.section, index: index), summary: "moving \(quoted(node.title))")
        case .renameBoard(let rename):
            return UndoRecipe(
                step: .retitleBoard(now: rename.title, old: board.title),
                summary: "renaming the board \(quoted(board.title ?? boardTitle))")
        case .moveOut(let moveOut):
            return UndoRecipe(
                step: .notUndoable("moves to another board cannot be undone; drag the cards back from that board"),
                described: Summary(lead: "moving ", name: board.names(of: moveOut.items), trail: " to another board"))
        case .insert, .copy, .commitPlaceholder, .batch, .insertPlaceholder, .deletePlaceholder:
            return nil
        case .delete, .deleteSection, .deleteCollection, .restore, .emptyTrash:
            // Captured with the Trash entry's id (`trashing`), which needs the client and opId.
            return nil
        }
    }

    /// A title in quotes, or "the untitled one".
    static func quoted(_ title: String) -> String { title.isEmpty ? "an untitled one" : "“\(title)”" }
}

extension UndoRecipe {
    /// What an operation did, for sentences: a lead ("moving "), the name of what it touched, and
    /// a trail (" to another board").
    ///
    /// A recipe is taken for every committed operation, and its summary is read only when an undo
    /// is refused; naming a card parses its JSON content, so the name keeps the content (shared
    /// with the board, not copied; at most `Name.deferredBytes` of it) and is worked out when
    /// read. Summaries are equal when their sentences are.
    struct Summary: Hashable, Codable, Sendable {
        /// The name of what an operation touched.
        enum Name: Codable, Sendable {
            /// Already a phrase ("3 cards", "a card that was deleted").
            case phrase(String)
            /// An item as it was: named from this content when read.
            case item([Representation], childCount: Int?, isPlaceholder: Bool)

            /// Content up to this many bytes (types and values) is kept and named when read;
            /// larger content is named at once, so a recipe never keeps more than this of content
            /// the board may since have replaced.
            static let deferredBytes = 1024

            /// An item with this content: named when read, or at once when its content is large.
            static func item(representations: [Representation], childCount: Int?, isPlaceholder: Bool) -> Name {
                guard UndoRecipe.contentBytes(representations) <= deferredBytes else {
                    return .phrase(
                        ItemNames.quoted(
                            representations: representations, childCount: childCount, isPlaceholder: isPlaceholder))
                }
                return .item(representations, childCount: childCount, isPlaceholder: isPlaceholder)
            }

            /// An item as it is now.
            static func of(_ item: Item) -> Name {
                .item(
                    representations: item.representations, childCount: item.children?.count,
                    isPlaceholder: item.placeholder != nil)
            }

            /// The name as people read it (`ItemNames.quoted`).
            var text: String {
                switch self {
                case .phrase(let phrase): phrase
                case .item(let representations, let childCount, let isPlaceholder):
                    ItemNames.quoted(
                        representations: representations, childCount: childCount, isPlaceholder: isPlaceholder)
                }
            }
        }

        var lead: String
        var name: Name?
        var trail = ""

        /// The sentence part: "moving “Old Mill Wheel”".
        var text: String { lead + (name?.text ?? "") + trail }

        static func == (lhs: Summary, rhs: Summary) -> Bool { lhs.text == rhs.text }

        func hash(into hasher: inout Hasher) { hasher.combine(text) }
    }
}

// Stores keep each client's history (``UndoHistory/StoredEntry``) as these recipes in JSON.
extension UndoRecipe.Run: Codable where Element: Codable {}

extension Board {
    /// “Old Mill Wheel” for one item, "3 cards" for several; the card's name is worked out when
    /// read (``UndoRecipe/Summary``).
    func names(of items: [ItemID]) -> UndoRecipe.Summary.Name {
        let live = items.filter(contains)
        guard items.count == 1 || live.count == 1 else { return .phrase("\(items.count) cards") }
        guard let slot = itemSlots[live.first ?? items[0]] else { return .phrase(ItemNames.deleted) }
        let node = nodes[Int(slot)]
        return .item(
            representations: node.representations, childCount: node.children?.count,
            isPlaceholder: node.placeholder != nil)
    }

    /// The live items among `items` grouped into runs of neighbours in the lists they stand in:
    /// lists in the order first met, runs by index, each with its first index and R3 anchors.
    /// With `rootsOnly`, items inside another listed item are left out (they go with it).
    func runs(of items: [ItemID], rootsOnly: Bool = false) -> [UndoRecipe.Run<ItemID>] {
        var slots = items.compactMap { itemSlots[$0] }
        if rootsOnly {
            slots = slots.filter { slot in !slots.contains { $0 != slot && isAncestorOrSelf($0, of: slot) } }
        }
        var order: [Parent] = []
        var byParent: [Parent: [(index: Int, slot: Slot)]] = [:]
        for slot in slots {
            let parent = nodes[Int(slot)].parent
            let list = self.list(of: parent)
            guard let index = list.firstIndex(of: slot) else { continue }
            if byParent[parent] == nil { order.append(parent) }
            byParent[parent, default: []].append((index, slot))
        }
        var runs: [UndoRecipe.Run<ItemID>] = []
        for parent in order {
            let list = self.list(of: parent)
            let root = sectionNodes[Int(rootSection(ofParent: parent))]
            let group: ItemID? = if case .group(let g) = parent { nodes[Int(g)].id } else { nil }
            let entries = byParent[parent]!.sorted { $0.index < $1.index }
            var start = 0
            while start < entries.count {
                var end = start
                while end + 1 < entries.count, entries[end + 1].index == entries[end].index + 1 { end += 1 }
                let first = entries[start].index
                let last = entries[end].index
                let origin = UndoRecipe.Origin(
                    collection: root.collection, section: root.id, group: group, index: first,
                    after: first > 0 ? nodes[Int(list[first - 1])].id : nil,
                    before: last + 1 < list.count ? nodes[Int(list[last + 1])].id : nil)
                runs.append(
                    UndoRecipe.Run(origin: origin, elements: entries[start...end].map { nodes[Int($0.slot)].id }))
                start = end + 1
            }
        }
        return runs
    }

    /// One collection as a tree.
    ///
    /// - Complexity: O(items in it).
    func collection(at index: Int) -> BoardCollection {
        let c = collectionNodes[index]
        return BoardCollection(
            id: c.id, title: c.title, layout: c.layout, accepts: c.accepts,
            sections: c.sections.map { s in
                let section = sectionNodes[Int(s)]
                return Section(id: section.id, title: section.title, items: section.items.map(tree(of:)))
            })
    }

    /// The list a parent holds: a section's items or a group's children.
    func list(of parent: Parent) -> [Slot] {
        switch parent {
        case .section(let s): sectionNodes[Int(s)].items
        case .group(let g): nodes[Int(g)].children ?? []
        }
    }

    /// The section a parent ultimately stands in.
    func rootSection(ofParent parent: Parent) -> Slot {
        switch parent {
        case .section(let s): s
        case .group(let g): rootSection(of: g)
        }
    }
}
