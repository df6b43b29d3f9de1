/// One line of a board's activity feed (issue 43): who did what, named as people see it on the
/// board ("Ada moved “Old Mill Wheel” from To find to Found"), never by ids.
///
/// The room makes one for each committed operation someone made (`ActivityNames.entry`), keeps
/// the newest of them (`ActivityLog`, bounded by count and bytes, R18) and the store keeps them
/// beside the operation log, written in the same transaction as the operation.
public struct ActivityEntry: Hashable, Codable, Sendable {
    /// The operation's seq: entries are ordered and paged by it.
    public var seq: Int
    /// When the room committed it, milliseconds since 1970.
    public var at: Int
    /// The actor's display name when they did it.
    public var actor: String
    /// The actor's client id, for the colour the page gives them.
    public var clientId: String
    /// The actor's colour in the room when they did it (the page prefers the one it shows).
    public var color: String
    /// What kind of change it was (`Verb`), for filtering and icons.
    public var verb: Verb
    /// The sentence after the actor's name: "moved “Old Mill Wheel” from To find to Found".
    public var text: String
    /// The cards the entry concerns (at most `ActivityLimits.itemsPerEntry`), so a card's view
    /// can show its own entries: data for filtering, never shown.
    public var items: [ItemID]

    /// Creates an entry.
    public init(
        seq: Int, at: Int, actor: String, clientId: String, color: String, verb: Verb, text: String,
        items: [ItemID]
    ) {
        self.seq = seq
        self.at = at
        self.actor = actor
        self.clientId = clientId
        self.color = color
        self.verb = verb
        self.text = text
        self.items = items
    }

    /// The kinds of change an entry reports.
    public enum Verb: String, Hashable, Codable, Sendable, CaseIterable {
        case moved, copied, added, deleted, restored, edited, commented, labelled
        case createdCollection, renamedCollection, deletedCollection, movedCollection, changedCollection
        case createdSection, renamedSection, deletedSection, movedSection
        case renamedBoard, changedLabels, changed
    }

    /// The bytes an entry takes in memory and on disk, roughly (its strings and fixed fields).
    public var estimatedBytes: Int {
        64 + actor.utf8.count + clientId.utf8.count + color.utf8.count + text.utf8.count
            + items.reduce(0) { $0 + $1.rawValue.utf8.count + 3 }
    }
}

/// The bounds of a board's activity feed (R18).
public enum ActivityLimits {
    /// The most cards one entry lists by id (a drop of more is still one entry).
    public static let itemsPerEntry = 20
    /// The most item names one entry's text spells out before "and N more".
    public static let namesPerEntry = 3
    /// The most entries a board keeps, by default.
    public static let defaultEntries = 1_000
    /// The most bytes (`ActivityEntry.estimatedBytes`) of entries a board keeps, by default.
    public static let defaultBytes = 512 * 1024
    /// The most entries one page (`activity` request) returns.
    public static let pageLimit = 100
}
