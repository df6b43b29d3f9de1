public import CorkboardModel

// The messages of edit leases (R12), undo (R13) and sharing.
extension ServerMessage {
    /// `editGranted`: the edit lease on `item` is this member's until it saves, cancels, leaves
    /// or goes quiet.
    ///
    /// JSON shape: `{"type":"editGranted","ref":"e1","item":"i7","version":3}`.
    public struct EditGranted: Hashable, Codable, Sendable {
        /// The `editBegin`'s ref.
        public var ref: String?
        /// The item.
        public var item: ItemID
        /// The item's version now: the `version` its `updateItem` names.
        public var version: Int

        /// Creates the message.
        public init(ref: String?, item: ItemID, version: Int) {
            self.ref = ref
            self.item = item
            self.version = version
        }
    }

    /// `editRefused`: the lease was not granted: `locked` (someone else edits it; `member` says
    /// who), `gone`, `forbidden` (a placeholder) or `read-only` (a viewer).
    ///
    /// JSON shape: `{"type":"editRefused","ref":"e1","item":"i7","code":"locked","member":"m2","message":"…"}`.
    public struct EditRefused: Hashable, Codable, Sendable {
        /// The `editBegin`'s ref.
        public var ref: String?
        /// The item.
        public var item: ItemID
        /// Why.
        public var code: RejectCode
        /// The member editing it, for `locked`.
        public var member: String?
        /// A sentence naming the editor and the card.
        public var message: String

        /// Creates the message.
        public init(ref: String?, item: ItemID, code: RejectCode, member: String? = nil, message: String) {
            self.ref = ref
            self.item = item
            self.code = code
            self.member = member
            self.message = message
        }
    }

    /// An edit in progress as every member sees it: which item, which member. Sent in
    /// `welcome.edits` and as `editStarted`.
    ///
    /// JSON shape: `{"item":"i7","member":"m2"}`.
    public struct EditState: Hashable, Codable, Sendable {
        /// The item being edited.
        public var item: ItemID
        /// The member editing it.
        public var member: String

        /// Creates the state.
        public init(item: ItemID, member: String) {
            self.item = item
            self.member = member
        }
    }

    /// How an edit lease ended.
    public enum EditEndReason: String, Hashable, Codable, Sendable {
        /// The editor's update committed.
        case saved
        /// The editor closed without saving (`editEnd`), or began editing another item.
        case cancelled
        /// Nothing from the editor for the quiet period (60 s by default).
        case expired
        /// The editor disconnected.
        case disconnected
        /// The item left the board.
        case gone
    }

    /// `editEnded`: nobody edits `item` any more (sent to everyone, the editor too).
    ///
    /// JSON shape: `{"type":"editEnded","item":"i7","member":"m2","reason":"saved"}`.
    public struct EditEnded: Hashable, Codable, Sendable {
        /// The item.
        public var item: ItemID
        /// The member who was editing it.
        public var member: String
        /// Why it ended.
        public var reason: EditEndReason

        /// Creates the message.
        public init(item: ItemID, member: String, reason: EditEndReason) {
            self.item = item
            self.member = member
            self.reason = reason
        }
    }

    /// `undoable` and `welcome.undoable`: whether this client's Undo and Redo have something to
    /// act on (R13), sent to the client's connection when that changes.
    ///
    /// JSON shape: `{"type":"undoable","undo":true,"redo":false}`.
    public struct Undoable: Hashable, Codable, Sendable {
        /// Whether `undo` has an operation to reverse.
        public var undo: Bool
        /// Whether `redo` has an undone operation to make again.
        public var redo: Bool
        /// How many of the client's oldest undo and redo steps the server forgot to keep the
        /// board's history within its bytes (R18), counted since the history began; absent when
        /// none.
        public var forgotten: Int?

        /// Creates the message.
        public init(undo: Bool, redo: Bool, forgotten: Int? = nil) {
            self.undo = undo
            self.redo = redo
            self.forgotten = forgotten
        }
    }

    /// `welcome.keys`: the keys the member may put in share links, by its role (R17): the view key
    /// for everyone; the comment key for commenters and above; the edit key for editors and admins,
    /// except on a board open to anyone (its edit link needs no key); the admin key for admins.
    ///
    /// JSON shape: `{"view":"v-…","comment":"c-…","edit":"e-…","admin":"a-…"}`.
    public struct ShareKeys: Hashable, Codable, Sendable {
        /// The view key (read-only links).
        public var view: String
        /// The edit key, for editors and admins of a board that needs one.
        public var edit: String?
        /// The comment key (commenter links), for commenters, editors and admins.
        public var comment: String?
        /// The admin key (admin links), for admins only.
        public var admin: String?

        /// Creates the keys.
        public init(view: String, edit: String? = nil, comment: String? = nil, admin: String? = nil) {
            self.view = view
            self.edit = edit
            self.comment = comment
            self.admin = admin
        }
    }
}
