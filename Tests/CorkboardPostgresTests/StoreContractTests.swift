import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Testing

/// The `BoardStore` contract, run on both stores (`StoreKind`): the embedded SQLite store always,
/// the shared PostgreSQL store with the test server. Everything the rooms rely on behaves the same
/// on both: the board list here, and in the nested suites the appends (group commit, contiguity,
/// atomic moves), snapshots and replay, the undo histories and the metrics. What only one store
/// has stays in its own suites (the SQLite journal, files and WAL in `CorkboardStoreTests`; epochs
/// and fencing in `FencingTests`).
@Suite("BoardStore contract")
struct StoreContractTests {
    @Test(
        "the board list round-trips in creation order, in any process; add refuses a taken or malformed id",
        arguments: StoreKind.running)
    func boardList(kind: StoreKind) async throws {
        try await kind.withStore { (store, reopen) async throws in
            #expect(try store.load().isEmpty)
            let a = record("a", title: "Alpha \"quoted\" / ünïcode")
            let b = record("b", template: .empty)
            try store.save([a, b])
            #expect(try store.load() == [a, b])
            // Updating one record and adding another keeps positions; a dropped record goes away.
            var renamed = b
            renamed.title = "Beta"
            let c = record("c")
            try store.save([renamed, c])
            #expect(try store.load() == [renamed, c])
            #expect(try reopen().load() == [renamed, c])
            try store.add(record("d"))
            #expect(throws: CatalogError.self) { try store.add(record("d")) }
            #expect(throws: CatalogError.self) { try store.add(record("no spaces")) }
            #expect(try store.load().map(\.id) == ["b", "c", "d"], "a refused add leaves the list as it was")
            #expect(try reopen().load().map(\.id) == ["b", "c", "d"])
            let rotated = try store.rotateKeys(of: "c")
            #expect(rotated.keys != record("c").keys)
            #expect(try reopen().load().first { $0.id == "c" }?.keys == rotated.keys)
            #expect(throws: CatalogError.self) { try store.rotateKeys(of: "nope") }
        }
    }

    @Test(
        "every load sees the latest commit, including boards another process adds while the store is open",
        arguments: StoreKind.running)
    func readsAreNeverStale(kind: StoreKind) async throws {
        try await kind.withStore { (server, reopen) async throws in
            // The server reads its board once (a snapshot and a log), then keeps appending.
            try server.add(record("demo"))
            startBoards(server, ["demo"])
            #expect(appendAndWait(server, board: "demo", [placeholderCommit(1, board: "demo")]) == nil)
            #expect(try server.load(board: "demo")?.log.map(\.seq) == [1])
            #expect(appendAndWait(server, board: "demo", [placeholderCommit(2, board: "demo")]) == nil)
            #expect(try server.load(board: "demo")?.log.map(\.seq) == [1, 2])

            // `corkboard boards create` in another process, while the server runs.
            let cli = try reopen()
            try cli.add(record("later"))
            #expect(try server.load().map(\.id) == ["demo", "later"], "the running server sees the new board")
            // And the server's writer is not stuck on an old read snapshot.
            #expect(appendAndWait(server, board: "demo", [placeholderCommit(3, board: "demo")]) == nil)
            try server.save(try server.load() + [record("third")])
            #expect(try cli.load().map(\.id) == ["demo", "later", "third"])
            #expect(try cli.load(board: "demo")?.log.map(\.seq) == [1, 2, 3])
        }
    }

    @Test(
        "the catalog's generation changes with the board list (in any process) and not with operations",
        arguments: StoreKind.running)
    func catalogGeneration(kind: StoreKind) async throws {
        try await kind.withStore { (store, reopen) async throws in
            let start = try #require(try store.generation())
            try store.add(record("a"))
            let added = try #require(try store.generation())
            #expect(added != start)
            store.saveSnapshot(board: "a", snapshot: Snapshot(seq: 0, board: try templateBoard("a")), retainingLog: 0)
            var driver = RandomDriver(board: try templateBoard("a"), seed: 3)
            #expect(appendAndWait(store, board: "a", driver.commit(5)) == nil)
            #expect(try store.generation() == added, "operations leave the list alone")
            // Another process (here: another store on the same data) rotates the keys.
            let other = try reopen()
            try other.rotateKeys(of: "a")
            other.drain()
            let rotated = try #require(try store.generation())
            #expect(rotated != added)
            #expect(try StoreKind.deleteBoard("a", from: other))
            #expect(try store.generation() != rotated)
        }
    }
}
