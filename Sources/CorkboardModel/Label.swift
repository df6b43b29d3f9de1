/// The identity of a board's label.
///
/// Encodes as a plain JSON string, chosen by the client that creates the label; unique within a
/// board. A card that moves to another board brings the definitions of its labels along.
public struct LabelID: BoardIdentifier {
    /// The id as sent on the wire.
    public var rawValue: String

    /// Wraps a wire string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// A label of a board's label set (R16): a name and a colour of the palette. Cards carry labels by id.
///
/// JSON shape: `{"id":"l1","name":"Urgent","color":"red"}`; the name may be empty (a colour alone).
public struct Label: Hashable, Codable, Sendable {
    /// The label's id.
    public var id: LabelID
    /// Its name, at most `CardLimits.labelNameCharacters`; may be empty.
    public var name: String
    /// Its colour.
    public var color: LabelColor

    /// Creates a label.
    public init(id: LabelID, name: String, color: LabelColor) {
        self.id = id
        self.name = name
        self.color = color
    }
}

/// The label palette: names the browser maps to colours that keep their text readable (WCAG AA).
public enum LabelColor: String, Hashable, Codable, Sendable, CaseIterable {
    case green, yellow, orange, red, purple, blue, sky, pink, gray
}

extension Label {
    /// What passes the bounds in this label, if anything (the field is the label's own: `name`).
    public var problem: CardProblem? {
        guard name.count <= CardLimits.labelNameCharacters else {
            return CardProblem(
                field: "name",
                message: "A label's name has at most \(CardLimits.labelNameCharacters) characters; shorten it.")
        }
        return nil
    }
}

extension Board {
    /// The board's labels in order, or `nil` when there is no such label.
    ///
    /// - Complexity: O(labels).
    public func label(_ id: LabelID) -> Label? { labels.first { $0.id == id } }
}

extension BoardOperation {
    /// Payload of `setLabel`: `{"label":{"id":"l1","name":"Urgent","color":"red"},"index":0}`.
    public struct SetLabel: Hashable, Codable, Sendable {
        /// The label: a new id creates it, a known one changes its name and colour.
        public var label: Label
        /// Where a new label goes among the board's labels; left out or past the end appends.
        /// Ignored when the label exists.
        public var index: Int?

        /// Creates a label change.
        public init(label: Label, index: Int? = nil) {
            self.label = label
            self.index = index
        }
    }

    /// Payload of `deleteLabel`: `{"label":"l1"}`.
    public struct DeleteLabel: Hashable, Codable, Sendable {
        /// The label.
        public var label: LabelID

        /// Creates a label deletion.
        public init(label: LabelID) { self.label = label }
    }
}
