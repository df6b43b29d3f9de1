import CorkboardModel
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Foundation
import Testing

/// The SQLite store's file: the integrity check, and files it must refuse. What every store does
/// (the board list, appends, group commit, contiguity) is the `BoardStore` contract
/// (`StoreContractTests`, run on SQLite and PostgreSQL).
struct SQLiteFileTests {
    @Test("integrityCheck says ok for a store in use, in both durability modes")
    func integrity() throws {
        for durability in SQLiteBoardStore.Durability.allCases {
            try withStore(durability: durability) { (store: SQLiteBoardStore, _: String) throws in
                store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
                #expect(appendAndWait(store, board: "b", (1...20).map { placeholderCommit($0) }) == nil)
                #expect(try store.integrityCheck() == ["ok"])
            }
        }
    }

    @Test("a file that is not a database is refused as corrupt, naming what to do")
    func notADatabase() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: StoreError.self) { try SQLiteBoardStore(path: path) }
            #expect(error.kind == .corrupt, "\(error)")
            #expect(error.message.contains("backup"), "\(error)")
        }
    }

    @Test("a database of a newer schema is refused with a message saying to upgrade")
    func newerSchema() throws {
        try withTemporaryFolder { folder in
            let path = SQLiteBoardStore.path(inDataFolder: folder)
            do {
                _ = try SQLiteBoardStore(path: path)
            }
            try SQLiteShell.run(path, "UPDATE meta SET value = '3' WHERE key = 'schema'")
            let error = try #require(throws: StoreError.self) { try SQLiteBoardStore(path: path) }
            #expect(error.kind == .invalidData)
            #expect(error.message.contains("schema 3") && error.message.contains("Upgrade the server"), "\(error)")
            let reading = try #require(throws: StoreError.self) { try SQLiteBoardStore(readingOnly: path) }
            #expect(reading.message.contains("schema 3"), "\(reading)")
        }
    }
}
