import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardStore

/// What the SQLite store keeps of a board's activity feed (issue 43): the entries written with
/// their operations, trimmed to those the room keeps, loaded with the board after reopening the
/// file, and deleted with the board.
@Suite("SQLite store: activity feeds")
struct ActivityStoreTests {
    static func part(_ seqs: [Int], keepFrom: Int? = nil) -> BoardAppend {
        var part = BoardAppend(board: "b", operations: seqs.map { placeholderCommit($0) }) { _ in }
        part.activity = ActivityRecords(
            added: seqs.map { ActivityRecords.Record(seq: $0, json: Array(#"{"seq":\#($0)}"#.utf8)) },
            keepFrom: keepFrom)
        return part
    }

    @Test(
        "entries are written with their operations, trimmed below keepFrom, kept across reopening, deleted with the board"
    )
    func keptAndTrimmed() throws {
        try withStore { (store: SQLiteBoardStore, folder: String) throws in
            try store.add(record("b"))
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: try templateBoard("b")), retainingLog: 0)
            #expect(appendTogether(store, [Self.part([1, 2, 3])]) == [nil])
            #expect(appendTogether(store, [Self.part([4, 5], keepFrom: 3)]) == [nil])
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            let reopened = try SQLiteBoardStore(readingOnly: path)
            let activity = try #require(try reopened.load(board: "b")).activity
            #expect(activity.map(\.seq) == [3, 4, 5])
            #expect(activity.first?.json == Array(#"{"seq":3}"#.utf8))
            #expect(try store.deleteBoard("b"))
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: try templateBoard("b")), retainingLog: 0)
            store.drain()
            #expect(
                try store.load(board: "b")?.activity.isEmpty == true, "a board made again under the id starts empty")
        }
    }

    @Test("an append that fails writes none of its entries")
    func failedAppendWritesNothing() throws {
        try withStore { (store: SQLiteBoardStore, _: String) throws in
            try store.add(record("b"))
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: try templateBoard("b")), retainingLog: 0)
            #expect(appendTogether(store, [Self.part([1])]) == [nil])
            // Seq 1 again: the operations' primary key refuses the whole transaction.
            #expect(appendTogether(store, [Self.part([1, 2])]).first! != nil)
            #expect(try store.load(board: "b")?.activity.map(\.seq) == [1])
        }
    }
}
