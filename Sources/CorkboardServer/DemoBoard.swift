public import CorkboardStorage
public import Foundation

/// The demo board every server has from its first start: geocache cards in two collections and an
/// Inbox (`BoardTemplate.demo`).
public enum DemoBoard {
    /// The demo board's id.
    public static let id = "demo"

    /// The demo board's record, created with fresh keys and saved if the catalog does not have it.
    ///
    /// - Throws: `CatalogError` when the catalog cannot be read or written.
    @discardableResult
    public static func ensure(in catalog: any BoardCatalog, now: Double = Date().timeIntervalSince1970) throws
        -> BoardRecord
    {
        if let existing = try catalog.load().first(where: { $0.id == id }) { return existing }
        let record = BoardRecord(id: id, title: "Geocaches", keys: .random(), template: .demo, createdAt: now)
        do {
            try catalog.add(record)
        } catch let error as CatalogError {
            // Another node of a cluster created it meanwhile.
            if let existing = try catalog.load().first(where: { $0.id == id }) { return existing }
            throw error
        }
        return record
    }
}
