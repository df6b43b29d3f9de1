import CorkboardModel
import CorkboardPostgres
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import Foundation
import Testing

/// R17: a board written by a build before roles (an edit and a view key only) keeps both, so every
/// link already shared still opens it, and gets new random comment and admin keys when a writable
/// store opens (SQLite) or migrates (PostgreSQL); boards that have them are left alone.
@Suite struct RoleKeysUpgradeTests {
    static let old = BoardRecord(
        id: "old", title: "Old", keys: BoardKeys(edit: "e-old", view: "v-old"), template: .empty, createdAt: 1)

    /// Checks what `reopened` loads after the upgrade, and that opening once more changes nothing.
    static func check(_ reopened: () throws -> any BoardStore) throws {
        let upgraded = try reopened().load()
        let keys = try #require(upgraded.first { $0.id == "old" }?.keys)
        #expect((keys.edit, keys.view) == ("e-old", "v-old"))
        #expect(keys.comment.hasPrefix("c-") && keys.comment.count == 34, "\(keys.comment)")
        #expect(keys.admin.hasPrefix("a-") && keys.admin.count == 34, "\(keys.admin)")
        #expect(keys.comment != keys.admin)
        #expect(upgraded.first { $0.id == "new" }?.keys == record("new").keys, "a board with its keys is left alone")
        #expect(try reopened().load() == upgraded, "opened again, the keys stay")
    }

    @Test("R17: SQLite: the comment and admin keys of a board of an older build, given when the store opens")
    func sqlite() throws {
        let folder = try makeTemporaryFolder(prefix: "corkboard-role-keys")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = SQLiteBoardStore.path(inDataFolder: folder)
        let store = try SQLiteBoardStore(path: path)
        try store.save([Self.old, record("new")])
        #expect(try store.load().first?.keys.lacksRoleKeys == true)
        store.drain()
        try Self.check { try SQLiteBoardStore(path: path) }
    }

    @Test(
        "R17: PostgreSQL: the comment and admin keys of a board of an older build, given by the migration",
        .enabled(if: TestPostgres.enabled))
    func postgres() async throws {
        try await TestPostgres.withDatabase { url in
            let store = try PostgresBoardStore(url: url, logger: TestPostgres.logger)
            defer { store.close() }
            try store.save([Self.old, record("new")])
            // A record as an older build wrote it: no comment or admin key at all.
            try await TestPostgres.execute(
                "UPDATE corkboard_boards SET record = jsonb_set(record::jsonb, '{keys}', "
                    + "(record::jsonb -> 'keys') - 'comment' - 'admin')::text WHERE id = 'old'", on: url)
            #expect(try store.load().first?.keys.lacksRoleKeys == true)
            var opened: [PostgresBoardStore] = []
            defer { for other in opened { other.close() } }
            try Self.check {
                _ = try PostgresBoardStore.migrate(url: url, logger: TestPostgres.logger)
                let other = try PostgresBoardStore(url: url, migrate: false, logger: TestPostgres.logger)
                opened.append(other)
                return other
            }
        }
    }
}
