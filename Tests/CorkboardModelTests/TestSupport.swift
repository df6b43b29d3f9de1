import CorkboardModel
import CorkboardTesting
import Testing

/// The incrementally kept snapshot estimate equals a board rebuilt from the tree, and bounds the JSON.
func expectSizeKept(_ board: Board, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let rebuilt = try Board(collections: board.collections, title: board.title)
    // The board's own bytes (R14); the Trash (R15) is counted beside them.
    #expect(rebuilt.limitedSnapshotBytes == board.limitedSnapshotBytes, sourceLocation: sourceLocation)
    let json = try Snapshot(seq: 1, board: board).jsonData()
    #expect(board.estimatedSnapshotBytes >= json.count, sourceLocation: sourceLocation)
}

/// A board with one collection `c` (accepting `accepts`) whose sections hold plain-text items
/// named by their ids, plus optional extra collections.
func makeBoard(
    _ sections: KeyValuePairs<String, [String]>, accepts: [String] = [], extra: [BoardCollection] = []
) -> Board {
    let collection = BoardCollection(
        id: "c", title: "Main", layout: .grid, accepts: accepts,
        sections: sections.map { id, items in
            Section(id: SectionID(id), title: id, items: items.map { Item(id: ItemID($0), representations: text($0)) })
        })
    return try! Board(collections: [collection] + extra)
}

/// A destination in collection `c`.
func at(
    _ section: SectionID, _ index: Int, after: ItemID? = nil, before: ItemID? = nil, collection: CollectionID = "c"
) -> Destination {
    Destination(collection: collection, section: section, index: index, after: after, before: before)
}

/// A move operation.
func move(_ items: [ItemID], to destination: Destination, session: String? = nil) -> BoardOperation {
    .move(BoardOperation.Move(items: items, destination: destination, session: session))
}

/// The ids in a section as strings.
func ids(_ board: Board, _ section: SectionID) -> [String] {
    (board.itemIDs(in: section) ?? []).map(\.rawValue)
}

/// A sequencer that checks the board's invariants after every submission.
struct Harness {
    var sequencer: Sequencer
    /// The drag and edit leases a room would hold, checked by every submission.
    var leases = ItemLeases()
    var now: Double = 1000
    private var counter = 0

    init(_ board: Board, configuration: Sequencer.Configuration = .init()) {
        sequencer = Sequencer(board: board, configuration: configuration)
    }

    var board: Board { sequencer.board }

    /// Submits an operation; `base` defaults to the current head, `opId` to a fresh one.
    @discardableResult
    mutating func submit(
        _ op: BoardOperation, by client: String = "alice", opId: String? = nil, base: Int? = nil
    ) -> Outcome {
        counter += 1
        let envelope = ClientOperation(
            opId: opId ?? "op\(counter)", clientId: client, base: base ?? sequencer.head, op: op)
        let outcome = sequencer.submit(envelope, now: now, leases: leases)
        let problems = sequencer.board.checkInvariants()
        #expect(problems.isEmpty, "invariants broken after \(op.kind): \(problems)")
        return outcome
    }

    /// Submits and expects a commit, returning the effect.
    @discardableResult
    mutating func commit(
        _ op: BoardOperation, by client: String = "alice", opId: String? = nil, base: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Effect {
        let outcome = submit(op, by: client, opId: opId, base: base)
        guard case .committed(let c) = outcome else {
            Issue.record("expected a commit, got \(outcome)", sourceLocation: sourceLocation)
            return Effect()
        }
        return c.effect
    }

    /// Submits and expects a rejection with `code`, returning it.
    @discardableResult
    mutating func reject(
        _ op: BoardOperation, _ code: RejectCode, by client: String = "alice", opId: String? = nil, base: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Rejection? {
        let before = sequencer.board
        let head = sequencer.head
        let outcome = submit(op, by: client, opId: opId, base: base)
        guard case .rejected(let r) = outcome else {
            Issue.record("expected \(code.rawValue), got \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(r.code == code, "\(r)", sourceLocation: sourceLocation)
        #expect(sequencer.board == before, "a rejection changed the board", sourceLocation: sourceLocation)
        #expect(sequencer.head == head, "a rejection used a seq", sourceLocation: sourceLocation)
        return r
    }
}
