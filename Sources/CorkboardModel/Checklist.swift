/// The identity of a checklist on a card, chosen by the client that adds it; unique within the card.
public struct ChecklistID: BoardIdentifier {
    /// The id as sent on the wire.
    public var rawValue: String

    /// Wraps a wire string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// The identity of a checklist item, chosen by the client that adds it; unique within the card
/// (across all its checklists).
public struct ChecklistEntryID: BoardIdentifier {
    /// The id as sent on the wire.
    public var rawValue: String

    /// Wraps a wire string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// A named checklist of a card (R16): items in order, each checked or not.
///
/// JSON shape: `{"id":"k1","name":"Launch","items":[{"id":"e1","text":"Print posters","done":true}]}`;
/// `items` is left out while empty and an item's `done` while false.
public struct Checklist: Hashable, Sendable {
    /// One line of a checklist.
    public struct Entry: Hashable, Sendable {
        /// The item's id.
        public var id: ChecklistEntryID
        /// What is to be done, plain text.
        public var text: String
        /// Whether it is checked.
        public var done: Bool

        /// Creates a checklist item.
        public init(id: ChecklistEntryID, text: String, done: Bool = false) {
            self.id = id
            self.text = text
            self.done = done
        }
    }

    /// The checklist's id.
    public var id: ChecklistID
    /// Its name.
    public var name: String
    /// Its items, in order.
    public var items: [Entry]

    /// Creates a checklist.
    public init(id: ChecklistID, name: String, items: [Entry] = []) {
        self.id = id
        self.name = name
        self.items = items
    }
}

extension Checklist: Codable {
    private enum CodingKeys: String, CodingKey { case id, name, items }

    /// Decodes a checklist; `items` may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(ChecklistID.self, forKey: .id),
            name: try container.decode(String.self, forKey: .name),
            items: try container.decodeIfPresent([Entry].self, forKey: .items) ?? [])
    }

    /// Encodes a checklist; `items` only when there are some.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        if !items.isEmpty { try container.encode(items, forKey: .items) }
    }
}

extension Checklist.Entry: Codable {
    private enum CodingKeys: String, CodingKey { case id, text, done }

    /// Decodes an item; `done` defaults to false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(ChecklistEntryID.self, forKey: .id),
            text: try container.decode(String.self, forKey: .text),
            done: try container.decodeIfPresent(Bool.self, forKey: .done) ?? false)
    }

    /// Encodes an item; `done` only when true.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(text, forKey: .text)
        if done { try container.encode(done, forKey: .done) }
    }
}

extension Checklist {
    /// What is wrong with a checklist's name or an item's text, if anything: blank, or longer than
    /// `CardLimits.checklistTextCharacters`.
    static func textProblem(_ text: String, field: String, what: String) -> CardProblem? {
        if text.allSatisfy(\.isWhitespace) {
            return CardProblem(field: field, message: "A \(what) cannot be blank; write what it is.")
        }
        guard text.count <= CardLimits.checklistTextCharacters else {
            return CardProblem(
                field: field,
                message: "A \(what) has at most \(CardLimits.checklistTextCharacters) characters and this one has "
                    + "\(text.count); shorten it.")
        }
        return nil
    }

    /// What is wrong with a checklist or item id, if anything: empty or longer than
    /// `CardLimits.checklistIDBytes`.
    static func idProblem(_ id: String, field: String) -> CardProblem? {
        guard id.isEmpty || id.utf8.count > CardLimits.checklistIDBytes else { return nil }
        return CardProblem(
            field: field, message: "An id has 1 to \(CardLimits.checklistIDBytes) bytes of UTF-8; choose another.")
    }
}

extension CardDetails {
    /// How many of the card's checklist items are done, and how many there are ("2/5" on the card).
    ///
    /// - Complexity: O(checklist items).
    public var checklistProgress: (done: Int, total: Int) {
        checklists.reduce((0, 0)) { sum, list in
            (sum.0 + list.items.count { $0.done }, sum.1 + list.items.count)
        }
    }

    /// What passes the bounds in the card's checklists as a whole, if anything (R16): too many
    /// checklists or items, an id twice, a name or text blank or too long.
    ///
    /// - Complexity: O(checklist items + length of their texts).
    func checklistsProblem(field: String) -> CardProblem? {
        let entries = checklists.flatMap(\.items)
        if checklists.count > CardLimits.checklists || Set(checklists.map(\.id)).count != checklists.count {
            return CardProblem(
                field: field,
                message: "A card holds at most \(CardLimits.checklists) checklists, each with its own id.")
        }
        if entries.count > CardLimits.checklistItems || Set(entries.map(\.id)).count != entries.count {
            return CardProblem(
                field: field,
                message: "A card holds at most \(CardLimits.checklistItems) checklist items, each with its own id.")
        }
        for list in checklists {
            if let problem = Checklist.idProblem(list.id.rawValue, field: field)
                ?? Checklist.textProblem(list.name, field: field, what: "checklist's name")
            {
                return problem
            }
            for entry in list.items {
                if let problem = Checklist.idProblem(entry.id.rawValue, field: field)
                    ?? Checklist.textProblem(entry.text, field: field, what: "checklist item")
                {
                    return problem
                }
            }
        }
        return nil
    }
}
