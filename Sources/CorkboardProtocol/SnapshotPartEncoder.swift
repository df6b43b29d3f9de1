import CorkboardJSON
public import CorkboardModel

/// A snapshot encoded once as `snapshotPart` messages, shared by every joiner that needs the board
/// at that seq (R14).
public struct SnapshotEncoding: Sendable {
    /// The snapshot's seq.
    public let seq: Int
    /// The parts, in order; each is one WebSocket message.
    public let parts: [EncodedMessage]
    /// Their total size in bytes.
    public let bytes: Int
    /// The board's own title, if it was renamed; it travels in the descriptor.
    public let title: String?
    /// The board's labels; they travel in the descriptor too.
    public let labels: [Label]

    /// What `welcome` and `synced` announce.
    public var descriptor: ServerMessage.SnapshotParts {
        ServerMessage.SnapshotParts(
            seq: seq, parts: parts.count, bytes: bytes, title: title, labels: labels.isEmpty ? nil : labels)
    }

    /// Cuts a snapshot into parts of about `partBytes` each.
    ///
    /// The cut follows the board's structure (see `ServerMessage.SnapshotPart`): a part ends at the
    /// first element boundary past `partBytes`, so a part is at most `partBytes` plus one leaf
    /// element (an item's own representations, or a collection's or section's header). Written by
    /// hand in one pass: no per-element allocation, strings escaped as `WireCodec` does.
    ///
    /// - Complexity: O(bytes of the snapshot).
    public init(_ snapshot: Snapshot, partBytes: Int) {
        var writer = PartWriter(seq: snapshot.seq, target: max(partBytes, 1024))
        for collection in snapshot.board.collections { writer.write(collection) }
        let parts = writer.finish()
        self.seq = snapshot.seq
        self.parts = parts
        self.bytes = parts.reduce(0) { $0 + $1.bytes.count }
        self.title = snapshot.board.title
        self.labels = snapshot.board.labels
    }
}

/// Writes parts: a stack of open lists (the board's collections, a collection's sections, a
/// section's items, a group's children); at a cut every open list and the elements around it are
/// closed, and the next element of a list opens an entry naming its parent.
private struct PartWriter {
    enum Parent {
        case board
        case collection(CollectionID)
        case section(SectionID)
        case group(ItemID)
    }

    struct Frame {
        var parent: Parent
        /// Whether the list is open in the current part.
        var open: Bool
        /// Elements written to the list in the current part.
        var count = 0
    }

    let seq: Int
    let target: Int
    var frames: [Frame] = [Frame(parent: .board, open: false)]
    var bytes: [UInt8] = []
    var entries = 0
    var parts: [EncodedMessage] = []

    init(seq: Int, target: Int) {
        self.seq = seq
        self.target = target
        startPart()
    }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func string(_ value: String) { JSONString.append(value, to: &bytes) }

    mutating func startPart() {
        bytes = []
        bytes.reserveCapacity(target + target / 4)
        raw(#"{"type":"snapshotPart","seq":"#)
        bytes += String(seq).utf8
        raw(#","part":"#)
        bytes += String(parts.count).utf8
        raw(#","append":["#)
        entries = 0
    }

    /// Closes every open list and the part.
    mutating func closePart() {
        for index in frames.indices.reversed() where frames[index].open {
            raw("]}")
            frames[index].open = false
        }
        raw("]}")
        parts.append(EncodedMessage(bytes: bytes, isEphemeral: false, type: "snapshotPart"))
    }

    /// Before an element of the innermost list: cuts the part when it is full, opens an entry for
    /// the list when it is not open in this part, and writes the separator.
    mutating func beginElement() {
        if bytes.count >= target, entries > 0 {
            closePart()
            startPart()
        }
        let top = frames.count - 1
        if !frames[top].open {
            if entries > 0 { raw(",") }
            entries += 1
            switch frames[top].parent {
            case .board: raw(#"{"collections":["#)
            case .collection(let id): openEntry(#"{"collection":"#, id.rawValue, #","sections":["#)
            case .section(let id): openEntry(#"{"section":"#, id.rawValue, #","items":["#)
            case .group(let id): openEntry(#"{"group":"#, id.rawValue, #","items":["#)
            }
            frames[top].open = true
            frames[top].count = 0
        }
        if frames[top].count > 0 { raw(",") }
        frames[top].count += 1
    }

    /// Writes an entry's opening, `{"PARENT-KEY":"id","LIST-KEY":[`, for a list continued in a new part.
    mutating func openEntry(_ parentKey: StaticString, _ id: String, _ listKey: StaticString) {
        raw(parentKey)
        string(id)
        raw(listKey)
    }

    /// Begins an element of the innermost list: the separator (or a cut) and `{"id":"…"`.
    mutating func beginObject(id: String) {
        beginElement()
        raw(#"{"id":"#)
        string(id)
    }

    /// Writes `children` as the list `parent` owns, whose `…:[` is written, then closes it (and its
    /// element, when the list runs on into a later part).
    mutating func list<Child>(_ children: [Child], of parent: Parent, _ write: (inout Self, Child) -> Void) {
        frames.append(Frame(parent: parent, open: true))
        for child in children { write(&self, child) }
        if frames.removeLast().open { raw("]}") }
    }

    mutating func write(_ collection: BoardCollection) {
        beginObject(id: collection.id.rawValue)
        raw(#","title":"#)
        string(collection.title)
        raw(#","layout":"#)
        string(collection.layout.rawValue)
        raw(#","accepts":["#)
        for (index, type) in collection.accepts.enumerated() {
            if index > 0 { raw(",") }
            string(type)
        }
        raw(#"],"sections":["#)
        list(collection.sections, of: .collection(collection.id)) { $0.write($1) }
    }

    mutating func write(_ section: Section) {
        beginObject(id: section.id.rawValue)
        raw(#","title":"#)
        string(section.title)
        raw(#","items":["#)
        list(section.items, of: .section(section.id)) { $0.write($1) }
    }

    mutating func write(_ item: Item) {
        beginObject(id: item.id.rawValue)
        raw(#","representations":["#)
        for (index, representation) in item.representations.enumerated() {
            raw(index > 0 ? #",{"type":"# : #"{"type":"#)
            string(representation.type)
            raw(#","value":"#)
            string(representation.value)
            raw("}")
        }
        raw("]")
        if let placeholder = item.placeholder {
            raw(#","placeholder":{"owner":"#)
            string(placeholder.owner)
            raw(#","createdAt":"#)
            bytes += placeholder.createdAt.description.utf8
            raw("}")
        }
        if item.version > 0 {
            raw(#","version":"#)
            bytes += String(item.version).utf8
        }
        if let details = item.details { write(details) }
        guard let children = item.children else {
            raw("}")
            return
        }
        raw(#","children":["#)
        list(children, of: .group(item.id)) { $0.write($1) }
    }

    /// `,"details":{…}`: each field only when it is not at its default, in `CardDetails`' order.
    mutating func write(_ details: CardDetails) {
        raw(#","details":{"#)
        var first = true
        func key(_ encoder: inout PartWriter, _ name: StaticString) {
            if !first { encoder.raw(",") }
            first = false
            encoder.raw(name)
        }
        func number(_ encoder: inout PartWriter, _ name: StaticString, _ value: Int?) {
            guard let value else { return }
            key(&encoder, name)
            encoder.bytes += String(value).utf8
        }
        if !details.description.isEmpty {
            key(&self, #""description":"#)
            string(details.description)
        }
        number(&self, #""descriptionVersion":"#, details.descriptionVersion > 0 ? details.descriptionVersion : nil)
        number(&self, #""due":"#, details.due)
        number(&self, #""start":"#, details.start)
        number(&self, #""datesVersion":"#, details.datesVersion > 0 ? details.datesVersion : nil)
        if details.done {
            key(&self, #""done":true"#)
        }
        if !details.assignees.isEmpty {
            key(&self, #""assignees":["#)
            strings(details.assignees)
        }
        if !details.labels.isEmpty {
            key(&self, #""labels":["#)
            strings(details.labels.map(\.rawValue))
        }
        if !details.comments.isEmpty {
            key(&self, #""comments":["#)
            for (index, comment) in details.comments.enumerated() {
                raw(index > 0 ? #",{"id":"# : #"{"id":"#)
                string(comment.id.rawValue)
                raw(#","author":"#)
                string(comment.author)
                raw(#","name":"#)
                string(comment.name)
                raw(#","at":"#)
                bytes += String(comment.at).utf8
                raw(#","text":"#)
                string(comment.text)
                if comment.version > 0 {
                    raw(#","version":"#)
                    bytes += String(comment.version).utf8
                }
                raw("}")
            }
            raw("]")
        }
        raw("}")
    }

    /// The strings of a list and its closing bracket.
    mutating func strings(_ values: [String]) {
        for (index, value) in values.enumerated() {
            if index > 0 { raw(",") }
            string(value)
        }
        raw("]")
    }

    mutating func finish() -> [EncodedMessage] {
        closePart()
        return parts
    }
}
