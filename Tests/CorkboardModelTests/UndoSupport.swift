import CorkboardModel
import CorkboardTesting
import Testing

/// A card named `name` (a `corkboard.card` with its text), as people see cards.
func card(_ name: String) -> [Representation] {
    [
        Representation(type: "corkboard.card", value: #"{"name":"\#(name)"}"#),
        Representation(type: "public.plain-text", value: name),
    ]
}

/// The board the R12 and R13 tests work on: "Caches" (cards A–D to do, E done) and "Photos",
/// which takes only images.
func undoBoard() -> Board {
    func cards(_ ids: String...) -> [Item] {
        ids.map { Item(id: ItemID($0), representations: card("Card \($0.uppercased())")) }
    }
    return try! Board(collections: [
        BoardCollection(
            id: "c", title: "Caches",
            sections: [
                Section(id: "todo", title: "To do", items: cards("a", "b", "c", "d")),
                Section(id: "done", title: "Done", items: cards("e")),
            ]),
        BoardCollection(
            id: "p", title: "Photos", layout: .list, accepts: ["public.image"], sections: [Section(id: "pics")]),
    ])
}

/// A sequencer with an undo history (R13), the way a room keeps them: clients' operations go
/// through `UndoHistory.submit`, undos and redos through `perform`; invariants are checked after
/// everything that commits.
struct Undoer {
    var sequencer: Sequencer
    var history: UndoHistory
    /// The drag and edit leases a room would hold, checked by every submission.
    var leases = ItemLeases()
    var now = 1000.0
    private var counter = 0

    init(_ board: Board = undoBoard(), configuration: UndoHistory.Configuration = .init()) {
        sequencer = Sequencer(board: board)
        history = UndoHistory(boardTitle: "Trip", configuration: configuration)
    }

    var board: Board { sequencer.board }

    mutating func nextOpId() -> String {
        counter += 1
        return "op\(counter)"
    }

    /// A client's operation; expects it to commit.
    @discardableResult
    mutating func commit(
        _ op: BoardOperation, by client: String = "ada", sourceLocation: SourceLocation = #_sourceLocation
    ) -> CommittedOperation? {
        let envelope = ClientOperation(opId: nextOpId(), clientId: client, base: sequencer.head, op: op)
        let outcome = history.submit(envelope, to: &sequencer, now: now, leases: leases)
        #expect(sequencer.board.checkInvariants().isEmpty, sourceLocation: sourceLocation)
        guard case .committed(let committed) = outcome else {
            Issue.record("expected \(op.kind) to commit, got \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        return committed
    }

    /// An undo or redo; the answer as the room gets it.
    mutating func reverse(
        _ direction: UndoHistory.Direction, by client: String = "ada", opId: String? = nil
    ) -> UndoHistory.Answer {
        let answer = history.perform(
            direction, clientId: client, opId: opId ?? nextOpId(), base: sequencer.head, sequencer: &sequencer,
            now: now, leases: leases)
        #expect(sequencer.board.checkInvariants().isEmpty)
        return answer
    }

    /// Undoes and expects a commit.
    @discardableResult
    mutating func undo(by client: String = "ada", sourceLocation: SourceLocation = #_sourceLocation)
        -> CommittedOperation?
    {
        expectCommit(reverse(.undo, by: client), sourceLocation)
    }

    /// Redoes and expects a commit.
    @discardableResult
    mutating func redo(by client: String = "ada", sourceLocation: SourceLocation = #_sourceLocation)
        -> CommittedOperation?
    {
        expectCommit(reverse(.redo, by: client), sourceLocation)
    }

    /// Undoes and expects a refusal with `code`; returns its sentence.
    @discardableResult
    mutating func undoRefused(
        _ code: RejectCode, by client: String = "ada", sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        let before = sequencer.board
        let head = sequencer.head
        guard case .rejected(let rejection) = reverse(.undo, by: client) else {
            Issue.record("expected the undo to be refused \(code.rawValue)", sourceLocation: sourceLocation)
            return ""
        }
        #expect(rejection.code == code, "\(rejection)", sourceLocation: sourceLocation)
        #expect(sequencer.board == before && sequencer.head == head, sourceLocation: sourceLocation)
        return rejection.message
    }

    private func expectCommit(_ answer: UndoHistory.Answer, _ sourceLocation: SourceLocation) -> CommittedOperation? {
        guard case .committed(let committed) = answer else {
            Issue.record("expected a commit, got \(answer)", sourceLocation: sourceLocation)
            return nil
        }
        return committed
    }

    /// The ids in a section.
    func ids(_ section: SectionID) -> [String] { (board.itemIDs(in: section) ?? []).map(\.rawValue) }
}

/// A destination in collection `c`.
func inC(_ section: SectionID, _ index: Int, after: ItemID? = nil, before: ItemID? = nil) -> Destination {
    Destination(collection: "c", section: section, index: index, after: after, before: before)
}

extension Board {
    /// The board with every item at version 0, to compare content and places only.
    var withoutVersions: [BoardCollection] {
        func strip(_ item: Item) -> Item {
            var item = item
            item.version = 0
            item.children = item.children?.map(strip)
            return item
        }
        return collections.map { collection in
            var collection = collection
            collection.sections = collection.sections.map { section in
                var section = section
                section.items = section.items.map(strip)
                return section
            }
            return collection
        }
    }
}

/// Records an issue; for `guard … else { return recordIssue("…") }`.
func recordIssue(_ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
    Issue.record(comment, sourceLocation: sourceLocation)
}
