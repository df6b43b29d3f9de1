extension BoardOperation {
    /// Payload of `checklist`: one change to one checklist of a card (R16), applied by id so that
    /// concurrent changes converge (two people checking the same item both leave it checked).
    ///
    /// JSON shapes, by `action`:
    /// - `{"item":"i1","checklist":"k1","action":"add","name":"Launch","index":0}` adds a checklist
    ///   (an undo of `delete` also sends `restore`, the items it comes back with);
    /// - `{"item":"i1","checklist":"k1","action":"rename","name":"…","from":"…"}`;
    /// - `{"item":"i1","checklist":"k1","action":"delete"}` deletes it with its items;
    /// - `{"item":"i1","checklist":"k1","action":"addItem","entry":"e1","text":"…","index":2}`
    ///   (`done` may be given, as an undo of `deleteItem` does);
    /// - `{"item":"i1","checklist":"k1","action":"check","entry":"e1","done":true}` sets the item
    ///   checked or unchecked (idempotent);
    /// - `{"item":"i1","checklist":"k1","action":"renameItem","entry":"e1","text":"…","from":"…"}`;
    /// - `{"item":"i1","checklist":"k1","action":"deleteItem","entry":"e1"}`;
    /// - `{"item":"i1","checklist":"k1","action":"moveItem","entry":"e1","index":0}` puts the item
    ///   at that index of its checklist (counted without it; past the end it goes last).
    ///
    /// A rename's `from` (optional) is the name or text the editor saw: when the checklist or item
    /// has another now, the rename is refused `conflict` (R12) and changes nothing.
    public struct ChecklistChange: Hashable, Codable, Sendable {
        /// What the change does.
        public enum Action: String, Hashable, Codable, Sendable, CaseIterable {
            case add, rename, delete, addItem, check, renameItem, deleteItem, moveItem

            /// Whether it acts on one item of the checklist (and so names its `entry`).
            public var isItemAction: Bool { ![.add, .rename, .delete].contains(self) }
        }

        /// The card.
        public var item: ItemID
        /// The checklist.
        public var checklist: ChecklistID
        /// What the change does.
        public var action: Action
        /// The checklist item, for the item actions.
        public var entry: ChecklistEntryID?
        /// The checklist's name (`add`, `rename`).
        public var name: String?
        /// The item's text (`addItem`, `renameItem`).
        public var text: String?
        /// Checked or not (`check`; `addItem` may give it).
        public var done: Bool?
        /// Where the checklist or item goes (`add`, `addItem`, `moveItem`); left out appends.
        public var index: Int?
        /// The name or text a rename was made on (R12).
        public var from: String?
        /// The items a checklist comes back with (`add`, in an undo of `delete`).
        public var restore: [Checklist.Entry]?

        /// Creates a checklist change.
        public init(
            item: ItemID, checklist: ChecklistID, action: Action, entry: ChecklistEntryID? = nil, name: String? = nil,
            text: String? = nil, done: Bool? = nil, index: Int? = nil, from: String? = nil,
            restore: [Checklist.Entry]? = nil
        ) {
            self.item = item
            self.checklist = checklist
            self.action = action
            self.entry = entry
            self.name = name
            self.text = text
            self.done = done
            self.index = index
            self.from = from
            self.restore = restore
        }

        /// What is wrong with this change on its own, if anything (R16): a missing or stray part,
        /// a blank or too long name or text, a bad id or index.
        ///
        /// - Complexity: O(length of the texts + items restored).
        public var problem: CardProblem? {
            if let problem = Checklist.idProblem(checklist.rawValue, field: "checklist") { return problem }
            if action.isItemAction {
                guard let entry else {
                    return CardProblem(field: "entry", message: "\(action.rawValue) names the checklist item: entry.")
                }
                if let problem = Checklist.idProblem(entry.rawValue, field: "entry") { return problem }
            } else if entry != nil {
                return CardProblem(
                    field: "entry", message: "\(action.rawValue) acts on a whole checklist; leave out entry.")
            }
            if let index, index < 0 {
                return CardProblem(field: "index", message: "An index counts from 0; \(index) is below that.")
            }
            if restore != nil, action != .add {
                return CardProblem(field: "restore", message: "Only add brings a checklist back with its items.")
            }
            if let restore {
                let list = Checklist(id: checklist, name: name ?? "-", items: restore)
                if let problem = CardDetails(checklists: [list]).checklistsProblem(field: "restore") { return problem }
            }
            return partsProblem
        }

        /// The parts each action needs, present and in bounds.
        private var partsProblem: CardProblem? {
            switch action {
            case .add, .rename:
                guard let name else {
                    return CardProblem(field: "name", message: "\(action.rawValue) names the checklist: name.")
                }
                return Checklist.textProblem(name, field: "name", what: "checklist's name")
            case .addItem, .renameItem:
                guard let text else {
                    return CardProblem(field: "text", message: "\(action.rawValue) gives the item's text: text.")
                }
                return Checklist.textProblem(text, field: "text", what: "checklist item")
            case .check:
                return done == nil ? CardProblem(field: "done", message: "check says checked or not: done.") : nil
            case .moveItem:
                return index == nil ? CardProblem(field: "index", message: "moveItem says where to: index.") : nil
            case .delete, .deleteItem:
                return nil
            }
        }
    }
}
