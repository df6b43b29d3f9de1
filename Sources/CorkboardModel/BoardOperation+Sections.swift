/// The payloads of the operations on a collection's sections: create, rename, delete, move.
extension BoardOperation {
    /// Payload of `createSection`.
    public struct CreateSection: Hashable, Codable, Sendable {
        /// The collection to add it to.
        public var collection: CollectionID
        /// The new section's id (client-chosen, must be unused on the board).
        public var id: SectionID
        /// Its title.
        public var title: String
        /// Where it goes among the collection's sections; `nil` or past the end appends.
        public var index: Int?
        /// Creates a section creation.
        public init(collection: CollectionID, id: SectionID, title: String = "", index: Int? = nil) {
            self.collection = collection
            self.id = id
            self.title = title
            self.index = index
        }
    }

    /// Payload of `renameSection`.
    public struct RenameSection: Hashable, Codable, Sendable {
        /// The section.
        public var section: SectionID
        /// The new title.
        public var title: String
        /// Creates a rename.
        public init(section: SectionID, title: String) {
            self.section = section
            self.title = title
        }
    }

    /// Payload of `deleteSection`.
    public struct DeleteSection: Hashable, Codable, Sendable {
        /// The section.
        public var section: SectionID
        /// Who deleted and when (ms since 1970), for the Trash: set by the room and the sequencer.
        public var name: String?, at: Int?
        /// Creates a deletion.
        public init(section: SectionID, name: String? = nil, at: Int? = nil) {
            self.section = section
            self.name = name
            self.at = at
        }
    }

    /// Payload of `moveSection`.
    public struct MoveSection: Hashable, Codable, Sendable {
        /// The section.
        public var section: SectionID
        /// Its new index within its collection, clamped.
        public var index: Int
        /// Creates a section move.
        public init(section: SectionID, index: Int) {
            self.section = section
            self.index = index
        }
    }
}

extension BoardOperation.CreateSection {
    private enum CodingKeys: String, CodingKey { case collection, id, title, index }

    /// Decodes; `title` defaults to empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            collection: try container.decode(CollectionID.self, forKey: .collection),
            id: try container.decode(SectionID.self, forKey: .id),
            title: try container.decodeIfPresent(String.self, forKey: .title) ?? "",
            index: try container.decodeIfPresent(Int.self, forKey: .index))
    }
}
