public import CorkboardModel
public import CorkboardStorage
import Dispatch
import Foundation
import Synchronization

// What the store tests share (the SQLite store's and the contract tests run on both stores):
// records, operations and a random driver of committed histories.

/// Appends (with the undo histories that changed, R13) and waits for the completion; returns the
/// store's error, if any.
public func appendAndWait(
    _ store: any BoardStore, board: String, _ operations: [CommittedOperation], undo: UndoHistory.Changes = []
) -> StoreError? {
    let result = Mutex<StoreError??>(nil)
    let done = DispatchSemaphore(value: 0)
    store.append(atomically: [
        BoardAppend(board: board, operations: operations, undo: undo) { error in
            result.withLock { $0 = .some(error) }
            done.signal()
        }
    ])
    if done.wait(timeout: .now() + 30) == .timedOut {
        return StoreError(.io, "test: the append's completion did not run within 30 s")
    }
    return result.withLock { $0 } ?? nil
}

/// Appends `parts` as one atomic append (as a move between boards does) and waits for their
/// completions (each part's own runs first); returns the parts' errors in the order their
/// completions ran.
public func appendTogether(_ store: any BoardStore, _ parts: [BoardAppend]) -> [StoreError?] {
    let results = Mutex<[StoreError?]>([])
    let done = DispatchGroup()
    store.append(
        atomically: parts.map { part in
            done.enter()
            var part = part
            let completion = part.completion
            part.completion = { error in
                completion(error)
                results.withLock { $0.append(error) }
                done.leave()
            }
            return part
        })
    guard done.wait(timeout: .now() + 30) == .success else {
        return [StoreError(.io, "test: the append's completions did not run within 30 s")]
    }
    return results.withLock { $0 }
}

/// A part of an append: `placeholderCommit`s at `seqs` of `board`, with nothing to do on completion.
public func placeholderPart(_ board: String, _ seqs: [Int], epoch: Int? = nil, moveID: String? = nil) -> BoardAppend {
    BoardAppend(
        board: board, operations: seqs.map { placeholderCommit($0, board: board) }, epoch: epoch, moveID: moveID
    ) { _ in }
}

/// Holds a store's writer (completions run on it) until the returned function is called, so what
/// is appended meanwhile queues up for one round. `append` is the store's (or writer's) append.
public func holdWriter(appending append: ([BoardAppend]) -> Void) -> @Sendable () -> Void {
    let gate = DispatchSemaphore(value: 0)
    let held = DispatchSemaphore(value: 0)
    append([
        BoardAppend(board: "held", operations: []) { _ in
            held.signal()
            gate.wait()
        }
    ])
    held.wait()
    return { gate.signal() }
}

/// Saves an empty seq-0 snapshot of each board, as `BoardDirectory` does for a new board before
/// its room's first append.
public func startBoards(_ store: any BoardStore, _ boards: [String]) {
    for board in boards {
        store.saveSnapshot(board: board, snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
    }
}

/// A board record for tests.
public func record(_ id: String, template: BoardTemplate = .demo, title: String? = nil) -> BoardRecord {
    BoardRecord(
        id: id, title: title ?? "Board \(id)",
        keys: BoardKeys(edit: "e-\(id)", view: "v-\(id)", comment: "c-\(id)", admin: "a-\(id)"),
        template: template,
        createdAt: 1_790_000_000)
}

/// The demo template's board for a board id.
public func templateBoard(_ id: String, _ template: BoardTemplate = .demo) throws -> Board {
    try Board(collections: template.collections(board: id))
}

/// A trivially valid committed operation (its content does not replay: for log-shape tests only).
public func placeholderCommit(_ seq: Int, board: String = "b", client: String = "tester") -> CommittedOperation {
    CommittedOperation(
        seq: seq, opId: "op\(seq)", clientId: client,
        op: .updateItem(.init(item: ItemID("\(board)-gc1"), representations: [])), effect: Effect())
}

/// A big committed operation: an `updateItem` of `bytes` bytes of text (R18 tests).
public func fatCommit(_ seq: Int, board: String = "b", bytes: Int) -> CommittedOperation {
    CommittedOperation(
        seq: seq, opId: "op\(seq)", clientId: "tester",
        op: .updateItem(
            .init(
                item: ItemID("\(board)-gc1"),
                representations: [
                    Representation(type: "public.plain-text", value: String(repeating: "x", count: bytes))
                ])),
        effect: Effect())
}

/// A small deterministic generator (SplitMix64) so failures replay from the printed seed.
/// Drives a sequencer with random operations from a few clients, keeping only commits.
public struct RandomDriver {
    /// The board and its writer.
    public var sequencer: Sequencer
    /// The random source.
    public var rng: SplitMix64
    /// The time operations are submitted at.
    public var now: Double = 1_790_000_000
    private var counter = 0

    /// A driver over a board.
    public init(board: Board, seed: UInt64, configuration: Sequencer.Configuration = .init()) {
        sequencer = Sequencer(board: board, configuration: configuration)
        rng = SplitMix64(seed: seed)
    }

    /// Submits random operations until `count` have committed; returns the commits in order.
    public mutating func commit(_ count: Int) -> [CommittedOperation] {
        var committed: [CommittedOperation] = []
        var attempts = 0
        while committed.count < count, attempts < count * 50 {
            attempts += 1
            counter += 1
            let client = ["ada", "bob", "cy"][Int.random(in: 0..<3, using: &rng)]
            guard let op = randomOperation(client: client) else { continue }
            let envelope = ClientOperation(
                opId: "o\(counter)", clientId: client, base: sequencer.head, op: op)
            now += 0.5
            if case .committed(let c) = sequencer.submit(envelope, now: now) { committed.append(c) }
        }
        return committed
    }

    private mutating func randomOperation(client: String) -> BoardOperation? {
        let board = sequencer.board
        var sections: [(CollectionID, SectionID)] = []
        for collection in board.collectionIDs {
            for section in board.sectionIDs(in: collection) ?? [] { sections.append((collection, section)) }
        }
        let items = board.allItemIDs.sorted()
        guard let (collection, section) = sections.randomElement(using: &rng) else { return nil }
        let list = board.itemIDs(in: section) ?? []
        let index = Int.random(in: 0...list.count, using: &rng)
        let destination = Destination(
            collection: collection, section: section, index: index, after: index > 0 ? list[index - 1] : nil,
            before: index < list.count ? list[index] : nil)
        let some = Array(items.shuffled(using: &rng).prefix(Int.random(in: 1...2, using: &rng)))
        let card = [
            Representation(type: "corkboard.card", value: "{\"name\":\"n\(counter)\"}"),
            Representation(type: "public.plain-text", value: "card \(counter)"),
        ]
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<45:
            return .move(.init(items: some, destination: destination))
        case 45..<52:
            guard let target = items.randomElement(using: &rng) else { return nil }
            return .move(.init(items: some, destination: .into(target, collection: collection, section: section)))
        case 52..<60:
            return .copy(.init(items: some, destination: destination))
        case 60..<70:
            return .insert(.init(items: [NewItem(representations: card)], destination: destination))
        case 70..<76:
            return .delete(.init(items: some))
        case 76..<82:
            return .insertPlaceholder(.init(destination: destination))
        case 82..<88:
            guard let mine = board.placeholders(ownedBy: client).randomElement(using: &rng) else { return nil }
            return .commitPlaceholder(.init(item: mine, representations: card))
        case 88..<91:
            guard let item = items.randomElement(using: &rng) else { return nil }
            return .updateItem(.init(item: item, representations: card))
        case 91..<93:
            // R16: card details travel through the log, snapshots and archives like any content.
            guard let item = items.randomElement(using: &rng) else { return nil }
            return .updateCard(
                .init(
                    item: item, description: .init("notes \(counter)"), dates: .init(due: counter * 1000),
                    done: Bool.random(using: &rng), assign: ["P\(counter % 3)"]))
        case 93..<97:
            return .createSection(
                .init(collection: collection, id: SectionID("\(client)-s\(counter)"), index: 0))
        default:
            return .moveSection(.init(section: section, index: Int.random(in: 0..<3, using: &rng)))
        }
    }
}

/// The seed for randomized tests: `CORKBOARD_STORE_SEED` when set, else a fresh one (printed).
public func storeTestSeed() -> UInt64 {
    if let text = ProcessInfo.processInfo.environment["CORKBOARD_STORE_SEED"], let seed = UInt64(text) {
        return seed
    }
    return UInt64.random(in: 1...UInt64(UInt32.max))
}
