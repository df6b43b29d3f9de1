public import CorkboardModel

/// The messages of a live drag (R9, proposals): begin, add items, hover, drop, end.
extension ClientMessage {
    /// `dragBegin`: starts session `session` with board items and/or external content types.
    public struct DragBegin: Hashable, Codable, Sendable {
        /// Echoed in `dragGranted`.
        public var ref: String?
        /// A session id chosen by the client, unique among its live drags.
        public var session: String
        /// Items of this board, in drag order.
        public var items: [ItemID]
        /// Type lists of content dragged in from outside the board, one per item.
        public var external: [[String]]?

        /// Creates a drag begin.
        public init(ref: String? = nil, session: String, items: [ItemID], external: [[String]]? = nil) {
            self.ref = ref
            self.session = session
            self.items = items
            self.external = external
        }
    }

    /// `dragAdd`: more items join a live drag (`itemsForAddingTo`).
    public struct DragAdd: Hashable, Codable, Sendable {
        /// Echoed in `dragGranted`.
        public var ref: String?
        /// The live session.
        public var session: String
        /// Items to add, in order.
        public var items: [ItemID]

        /// Creates a drag add.
        public init(ref: String? = nil, session: String, items: [ItemID]) {
            self.ref = ref
            self.session = session
            self.items = items
        }
    }

    /// `dropUpdate`: the drag hovers at `target`; `copy` when the user asks to copy.
    public struct DropUpdate: Hashable, Codable, Sendable {
        /// Echoed in the `proposal`.
        public var ref: String?
        /// The live session.
        public var session: String
        /// Where it hovers.
        public var target: DragTarget
        /// The user asks to copy (e.g. holds Option/Alt).
        public var copy: Bool?
        /// The edit key of `target.board`, when the drag hovers over another board.
        public var key: String?

        /// Creates a drop update.
        public init(ref: String? = nil, session: String, target: DragTarget, copy: Bool? = nil, key: String? = nil) {
            self.ref = ref
            self.session = session
            self.target = target
            self.copy = copy
            self.key = key
        }
    }

    /// `drop`: the session's items land at `destination` as one sequenced move or copy.
    ///
    /// With `board` (and that board's `key`), the drop lands on another board of the server (R6).
    public struct Drop: Hashable, Codable, Sendable {
        /// Echoed in the `ack`.
        public var ref: String?
        /// The live session whose items drop.
        public var session: String
        /// Unique for this client.
        public var opId: String
        /// The seq of the destination board the client saw (0 when it does not follow that board).
        public var base: Int
        /// Where the items land (R3 anchors).
        public var destination: Destination
        /// Copy instead of move.
        public var copy: Bool?
        /// Another board of this server to drop on.
        public var board: String?
        /// That board's edit key.
        public var key: String?

        /// Creates a drop.
        public init(
            ref: String? = nil, session: String, opId: String, base: Int, destination: Destination,
            copy: Bool? = nil, board: String? = nil, key: String? = nil
        ) {
            self.ref = ref
            self.session = session
            self.opId = opId
            self.base = base
            self.destination = destination
            self.copy = copy
            self.board = board
            self.key = key
        }
    }

    /// `dragEnd`: the drag ended without a drop.
    public struct DragEnd: Hashable, Codable, Sendable {
        /// Echoed in nothing (no answer), but kept for logs.
        public var ref: String?
        /// The live session.
        public var session: String

        /// Creates a drag end.
        public init(ref: String? = nil, session: String) {
            self.ref = ref
            self.session = session
        }
    }
}
