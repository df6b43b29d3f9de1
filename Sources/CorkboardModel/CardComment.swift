/// The identity of a comment: `"<clientId>:<opId>"` of the `addComment` that made it, so a resend
/// makes no second comment and every replica names it alike.
public struct CommentID: BoardIdentifier {
    /// The id as sent on the wire.
    public var rawValue: String

    /// Wraps a wire string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// A comment in a card's thread (R16): appended, never overwritten; only its author edits or
/// deletes it.
///
/// JSON shape: `{"id":"c-1:op-7","author":"c-1","name":"Ada","at":1765036800000,"text":"…","version":1}`;
/// `version` (how many times it was edited) is left out while it is 0.
public struct CardComment: Hashable, Codable, Sendable {
    /// The comment's id.
    public var id: CommentID
    /// The client id of its author.
    public var author: String
    /// The author's display name when they wrote it.
    public var name: String
    /// When it was written, in milliseconds since 1970 (the server's clock).
    public var at: Int
    /// The text, markdown.
    public var text: String
    /// How many times its author edited it.
    public var version: Int

    /// Creates a comment.
    public init(id: CommentID, author: String, name: String, at: Int, text: String, version: Int = 0) {
        self.id = id
        self.author = author
        self.name = name
        self.at = at
        self.text = text
        self.version = version
    }

    private enum CodingKeys: String, CodingKey { case id, author, name, at, text, version }

    /// Decodes a comment; `version` defaults to 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(CommentID.self, forKey: .id),
            author: try container.decode(String.self, forKey: .author),
            name: try container.decode(String.self, forKey: .name), at: try container.decode(Int.self, forKey: .at),
            text: try container.decode(String.self, forKey: .text),
            version: try container.decodeIfPresent(Int.self, forKey: .version) ?? 0)
    }

    /// Encodes a comment; `version` only when above 0.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(author, forKey: .author)
        try container.encode(name, forKey: .name)
        try container.encode(at, forKey: .at)
        try container.encode(text, forKey: .text)
        if version > 0 { try container.encode(version, forKey: .version) }
    }

    /// What passes the bounds in a comment's text (blank, or past `CardLimits.commentBytes`), if anything.
    public static func textProblem(_ text: String, field: String) -> CardProblem? {
        if text.allSatisfy(\.isWhitespace) {
            return CardProblem(field: field, message: "A comment cannot be empty; write something or cancel.")
        }
        guard text.utf8.count <= CardLimits.commentBytes else {
            return CardProblem(
                field: field,
                message: "A comment holds at most \(CardLimits.commentBytes) bytes of UTF-8 and this one has "
                    + "\(text.utf8.count); shorten it or split it in two.")
        }
        return nil
    }
}

extension BoardOperation {
    /// Payload of `addComment`: `{"item":"i1","text":"…"}`. The room fills in the author's `name`
    /// and the sequencer the time `at`; the comment's id derives from the operation.
    public struct AddComment: Hashable, Codable, Sendable {
        /// The card.
        public var item: ItemID
        /// The text, markdown.
        public var text: String
        /// The author's display name, set by the room.
        public var name: String?
        /// The time, set by the sequencer (milliseconds since 1970).
        public var at: Int?
        /// A deleted comment its author's undo brings back, with its index in the thread: made by the
        /// server only (a client's is refused).
        public var restore: CardComment?
        /// Where `restore` goes back in the thread.
        public var index: Int?

        /// Creates a comment.
        public init(
            item: ItemID, text: String, name: String? = nil, at: Int? = nil, restore: CardComment? = nil,
            index: Int? = nil
        ) {
            self.item = item
            self.text = text
            self.name = name
            self.at = at
            self.restore = restore
            self.index = index
        }
    }

    /// Payload of `editComment`: `{"item":"i1","comment":"c-1:op-7","text":"…","version":0}`.
    public struct EditComment: Hashable, Codable, Sendable {
        /// The card.
        public var item: ItemID
        /// The comment.
        public var comment: CommentID
        /// Its new text.
        public var text: String
        /// The comment's version the edit was made on; `nil` replaces whatever is there.
        public var version: Int?

        /// Creates a comment edit.
        public init(item: ItemID, comment: CommentID, text: String, version: Int? = nil) {
            self.item = item
            self.comment = comment
            self.text = text
            self.version = version
        }
    }

    /// Payload of `deleteComment`: `{"item":"i1","comment":"c-1:op-7"}`.
    public struct DeleteComment: Hashable, Codable, Sendable {
        /// The card.
        public var item: ItemID
        /// The comment.
        public var comment: CommentID

        /// Creates a comment deletion.
        public init(item: ItemID, comment: CommentID) {
            self.item = item
            self.comment = comment
        }
    }
}
