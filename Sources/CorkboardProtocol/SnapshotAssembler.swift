public import CorkboardModel

/// Puts a snapshot sent in parts back together (R14): feed it the `snapshotPart` messages in order,
/// then take the snapshot once ``isComplete``.
///
/// Clients keep the committed operations that arrive meanwhile (their seqs follow the snapshot's)
/// and apply them once the snapshot is installed.
public struct SnapshotAssembler: Sendable {
    /// A part that does not fit: wrong snapshot, out of order, or appending to something no earlier
    /// part created. The client should ask for the board again (`sync`, or a new `hello`).
    public struct Failure: Error, Hashable, CustomStringConvertible {
        /// What went wrong and what to do.
        public var description: String
    }

    /// What was announced.
    public let descriptor: ServerMessage.SnapshotParts
    /// Parts received so far.
    public private(set) var partsReceived = 0
    /// Bytes received so far, as reported to ``add(_:bytes:)``.
    public private(set) var bytesReceived = 0

    private var collections: [BoardCollection] = []
    private var collectionIndex: [CollectionID: Int] = [:]
    private var sectionIndex: [SectionID: (collection: Int, section: Int)] = [:]
    /// Group ids seen so far, with the children appended to them by later entries.
    private var groups: Set<ItemID> = []
    private var laterChildren: [ItemID: [Item]] = [:]

    /// Starts assembling the snapshot a `welcome` or `synced` announced.
    public init(_ descriptor: ServerMessage.SnapshotParts) { self.descriptor = descriptor }

    /// Whether every part has arrived.
    public var isComplete: Bool { partsReceived >= descriptor.parts }

    /// The share of the snapshot received, from 0 to 1, by bytes when they are reported.
    public var progress: Double {
        if descriptor.bytes > 0, bytesReceived > 0 { return min(1, Double(bytesReceived) / Double(descriptor.bytes)) }
        return descriptor.parts == 0 ? 1 : Double(partsReceived) / Double(descriptor.parts)
    }

    /// Adds the next part.
    ///
    /// - Parameters:
    ///   - part: The part; its seq must be the descriptor's and its number the next one.
    ///   - bytes: Its size on the wire, for ``progress``.
    /// - Throws: ``Failure``; the assembler is then unusable.
    /// - Complexity: O(elements in the part) plus, for the entries that name a section or collection,
    ///   one dictionary lookup.
    public mutating func add(_ part: ServerMessage.SnapshotPart, bytes: Int = 0) throws(Failure) {
        guard part.seq == descriptor.seq else {
            throw Failure(
                description: "A part of the snapshot at seq \(part.seq) arrived while assembling seq "
                    + "\(descriptor.seq); ask for the board again.")
        }
        guard part.part == partsReceived, partsReceived < descriptor.parts else {
            throw Failure(
                description: "Snapshot part \(part.part) arrived, expected \(partsReceived) of \(descriptor.parts); "
                    + "ask for the board again.")
        }
        for entry in part.append {
            switch entry {
            case .collections(let added):
                for collection in added {
                    collectionIndex[collection.id] = collections.count
                    collections.append(collection)
                    register(collection.sections, in: collections.count - 1, from: 0)
                }
            case .sections(let id, let added):
                guard let c = collectionIndex[id] else { throw unknown("collection", id.rawValue, part) }
                let start = collections[c].sections.count
                collections[c].sections += added
                register(added, in: c, from: start)
            case .items(let id, let added):
                guard let (c, s) = sectionIndex[id] else { throw unknown("section", id.rawValue, part) }
                collections[c].sections[s].items += added
                for item in added { registerGroups(item) }
            case .children(let id, let added):
                guard groups.contains(id) else { throw unknown("group", id.rawValue, part) }
                laterChildren[id, default: []] += added
                for item in added { registerGroups(item) }
            }
        }
        partsReceived += 1
        bytesReceived += bytes
    }

    /// The snapshot, once complete.
    ///
    /// - Throws: ``Failure`` when parts are missing or the board they make is not valid.
    /// - Complexity: O(n) in the number of items.
    public func snapshot() throws(Failure) -> Snapshot {
        guard isComplete else {
            throw Failure(
                description: "Only \(partsReceived) of \(descriptor.parts) snapshot parts arrived; wait for the rest.")
        }
        var remaining = laterChildren
        func complete(_ item: Item) -> Item {
            guard var children = item.children else { return item }
            children = children.map(complete)
            if let later = remaining.removeValue(forKey: item.id) { children += later.map(complete) }
            var result = item
            result.children = children
            return result
        }
        var board = collections
        for c in board.indices {
            for s in board[c].sections.indices { board[c].sections[s].items = board[c].sections[s].items.map(complete) }
        }
        do {
            return Snapshot(
                seq: descriptor.seq,
                board: try Board(collections: board, title: descriptor.title, labels: descriptor.labels ?? []))
        } catch {
            throw Failure(description: "The assembled snapshot is not a valid board (\(error)); ask for it again.")
        }
    }

    private mutating func register(_ sections: [Section], in collection: Int, from start: Int) {
        for (offset, section) in sections.enumerated() {
            sectionIndex[section.id] = (collection, start + offset)
            for item in section.items { registerGroups(item) }
        }
    }

    private mutating func registerGroups(_ item: Item) {
        guard let children = item.children else { return }
        groups.insert(item.id)
        for child in children { registerGroups(child) }
    }

    private func unknown(_ kind: String, _ id: String, _ part: ServerMessage.SnapshotPart) -> Failure {
        Failure(
            description: "Snapshot part \(part.part) appends to \(kind) \(id), which no earlier part created; ask "
                + "for the board again.")
    }
}
