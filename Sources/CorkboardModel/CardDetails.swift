/// What a card holds besides its representations (R16): a markdown description, a due date and an
/// optional start date, a done flag, the people assigned to it, the board's labels it carries, a
/// thread of comments, the files attached to it (one of its images may be the card's cover) and its
/// checklists.
///
/// Details belong to their item: a move (to another board too) carries them, a delete takes them
/// and an undo brings them back, a copy copies them. They change only through `updateCard`, each
/// long field with its own version so that nobody's text is silently replaced (R12).
///
/// JSON shape (every key left out at its default):
/// `{"description":"…","descriptionVersion":3,"due":1765000000000,"start":1764900000000,`
/// `"datesVersion":1,"done":true,"assignees":["Ada","Bob"],"labels":["l1"],`
/// `"attachments":[{"url":"/files/demo/….png","name":"map.png","type":"image/png","bytes":78}],`
/// `"cover":"/files/demo/….png","checklists":[{"id":"k1","name":"Launch","items":[{"id":"e1","text":"…"}]}]}`.
public struct CardDetails: Hashable, Sendable {
    /// The description, markdown; empty when there is none.
    public var description: String
    /// How many times the description changed; an `updateCard` names the one it was made on.
    public var descriptionVersion: Int
    /// The due date, in whole milliseconds since 1970-01-01 UTC.
    public var due: Int?
    /// The start date, in whole milliseconds since 1970-01-01 UTC; never after `due`.
    public var start: Int?
    /// How many times the dates changed.
    public var datesVersion: Int
    /// Whether the card's work is done.
    public var done: Bool
    /// The people assigned, by name, in the order they were assigned.
    public var assignees: [String]
    /// The labels of the board the card carries, by id, in the order they were put on.
    public var labels: [LabelID]
    /// The comments, oldest first.
    public var comments: [CardComment]
    /// The files attached, in the order they were attached.
    public var attachments: [Attachment]
    /// The `url` of the attached image shown as the card's cover, if any.
    public var cover: String?
    /// The checklists, in order (`checklist` operations change them).
    public var checklists: [Checklist]

    /// Details with every field at its default.
    public init(
        description: String = "", descriptionVersion: Int = 0, due: Int? = nil, start: Int? = nil,
        datesVersion: Int = 0, done: Bool = false, assignees: [String] = [], labels: [LabelID] = [],
        comments: [CardComment] = [], attachments: [Attachment] = [], cover: String? = nil,
        checklists: [Checklist] = []
    ) {
        self.description = description
        self.descriptionVersion = descriptionVersion
        self.due = due
        self.start = start
        self.datesVersion = datesVersion
        self.done = done
        self.assignees = assignees
        self.labels = labels
        self.comments = comments
        self.attachments = attachments
        self.cover = cover
        self.checklists = checklists
    }

    /// Whether every field is at its default, so that the item carries no `details` at all.
    public var isEmpty: Bool { self == CardDetails() }
}

/// The documented bounds of a card's details (R16); what passes them is refused `invalid-field`,
/// naming the field, and changes nothing.
public enum CardLimits {
    /// The longest description, in UTF-8 bytes.
    public static let descriptionBytes = 65_536
    /// The longest assignee name, in characters.
    public static let nameCharacters = 100
    /// The most people assigned to one card, and the most names in one `assign` or `unassign`.
    public static let assignees = 20
    /// The latest date: 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    public static let latestDate = 253_402_300_799_999
    /// The most labels a board has (and so a card carries).
    public static let labels = 50
    /// The longest label name, in characters.
    public static let labelNameCharacters = 50
    /// The longest comment, in UTF-8 bytes.
    public static let commentBytes = 16_384
    /// The most comments one card holds.
    public static let comments = 500
    /// The most files attached to one card, and the most named in one `attach` or `detach`.
    public static let attachments = 20
    /// The longest attachment name, in characters.
    public static let attachmentNameCharacters = 255
    /// The longest attachment media type, in UTF-8 bytes.
    public static let attachmentTypeCharacters = 127
    /// The largest size an attachment may declare (1 TiB); the server's upload limit is far lower.
    public static let attachmentBytes = 1 << 40
    /// The most checklists one card holds.
    public static let checklists = 20
    /// The most checklist items one card holds, over all its checklists.
    public static let checklistItems = 500
    /// The longest checklist name or checklist item, in characters.
    public static let checklistTextCharacters = 512
    /// The longest checklist or checklist item id, in UTF-8 bytes.
    public static let checklistIDBytes = 64
}

extension CardDetails: Codable {
    private enum CodingKeys: String, CodingKey {
        case description, descriptionVersion, due, start, datesVersion, done, assignees, labels, comments
        case attachments, cover, checklists
    }

    /// Decodes details; every key may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            description: try container.decodeIfPresent(String.self, forKey: .description) ?? "",
            descriptionVersion: try container.decodeIfPresent(Int.self, forKey: .descriptionVersion) ?? 0,
            due: try container.decodeIfPresent(Int.self, forKey: .due),
            start: try container.decodeIfPresent(Int.self, forKey: .start),
            datesVersion: try container.decodeIfPresent(Int.self, forKey: .datesVersion) ?? 0,
            done: try container.decodeIfPresent(Bool.self, forKey: .done) ?? false,
            assignees: try container.decodeIfPresent([String].self, forKey: .assignees) ?? [],
            labels: try container.decodeIfPresent([LabelID].self, forKey: .labels) ?? [],
            comments: try container.decodeIfPresent([CardComment].self, forKey: .comments) ?? [],
            attachments: try container.decodeIfPresent([Attachment].self, forKey: .attachments) ?? [],
            cover: try container.decodeIfPresent(String.self, forKey: .cover),
            checklists: try container.decodeIfPresent([Checklist].self, forKey: .checklists) ?? [])
    }

    /// Encodes details, each field only when it is not at its default.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !description.isEmpty { try container.encode(description, forKey: .description) }
        if descriptionVersion > 0 { try container.encode(descriptionVersion, forKey: .descriptionVersion) }
        try container.encodeIfPresent(due, forKey: .due)
        try container.encodeIfPresent(start, forKey: .start)
        if datesVersion > 0 { try container.encode(datesVersion, forKey: .datesVersion) }
        if done { try container.encode(done, forKey: .done) }
        if !assignees.isEmpty { try container.encode(assignees, forKey: .assignees) }
        if !labels.isEmpty { try container.encode(labels, forKey: .labels) }
        if !comments.isEmpty { try container.encode(comments, forKey: .comments) }
        if !attachments.isEmpty { try container.encode(attachments, forKey: .attachments) }
        try container.encodeIfPresent(cover, forKey: .cover)
        if !checklists.isEmpty { try container.encode(checklists, forKey: .checklists) }
    }
}
