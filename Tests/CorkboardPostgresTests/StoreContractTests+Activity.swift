import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Dispatch
import Synchronization
import Testing

extension StoreContractTests {
    /// The activity feeds' part of the `BoardStore` contract (issue 43, R18), on both stores: the
    /// entries are written in the transaction of the operations they report, trimmed below the
    /// `keepFrom` the room sends, loaded with the board oldest first by any store on the same data
    /// (a restart, the node that takes a board over), and deleted with the board.
    @Suite("activity feeds")
    struct ActivityFeeds {
        @Test(
            "entries come back oldest first from any store, byte for byte; keepFrom drops older ones; deleting the board deletes them",
            arguments: StoreKind.running)
        func roundTrip(kind: StoreKind) async throws {
            try await kind.withStore { (store, reopen) async throws in
                try store.add(record("b"))
                startBoards(store, ["b"])
                #expect(appendTogether(store, [withActivity(placeholderPart("b", [1, 2, 3]))]) == [nil])
                #expect(try store.load(board: "b")?.activity == entries("b", 1...3))
                #expect(try reopen().load(board: "b")?.activity == entries("b", 1...3), "another process reads them")

                // The room's feed dropped its oldest two: the store keeps what the room keeps.
                #expect(appendTogether(store, [withActivity(placeholderPart("b", [4, 5]), keepFrom: 3)]) == [nil])
                #expect(try reopen().load(board: "b")?.activity.map(\.seq) == [3, 4, 5])
                // Operations without an entry (the room's own, placeholders) leave the feed alone.
                #expect(appendAndWait(store, board: "b", [placeholderCommit(6)]) == nil)
                let stored = try #require(try reopen().load(board: "b"))
                #expect(stored.activity == entries("b", 3...5))
                #expect(stored.log.map(\.seq) == [1, 2, 3, 4, 5, 6])

                #expect(try StoreKind.deleteBoard("b", from: store))
                startBoards(store, ["b"])
                store.drain()
                #expect(try reopen().load(board: "b")?.activity == [], "a board made again under the id starts empty")
            }
        }

        @Test(
            "appends of one board in one transaction: each entry once, a later part's trim drops an earlier part's entries",
            arguments: StoreKind.running)
        func oneTransaction(kind: StoreKind) async throws {
            try await kind.withStore(started: ["b", "c"]) { (store, reopen) async throws in
                store.drain()
                let done = DispatchGroup()
                let failures = Mutex<[StoreError]>([])
                // Held behind the writer, the three appends share one transaction.
                let release = holdWriter(appending: store.append(atomically:))
                for part in [
                    withActivity(placeholderPart("b", [1, 2])),
                    withActivity(placeholderPart("c", [1])),
                    withActivity(placeholderPart("b", [3, 4]), keepFrom: 2),
                ] {
                    done.enter()
                    var part = part
                    part.completion = { error in
                        if let error { failures.withLock { $0.append(error) } }
                        done.leave()
                    }
                    store.append(atomically: [part])
                }
                release()
                #expect(done.wait(timeout: .now() + 30) == .success)
                #expect(failures.withLock { $0 }.isEmpty)
                let other = try reopen()
                #expect(try other.load(board: "b")?.activity == entries("b", 2...4))
                #expect(try other.load(board: "c")?.activity == entries("c", 1...1))
            }
        }

        @Test(
            "R14: an atomic append of two boards writes both boards' entries or neither's",
            arguments: StoreKind.running)
        func atomicAppend(kind: StoreKind) async throws {
            try await kind.withStore(started: ["a", "z"]) { (store, reopen) async throws in
                let both = [withActivity(placeholderPart("a", [1])), withActivity(placeholderPart("z", [1]))]
                #expect(appendTogether(store, both) == [nil, nil])
                // z's part would leave a gap: neither part's entries (nor a's trim) are stored.
                let refused = appendTogether(
                    store,
                    [withActivity(placeholderPart("a", [2]), keepFrom: 2), withActivity(placeholderPart("z", [3]))])
                #expect(refused.allSatisfy { $0 != nil }, "\(refused)")
                #expect(try reopen().load(board: "a")?.activity == entries("a", 1...1))
                #expect(try reopen().load(board: "z")?.activity == entries("z", 1...1))
                // The move made again commits both.
                let again = [
                    withActivity(placeholderPart("a", [2]), keepFrom: 2), withActivity(placeholderPart("z", [2])),
                ]
                #expect(appendTogether(store, again) == [nil, nil])
                #expect(try reopen().load(board: "a")?.activity == entries("a", 2...2))
                #expect(try reopen().load(board: "z")?.activity == entries("z", 1...2))
            }
        }
    }
}

/// The stored entry the tests write for operation `seq` of `board`: JSON as `ActivityCoding`
/// writes, with non-ASCII text, so a store that changed the bytes would show.
func activityEntry(_ board: String, _ seq: Int) -> ActivityRecords.Record {
    ActivityRecords.Record(
        seq: seq, json: Array(#"{"seq":\#(seq),"board":"\#(board)","text":"moved “Mühle” \#(seq)"}"#.utf8))
}

/// The entries of `seqs` of `board`, oldest first.
func entries(_ board: String, _ seqs: ClosedRange<Int>) -> [ActivityRecords.Record] {
    seqs.map { activityEntry(board, $0) }
}

/// A part with an activity entry for each of its operations, and `keepFrom` when given.
func withActivity(_ part: BoardAppend, keepFrom: Int? = nil) -> BoardAppend {
    var part = part
    part.activity = ActivityRecords(
        added: part.operations.map { activityEntry(part.board, $0.seq) }, keepFrom: keepFrom)
    return part
}
