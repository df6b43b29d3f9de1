public import CorkboardModel

/// A member of a board as its peers see it: an id for this connection, a display name, a color.
///
/// JSON shape: `{"id":"m3","name":"Ada","color":"#d9480f","role":"editor","clientId":"c-…"}`, plus
/// `"person":"p-…"` (and `"alias":"Beatrice"` when its `hello` name differs) for a person.
public struct Member: Hashable, Codable, Sendable {
    /// The member id, unique on the board while the connection lives; drag and cursor messages name it.
    public var id: String
    /// The display name from `hello`; for a person, the person's name (the invite's).
    public var name: String
    /// A CSS color (`#rrggbb`) chosen by the room, used to tint the member's drags and cursor.
    public var color: String
    /// Admin, editor, commenter or viewer.
    public var role: Role
    /// The client identity (stable across reconnects) whose operations this member sends.
    public var clientId: String
    /// The person id, when the member joined as a person (a personal invite, issue 45).
    public var person: String?
    /// For a person: the `hello` name, when it differs from the person's name.
    public var alias: String?

    /// Creates a member.
    public init(
        id: String, name: String, color: String, role: Role, clientId: String, person: String? = nil,
        alias: String? = nil
    ) {
        self.id = id
        self.name = name
        self.color = color
        self.role = role
        self.clientId = clientId
        self.person = person
        self.alias = alias
    }
}

/// A board's public description.
///
/// JSON shape: `{"id":"demo","title":"Geocaches"}`.
public struct BoardInfo: Hashable, Codable, Sendable {
    /// The board id used in `hello` and in share links.
    public var id: String
    /// The board's title.
    public var title: String

    /// Creates a board description.
    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}

/// Where a live drag hovers, with the board when it hovers over another board of the server (R6).
///
/// JSON shape: `{"collection":"c1","section":"s1","index":3,"intent":"insertAtDestinationIndexPath"}`,
/// plus `"board":"b2"` for another board.
public struct DragTarget: Hashable, Codable, Sendable {
    /// The board hovered, when it is not the connection's own board.
    public var board: String?
    /// The collection under the pointer.
    public var collection: CollectionID
    /// The section under the pointer.
    public var section: SectionID
    /// The index in the section; for `insertIntoDestinationIndexPath`, the item at that index.
    public var index: Int
    /// The intent the client hints.
    public var intent: DropIntent

    /// Creates a drag target.
    public init(
        board: String? = nil, collection: CollectionID, section: SectionID, index: Int,
        intent: DropIntent = .insertAtDestinationIndexPath
    ) {
        self.board = board
        self.collection = collection
        self.section = section
        self.index = index
        self.intent = intent
    }

    /// The model's hover target (without the board).
    public var hover: HoverTarget {
        HoverTarget(collection: collection, section: section, index: index, intent: intent)
    }
}

/// A drag in progress as every member sees it: whose, which items, and where it would land.
///
/// Sent in `welcome.drags` and, piece by piece, as `dragStarted`, `dragItems`, `dragHover` and
/// `dragEnded`.
public struct DragState: Hashable, Codable, Sendable {
    /// The drag session id, chosen by the dragger.
    public var session: String
    /// The dragging member's id.
    public var member: String
    /// The dragged items of this board, in drag order.
    public var items: [ItemID]
    /// Type lists of content dragged in from outside the board (files, text, links), one per item.
    public var external: [[String]]
    /// Where the drag hovers now, if it has been over a collection.
    public var target: DragTarget?
    /// What a drop there would do.
    public var proposal: Proposal?

    /// Creates a drag state.
    public init(
        session: String, member: String, items: [ItemID], external: [[String]] = [], target: DragTarget? = nil,
        proposal: Proposal? = nil
    ) {
        self.session = session
        self.member = member
        self.items = items
        self.external = external
        self.target = target
        self.proposal = proposal
    }
}
