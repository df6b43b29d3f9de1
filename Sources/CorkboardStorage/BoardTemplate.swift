public import CorkboardModel
import Foundation

/// The content a new board starts from.
public enum BoardTemplate: String, Hashable, Codable, Sendable, CaseIterable {
    /// Two collections of geocache cards that trade cards (as in the classic two-collection
    /// tutorial), and an Inbox list that takes text, links and images from outside.
    case demo
    /// One list collection with one section, accepting anything.
    case empty

    /// The collections, with ids prefixed by the board id so ids stay unique across the server's
    /// boards (items keep their ids when they move between boards, R6).
    public func collections(board: String) -> [BoardCollection] {
        func id(_ suffix: String) -> String { "\(board)-\(suffix)" }
        switch self {
        case .empty:
            return [
                BoardCollection(
                    id: CollectionID(id("board")), title: "Board", layout: .list,
                    sections: [Section(id: SectionID(id("main")), title: "")])
            ]
        case .demo:
            let cards = BoardTemplate.geocaches.enumerated().map { index, cache in
                Item(id: ItemID(id("gc\(index + 1)")), representations: cache.representations)
            }
            return [
                BoardCollection(
                    id: CollectionID(id("caches")), title: "Geocaches", layout: .grid, accepts: ["corkboard.card"],
                    sections: [Section(id: SectionID(id("to-find")), title: "To find", items: Array(cards[0..<8]))]),
                BoardCollection(
                    id: CollectionID(id("found")), title: "Found", layout: .grid, accepts: ["corkboard.card"],
                    sections: [Section(id: SectionID(id("found")), title: "Found", items: Array(cards[8...]))]),
                BoardCollection(
                    id: CollectionID(id("inbox")), title: "Inbox", layout: .list,
                    accepts: ["public.plain-text", "public.url", "public.image"],
                    sections: [
                        Section(
                            id: SectionID(id("inbox")), title: "Inbox",
                            items: [
                                Item(
                                    id: ItemID(id("note1")),
                                    representations: [
                                        Representation(
                                            type: "public.plain-text",
                                            value: "Drop text, links and images here from other apps.")
                                    ])
                            ])
                    ]),
            ]
        }
    }

    private struct Geocache: Encodable {
        var name: String
        var summary: String
        var latitude: Double
        var longitude: Double

        var representations: [Representation] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let card = (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return [
                Representation(type: "corkboard.card", value: card),
                Representation(type: "public.plain-text", value: "\(name): \(summary)"),
            ]
        }
    }

    private static let geocaches = [
        Geocache(
            name: "Old Mill Wheel", summary: "Behind the waterwheel, magnetic.", latitude: 47.3769, longitude: 8.5417),
        Geocache(
            name: "Lighthouse Steps", summary: "Count the steps; the clue is the total.", latitude: 54.1792,
            longitude: 7.8858),
        Geocache(
            name: "Granite Owl", summary: "Micro cache under the owl's left wing.", latitude: 44.2706,
            longitude: -71.3033),
        Geocache(
            name: "Ferry Landing", summary: "Film canister near the timetable.", latitude: 47.6062, longitude: -122.3321
        ),
        Geocache(
            name: "Chapel Ruin", summary: "Multi-stage; start at the bell.", latitude: 51.5074, longitude: -0.1278),
        Geocache(name: "Birch Hollow", summary: "Ammo box, bring a pen.", latitude: 59.3293, longitude: 18.0686),
        Geocache(
            name: "Harbor Crane", summary: "Nano on the fence, no need to climb.", latitude: 53.5511, longitude: 9.9937),
        Geocache(name: "Summit Register", summary: "Logbook in the summit tube.", latitude: 46.5581, longitude: 7.8348),
        Geocache(name: "Sandstone Arch", summary: "Found on the first try.", latitude: 38.7436, longitude: -109.4993),
        Geocache(
            name: "Tram Depot", summary: "Found after dark with a flashlight.", latitude: 52.5200, longitude: 13.4050),
    ]
}
