/// The wire form of an operation: a tagged object whose payload's fields sit next to `kind`
/// (`{"kind":"move","items":[…],"destination":{…}}`).
extension BoardOperation: Codable {
    private enum TagKey: String, CodingKey { case kind }

    /// Decodes a tagged object `{"kind":"…", …payload fields}`.
    public init(from decoder: any Decoder) throws {
        let kind = try decoder.container(keyedBy: TagKey.self).decode(String.self, forKey: .kind)
        switch kind {
        case "move": self = .move(try Move(from: decoder))
        case "copy": self = .copy(try Copy(from: decoder))
        case "insert": self = .insert(try Insert(from: decoder))
        case "insertPlaceholder": self = .insertPlaceholder(try InsertPlaceholder(from: decoder))
        case "commitPlaceholder": self = .commitPlaceholder(try CommitPlaceholder(from: decoder))
        case "deletePlaceholder": self = .deletePlaceholder(try DeletePlaceholder(from: decoder))
        case "delete": self = .delete(try Delete(from: decoder))
        case "moveOut": self = .moveOut(try Delete(from: decoder))
        case "updateItem": self = .updateItem(try UpdateItem(from: decoder))
        case "updateCard": self = .updateCard(try UpdateCard(from: decoder))
        case "createCollection": self = .createCollection(try CreateCollection(from: decoder))
        case "renameCollection": self = .renameCollection(try RenameCollection(from: decoder))
        case "deleteCollection": self = .deleteCollection(try DeleteCollection(from: decoder))
        case "moveCollection": self = .moveCollection(try MoveCollection(from: decoder))
        case "setAccepts": self = .setAccepts(try SetAccepts(from: decoder))
        case "setLayout": self = .setLayout(try SetLayout(from: decoder))
        case "renameBoard": self = .renameBoard(try RenameBoard(from: decoder))
        case "setLabel": self = .setLabel(try SetLabel(from: decoder))
        case "deleteLabel": self = .deleteLabel(try DeleteLabel(from: decoder))
        case "addComment": self = .addComment(try AddComment(from: decoder))
        case "editComment": self = .editComment(try EditComment(from: decoder))
        case "deleteComment": self = .deleteComment(try DeleteComment(from: decoder))
        case "checklist": self = .checklist(try ChecklistChange(from: decoder))
        case "batch": self = .batch(try Batch(from: decoder))
        case "createSection": self = .createSection(try CreateSection(from: decoder))
        case "renameSection": self = .renameSection(try RenameSection(from: decoder))
        case "deleteSection": self = .deleteSection(try DeleteSection(from: decoder))
        case "moveSection": self = .moveSection(try MoveSection(from: decoder))
        case "restore": self = .restore(try Restore(from: decoder))
        case "emptyTrash": self = .emptyTrash(try EmptyTrash(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: try decoder.container(keyedBy: TagKey.self),
                debugDescription: "Unknown operation kind \"\(kind)\"; expected one of "
                    + "\(BoardOperation.kinds.joined(separator: ", ")).")
        }
    }

    /// Encodes a tagged object `{"kind":"…", …payload fields}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TagKey.self)
        try container.encode(kind, forKey: .kind)
        switch self {
        case .move(let p): try p.encode(to: encoder)
        case .copy(let p): try p.encode(to: encoder)
        case .insert(let p): try p.encode(to: encoder)
        case .insertPlaceholder(let p): try p.encode(to: encoder)
        case .commitPlaceholder(let p): try p.encode(to: encoder)
        case .deletePlaceholder(let p): try p.encode(to: encoder)
        case .delete(let p), .moveOut(let p): try p.encode(to: encoder)
        case .updateItem(let p): try p.encode(to: encoder)
        case .updateCard(let p): try p.encode(to: encoder)
        case .createCollection(let p): try p.encode(to: encoder)
        case .renameCollection(let p): try p.encode(to: encoder)
        case .deleteCollection(let p): try p.encode(to: encoder)
        case .moveCollection(let p): try p.encode(to: encoder)
        case .setAccepts(let p): try p.encode(to: encoder)
        case .setLayout(let p): try p.encode(to: encoder)
        case .renameBoard(let p): try p.encode(to: encoder)
        case .setLabel(let p): try p.encode(to: encoder)
        case .deleteLabel(let p): try p.encode(to: encoder)
        case .addComment(let p): try p.encode(to: encoder)
        case .editComment(let p): try p.encode(to: encoder)
        case .deleteComment(let p): try p.encode(to: encoder)
        case .checklist(let p): try p.encode(to: encoder)
        case .batch(let p): try p.encode(to: encoder)
        case .createSection(let p): try p.encode(to: encoder)
        case .renameSection(let p): try p.encode(to: encoder)
        case .deleteSection(let p): try p.encode(to: encoder)
        case .moveSection(let p): try p.encode(to: encoder)
        case .restore(let p): try p.encode(to: encoder)
        case .emptyTrash(let p): try p.encode(to: encoder)
        }
    }
}
