import CorkboardStorage
import Foundation

/// Gives the boards of an older build their comment and admin keys (R17) when a writable store
/// opens: new 128-bit random keys, in one transaction; the edit and view keys, and so every link
/// already shared, stay. A store opened for reading only leaves them missing (they open nothing).
enum RoleKeysUpgrade {
    /// Upgrades every record that lacks a comment or an admin key; returns how many it upgraded.
    @discardableResult
    static func run(_ db: SQLiteDatabase) throws -> Int {
        try transaction(db) {
            let select = try db.statement("SELECT id, record FROM boards ORDER BY position")
            var upgraded: [BoardRecord] = []
            while try select.step() {
                guard let json = select.text(1),
                    var record = try? JSONDecoder().decode(BoardRecord.self, from: Data(json.utf8)),
                    record.keys.lacksRoleKeys
                else { continue }
                record.keys = record.keys.withRoleKeys()
                upgraded.append(record)
            }
            guard !upgraded.isEmpty else { return 0 }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            for record in upgraded {
                let update = try db.statement("UPDATE boards SET record = ? WHERE id = ?")
                update.bind(1, String(decoding: try encoder.encode(record), as: UTF8.self))
                update.bind(2, record.id)
                try update.step()
            }
            try db.execute(
                "INSERT INTO meta (key, value) VALUES ('catalog', '1') "
                    + "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")
            return upgraded.count
        }
    }
}
