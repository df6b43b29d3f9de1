import CorkboardModel
import CorkboardPostgres
import CorkboardStorage
import CorkboardTesting
import Foundation
import Testing

/// Bad input and a database that goes away: clear errors at start, refusals while it is gone,
/// recovery when it is back.
@Suite("PostgreSQL failures")
struct PostgresFailureTests {
    @Test(
        "a malformed URL is refused with a sentence saying what to write",
        arguments: [
            ("http://x/db", "not a PostgreSQL URL"), ("postgres://127.0.0.1/db", "names no user"),
            ("postgres://u@/db", "names no host"), ("postgres://u@h", "names no database"),
            ("postgres://u@h/db?sslmode=sometimes", "sslmode must be"), ("postgres://u@h/db?x=1", "not supported"),
        ])
    func malformedURL(text: String, expected: String) {
        #expect {
            try PostgresURL(text)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test("a URL's password never shows in messages")
    func redaction() throws {
        let url = try PostgresURL("postgres://ada:s3cret@db.example:6543/boards?sslmode=require")
        #expect(url.description == "postgres://ada:***@db.example:6543/boards?sslmode=require")
        #expect(url.port == 6543 && url.password == "s3cret" && url.tls == .require)
    }

    @Test("an unreachable server is a clear error at start, naming where and what to do")
    func unreachable() throws {
        let url = try PostgresURL("postgres://corkboard@127.0.0.1:1/corkboard?sslmode=disable")
        let error = try #require(throws: StoreError.self) {
            try PostgresBoardStore(url: url, logger: TestPostgres.logger)
        }
        #expect(error.message.contains("127.0.0.1:1"), "\(error)")
        #expect(error.message.contains("unreachable"), "\(error)")
        #expect(error.message.contains("Check that it runs"), "\(error)")
    }

    @Test("a database that does not exist is named, with what to do", .enabled(if: TestPostgres.enabled))
    func missingDatabase() throws {
        var url = try PostgresURL(try #require(TestPostgres.url, "\(TestPostgres.Missing())"))
        url.database = "no_such_database_here"
        let error = try #require(throws: StoreError.self) {
            try PostgresBoardStore(url: url, logger: TestPostgres.logger)
        }
        #expect(error.message.contains("3D000"), "\(error)")
        #expect(error.message.contains("createdb"), "\(error)")
    }

    @Test("migrating twice is harmless; a schema newer than this build is refused", .enabled(if: TestPostgres.enabled))
    func schema() async throws {
        try await TestPostgres.withDatabase { url in
            #expect(try PostgresBoardStore.migrate(url: url, logger: TestPostgres.logger) == (0, 3))
            #expect(try PostgresBoardStore.migrate(url: url, logger: TestPostgres.logger) == (3, 3))
            let reading = try PostgresBoardStore(url: url, migrate: false, logger: TestPostgres.logger)
            reading.close()
            try await TestPostgres.execute("UPDATE corkboard_meta SET value = '9' WHERE key = 'schema'", on: url)
            let error = try #require(throws: StoreError.self) {
                try PostgresBoardStore(url: url, logger: TestPostgres.logger)
            }
            #expect(error.message.contains("schema 9") && error.message.contains("Upgrade the server"), "\(error)")
        }
    }

    @Test(
        "a schema 2 database (before activity feeds) is refused until migrated, then upgrades in place keeping its boards",
        .enabled(if: TestPostgres.enabled))
    func upgradeFromSchema2() async throws {
        try await TestPostgres.withDatabase { url in
            let old = try PostgresBoardStore(url: url, logger: TestPostgres.logger)
            try old.add(record("b"))
            startBoards(old, ["b"])
            #expect(appendAndWait(old, board: "b", [placeholderCommit(1), placeholderCommit(2)]) == nil)
            old.close()
            // What schema 2 was: everything but the activity table.
            try await TestPostgres.execute("DROP TABLE corkboard_activity", on: url)
            try await TestPostgres.execute("UPDATE corkboard_meta SET value = '2' WHERE key = 'schema'", on: url)

            let error = try #require(throws: StoreError.self) {
                try PostgresBoardStore(url: url, migrate: false, logger: TestPostgres.logger)
            }
            #expect(error.message.contains("schema 2") && error.message.contains("corkboard migrate"), "\(error)")
            #expect(try PostgresBoardStore.migrate(url: url, logger: TestPostgres.logger) == (2, 3))
            let store = try PostgresBoardStore(url: url, migrate: false, logger: TestPostgres.logger)
            defer { store.close() }
            let before = try #require(try store.load(board: "b"))
            #expect(before.log.map(\.seq) == [1, 2] && before.activity.isEmpty)
            #expect(appendTogether(store, [withActivity(placeholderPart("b", [3]))]) == [nil])
            #expect(try store.load(board: "b")?.activity == entries("b", 3...3))
        }
    }

    @Test(
        "connections killed under the store: appends fail or go through, never twice; the store recovers",
        .enabled(if: TestPostgres.enabled))
    func connectionsKilled() async throws {
        try await TestPostgres.withStore { url, store in
            store.saveSnapshot(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
            var committed = 0
            for round in 0..<5 {
                #expect(appendAndWait(store, board: "b", [placeholderCommit(committed + 1)]) == nil, "round \(round)")
                committed += 1
                try await TestPostgres.execute(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = '\(url.database)' AND pid <> pg_backend_pid()
                    """, on: url)
                // The next append may find the connection dead; the one after reconnects.
                var stored = false
                for _ in 0..<3 where !stored {
                    if appendAndWait(store, board: "b", [placeholderCommit(committed + 1)]) == nil {
                        committed += 1
                        stored = true
                    } else {
                        store.probeWhileFailing()
                    }
                }
                #expect(stored, "round \(round): the store reconnects")
            }
            store.probeWhileFailing()
            store.drain()
            #expect(store.lastFailure == nil)
            #expect(try store.load(board: "b")?.log.map(\.seq) == Array(1...committed))
        }
    }
}
