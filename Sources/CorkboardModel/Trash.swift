/// One thing a delete put in the board's Trash (R15): cards, a section or a collection, with who
/// deleted it and when, and everything needed to put it back where it was.
///
/// JSON shape: `{"id":"c-1:op-7","name":"Ada","clientId":"c-1","at":1765036800000,"cards":[Run…]}`,
/// with `"section":{"collection":"c","index":2,"section":Section}` or
/// `"collection":{"index":1,"collection":BoardCollection}` instead of `cards`. A run of cards is
/// `{"origin":{"collection","section","group"?,"index","after"?,"before"?},"elements":[Item…]}`.
public struct TrashEntry: Hashable, Sendable {
    /// What was deleted.
    public enum Content: Hashable, Sendable {
        /// Cards (with their children), as runs of neighbours with their R3 anchors.
        case cards([UndoRecipe.Run<Item>])
        /// A section with its cards, and its index among its collection's sections.
        case section(collection: CollectionID, section: Section, index: Int)
        /// A collection with its sections and cards, and its index among the board's collections.
        case collection(BoardCollection, index: Int)
    }

    /// The entry's id: `"<clientId>:<opId>"` of the delete (`Board.trashID`), the same on every replica.
    public var id: String
    /// The display name of who deleted it, as the room knew them.
    public var name: String
    /// The client that deleted it.
    public var clientId: String
    /// When, in milliseconds since 1970 (the server's time at the delete; 0 on a client's own view).
    public var at: Int
    /// What was deleted.
    public var content: Content
    /// About how many snapshot bytes the entry takes (a pure function of the entry, so every
    /// replica counts the same).
    public private(set) var bytes: Int

    /// Creates an entry and measures it.
    public init(id: String, name: String, clientId: String, at: Int, content: Content) {
        self.id = id
        self.name = name
        self.clientId = clientId
        self.at = at
        self.content = content
        bytes = 0
        bytes = measure()
    }

    /// The number of cards it holds (group children included).
    public var cardCount: Int {
        func count(_ item: Item) -> Int { 1 + (item.children ?? []).reduce(0) { $0 + count($1) } }
        func count(_ items: [Item]) -> Int { items.reduce(0) { $0 + count($1) } }
        switch content {
        case .cards(let runs): return runs.reduce(0) { $0 + count($1.elements) }
        case .section(_, let section, _): return count(section.items)
        case .collection(let collection, _): return collection.sections.reduce(0) { $0 + count($1.items) }
        }
    }

    /// The ids of every card it holds, group children included, in order.
    public var allItemIDs: [ItemID] {
        func ids(_ item: Item) -> [ItemID] { [item.id] + (item.children ?? []).flatMap(ids) }
        switch content {
        case .cards(let runs): return runs.flatMap { $0.elements.flatMap(ids) }
        case .section(_, let section, _): return section.items.flatMap(ids)
        case .collection(let collection, _): return collection.sections.flatMap { $0.items.flatMap(ids) }
        }
    }

    private func measure() -> Int {
        func tree(_ item: Item) -> Int {
            SnapshotSize.item(
                id: item.id, representations: item.representations, isGroup: item.children != nil,
                placeholderOwner: nil, version: item.version) + SnapshotSize.details(item.details)
                + (item.children ?? []).reduce(0) { $0 + tree($1) }
        }
        func section(_ section: Section) -> Int {
            SnapshotSize.section(id: section.id, title: section.title) + section.items.reduce(0) { $0 + tree($1) }
        }
        // The wrapper, id, name, client, time and an origin's anchors.
        var total =
            #"{"id":,"name":,"clientId":,"at":,"cards":[]},"#.utf8.count + SnapshotSize.string(id)
            + SnapshotSize.string(name) + SnapshotSize.string(clientId) + SnapshotSize.maxNumber
        switch content {
        case .cards(let runs):
            for run in runs {
                total += 160 + SnapshotSize.string(run.origin.collection.rawValue)
                total += SnapshotSize.string(run.origin.section.rawValue)
                for anchor in [run.origin.group, run.origin.after, run.origin.before] {
                    total += anchor.map { SnapshotSize.string($0.rawValue) } ?? 0
                }
                total += run.elements.reduce(0) { $0 + tree($1) }
            }
        case .section(let collection, let deleted, _):
            total += 64 + SnapshotSize.string(collection.rawValue) + section(deleted)
        case .collection(let collection, _):
            total +=
                32
                + SnapshotSize.collection(
                    id: collection.id, title: collection.title, layout: collection.layout,
                    accepts: collection.accepts) + collection.sections.reduce(0) { $0 + section($1) }
        }
        return total
    }
}

/// The board's Trash (R15): what deletes removed, oldest first, bounded by count, bytes and age.
///
/// Eviction depends only on the operations applied, never on a clock: count and bytes are checked
/// whenever an entry comes in, age at the server time (`at`) a delete or restore carries. The
/// newest entry always stays, whatever its size, so its deleter can still undo it. What falls out
/// is gone for good.
///
/// The sequencer decides evictions with its server's `limits` and names them in the operation's
/// `effect.evicted`; a replica, or a server replaying its log, evicts exactly those
/// (`Board.apply(_:)`), so servers configured differently and every client agree.
public struct Trash: Hashable, Sendable {
    /// The most entries the Trash keeps by default.
    public static let maxEntries = 500
    /// The most bytes (as `TrashEntry.bytes`) the Trash keeps by default, beside the board's own
    /// size (R14).
    public static let maxBytes = 8 << 20
    /// How long an entry stays: 30 days, in milliseconds.
    public static let maxAgeMilliseconds = 30 * 24 * 3600 * 1000

    /// What a Trash keeps at most: a server's configuration (`corkboard serve --trash-bytes`).
    public struct Limits: Hashable, Sendable {
        /// The most entries.
        public var entries: Int
        /// The most bytes (as `TrashEntry.bytes`).
        public var bytes: Int
        /// How long an entry stays, in milliseconds.
        public var ageMilliseconds: Int

        /// Limits; the defaults are `Trash.maxEntries`, `Trash.maxBytes` and 30 days.
        public init(
            entries: Int = Trash.maxEntries, bytes: Int = Trash.maxBytes,
            ageMilliseconds: Int = Trash.maxAgeMilliseconds
        ) {
            self.entries = entries
            self.bytes = bytes
            self.ageMilliseconds = ageMilliseconds
        }

        /// No eviction of its own: a replay evicts what each operation's effect names.
        static let none = Limits(entries: .max, bytes: .max, ageMilliseconds: .max)
    }

    /// The entries, oldest first.
    public private(set) var entries: [TrashEntry] = []
    /// The sum of the entries' bytes.
    public private(set) var bytes = 0
    /// What this Trash keeps at most (not part of its value: two Trashes with the same entries are
    /// equal, whatever their limits).
    public var limits = Limits()

    /// Whether two Trashes hold the same entries.
    public static func == (lhs: Trash, rhs: Trash) -> Bool { lhs.entries == rhs.entries }

    /// Hashes the entries.
    public func hash(into hasher: inout Hasher) { hasher.combine(entries) }

    /// An empty Trash.
    public init() {}

    /// The entry with this id, if it is still in the Trash.
    ///
    /// - Complexity: O(entries).
    public func entry(_ id: String) -> TrashEntry? {
        entries.first { $0.id == id }
    }

    /// Adds an entry (the newest), then lets the oldest go past the bounds; returns the ids evicted.
    mutating func add(_ entry: TrashEntry) -> [String] {
        entries.append(entry)
        bytes += entry.bytes
        var evicted: [String] = []
        while entries.count > 1, entries.count > limits.entries || bytes > limits.bytes {
            evicted.append(removeFirst())
        }
        return evicted + evictOlder(at: entry.at)
    }

    /// Lets entries older than `limits.ageMilliseconds` at `now` (ms) go; `now == 0` (no server
    /// time) evicts nothing.
    mutating func evictOlder(at now: Int) -> [String] {
        guard now > 0 else { return [] }
        var evicted: [String] = []
        while let first = entries.first, first.at > 0, now - first.at > limits.ageMilliseconds {
            evicted.append(removeFirst())
        }
        return evicted
    }

    /// Lets exactly these entries go (the ones an operation's `effect.evicted` names).
    mutating func evict(_ ids: [String]) {
        guard !ids.isEmpty else { return }
        let gone = Set(ids)
        entries.removeAll { gone.contains($0.id) }
        bytes = entries.reduce(0) { $0 + $1.bytes }
    }

    /// Takes the entry out (a restore), or `nil` when it is not there.
    mutating func remove(_ id: String) -> TrashEntry? {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        bytes -= entries[index].bytes
        return entries.remove(at: index)
    }

    /// Empties the Trash; returns the ids it held.
    mutating func removeAll() -> [String] {
        defer {
            entries = []
            bytes = 0
        }
        return entries.map(\.id)
    }

    private mutating func removeFirst() -> String {
        bytes -= entries[0].bytes
        return entries.removeFirst().id
    }

    /// Builds a Trash from stored entries (a snapshot), oldest first.
    init(entries: [TrashEntry]) {
        self.entries = entries
        bytes = entries.reduce(0) { $0 + $1.bytes }
    }
}

extension TrashEntry: Codable {
    private enum CodingKeys: String, CodingKey { case id, name, clientId, at, cards, section, collection }
    private enum SectionKeys: String, CodingKey { case collection, index, section }
    private enum CollectionKeys: String, CodingKey { case index, collection }

    /// Decodes an entry; exactly one of `cards`, `section`, `collection` must be present.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let content: Content
        if let runs = try container.decodeIfPresent([UndoRecipe.Run<Item>].self, forKey: .cards) {
            content = .cards(runs)
        } else if container.contains(.section) {
            let section = try container.nestedContainer(keyedBy: SectionKeys.self, forKey: .section)
            content = .section(
                collection: try section.decode(CollectionID.self, forKey: .collection),
                section: try section.decode(Section.self, forKey: .section),
                index: try section.decode(Int.self, forKey: .index))
        } else if container.contains(.collection) {
            let collection = try container.nestedContainer(keyedBy: CollectionKeys.self, forKey: .collection)
            content = .collection(
                try collection.decode(BoardCollection.self, forKey: .collection),
                index: try collection.decode(Int.self, forKey: .index))
        } else {
            throw DecodingError.dataCorruptedError(
                forKey: .cards, in: container,
                debugDescription: "A Trash entry holds \"cards\", a \"section\" or a \"collection\"; it has none.")
        }
        self.init(
            id: try container.decode(String.self, forKey: .id), name: try container.decode(String.self, forKey: .name),
            clientId: try container.decode(String.self, forKey: .clientId),
            at: try container.decode(Int.self, forKey: .at), content: content)
    }

    /// Encodes the entry (see the type's JSON shape).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(clientId, forKey: .clientId)
        try container.encode(at, forKey: .at)
        switch content {
        case .cards(let runs):
            try container.encode(runs, forKey: .cards)
        case .section(let collection, let section, let index):
            var nested = container.nestedContainer(keyedBy: SectionKeys.self, forKey: .section)
            try nested.encode(collection, forKey: .collection)
            try nested.encode(index, forKey: .index)
            try nested.encode(section, forKey: .section)
        case .collection(let collection, let index):
            var nested = container.nestedContainer(keyedBy: CollectionKeys.self, forKey: .collection)
            try nested.encode(index, forKey: .index)
            try nested.encode(collection, forKey: .collection)
        }
    }
}
