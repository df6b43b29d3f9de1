public import CorkboardModel

extension ServerMessage {
    /// `welcome.snapshotParts` and `synced.snapshotParts`: a board too large for one message follows
    /// as `snapshotPart` messages (R14).
    ///
    /// JSON shape: `{"seq":42,"parts":9,"bytes":2359296}`, plus `"title"` for a renamed board and
    /// `"labels"` for a board with labels.
    public struct SnapshotParts: Hashable, Codable, Sendable {
        /// The seq of the snapshot the parts carry; operations after it follow as usual.
        public var seq: Int
        /// How many `snapshotPart` messages follow (at least 1), numbered from 0.
        public var parts: Int
        /// The parts' total size in bytes, for progress.
        public var bytes: Int
        /// The board's own title (`renameBoard`), which the parts do not carry; absent until the
        /// board is renamed.
        public var title: String?
        /// The board's labels (R16), which the parts do not carry either; absent while it has none.
        public var labels: [Label]?

        /// Creates a descriptor.
        public init(seq: Int, parts: Int, bytes: Int, title: String? = nil, labels: [Label]? = nil) {
            self.seq = seq
            self.parts = parts
            self.bytes = bytes
            self.title = title
            self.labels = labels
        }
    }

    /// `snapshotPart`: one piece of a snapshot announced by `snapshotParts`, valid JSON on its own.
    ///
    /// The board is cut along its structure: each part appends, in order, lists of elements to
    /// parents that earlier parts (or earlier entries of this part) created. An element whose list
    /// continues in a later part is sent with the list cut short; the rest follows in an entry
    /// naming it.
    ///
    /// JSON shape: `{"type":"snapshotPart","seq":42,"part":1,"append":[{"section":"s1","items":[…]}]}`.
    public struct SnapshotPart: Equatable, Codable, Sendable {
        /// The snapshot's seq (as in `snapshotParts`).
        public var seq: Int
        /// The part's number, from 0; parts arrive in order.
        public var part: Int
        /// What the part adds, in order.
        public var append: [SnapshotAppend]

        /// Creates a part.
        public init(seq: Int, part: Int, append: [SnapshotAppend]) {
            self.seq = seq
            self.part = part
            self.append = append
        }
    }
}

/// One entry of a `snapshotPart`: elements appended to a parent that already exists.
public enum SnapshotAppend: Equatable, Sendable {
    /// `{"collections":[BoardCollection…]}`: collections appended to the board.
    case collections([BoardCollection])
    /// `{"collection":ID,"sections":[Section…]}`: sections appended to a collection.
    case sections(collection: CollectionID, [Section])
    /// `{"section":ID,"items":[Item…]}`: items appended to a section.
    case items(section: SectionID, [Item])
    /// `{"group":ID,"items":[Item…]}`: children appended to a group item.
    case children(group: ItemID, [Item])
}

extension SnapshotAppend: Codable {
    private enum CodingKeys: String, CodingKey { case collections, collection, sections, section, group, items }

    /// Decodes an entry by the parent key it names.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let collections = try c.decodeIfPresent([BoardCollection].self, forKey: .collections) {
            self = .collections(collections)
        } else if let collection = try c.decodeIfPresent(CollectionID.self, forKey: .collection) {
            self = .sections(collection: collection, try c.decode([Section].self, forKey: .sections))
        } else if let section = try c.decodeIfPresent(SectionID.self, forKey: .section) {
            self = .items(section: section, try c.decode([Item].self, forKey: .items))
        } else if let group = try c.decodeIfPresent(ItemID.self, forKey: .group) {
            self = .children(group: group, try c.decode([Item].self, forKey: .items))
        } else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "A snapshotPart entry names none of collections, collection, section, group."))
        }
    }

    /// Encodes the entry with its parent key first.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .collections(let collections): try c.encode(collections, forKey: .collections)
        case .sections(let collection, let sections):
            try c.encode(collection, forKey: .collection)
            try c.encode(sections, forKey: .sections)
        case .items(let section, let items):
            try c.encode(section, forKey: .section)
            try c.encode(items, forKey: .items)
        case .children(let group, let items):
            try c.encode(group, forKey: .group)
            try c.encode(items, forKey: .items)
        }
    }
}
