import Foundation

/// A board as the server lists it: id, title, keys, and the template its content started from.
///
/// JSON shape: `{"id":"demo","title":"Geocaches","keys":{"edit":"e-…","view":"v-…","comment":"c-…",
/// "admin":"a-…","isOpen":true},"template":"demo","createdAt":1790000000,"people":{…}}` (`people`:
/// `BoardPeople`; a record of an older build has none and decodes with nobody, links on).
public struct BoardRecord: Hashable, Codable, Sendable {
    /// The board id.
    public var id: String
    /// The title.
    public var title: String
    /// The keys that open it.
    public var keys: BoardKeys
    /// The content it starts from: `demo` or `empty`.
    public var template: BoardTemplate
    /// When it was created, seconds since 1970.
    public var createdAt: Double
    /// Its people, personal invites and whether its share links open it (issue 45).
    public var people: BoardPeople

    /// Creates a record.
    public init(
        id: String, title: String, keys: BoardKeys, template: BoardTemplate, createdAt: Double,
        people: BoardPeople = BoardPeople()
    ) {
        self.id = id
        self.title = title
        self.keys = keys
        self.template = template
        self.createdAt = createdAt
        self.people = people
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, keys, template, createdAt, people
    }

    /// Decodes a record; one of an older build has no `people`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        keys = try container.decode(BoardKeys.self, forKey: .keys)
        template = try container.decode(BoardTemplate.self, forKey: .template)
        createdAt = try container.decode(Double.self, forKey: .createdAt)
        people = try container.decodeIfPresent(BoardPeople.self, forKey: .people) ?? BoardPeople()
    }

    /// The links that open a board, one per role (R17).
    public struct ShareLinks: Hashable, Sendable {
        /// Opens the admin role (`nil` on a record without an admin key).
        public var admin: String?
        /// Opens the editor role (without a key on a board open to anyone).
        public var edit: String
        /// Opens the commenter role (`nil` on a record without a comment key).
        public var comment: String?
        /// Opens the viewer role.
        public var view: String
    }

    /// The links that open the board in each role, under a base URL such as
    /// `http://127.0.0.1:8080/`.
    public func shareLinks(base: String) -> ShareLinks {
        let root = base.hasSuffix("/") ? base : base + "/"
        let board = id.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? id
        func link(_ key: String) -> String { "\(root)?board=\(board)&key=\(key)" }
        return ShareLinks(
            admin: keys.admin.isEmpty ? nil : link(keys.admin),
            edit: keys.isOpen ? "\(root)?board=\(board)" : link(keys.edit),
            comment: keys.comment.isEmpty ? nil : link(keys.comment), view: link(keys.view))
    }

    /// A readable id from the title plus a random suffix: "Trip planning" → `trip-planning-4f9c2a`.
    public static func generatedID(_ title: String) -> String {
        var slug = ""
        for scalar in title.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty && !slug.hasSuffix("-") {
                slug += "-"
            }
            if slug.count >= 40 { break }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        let suffix = (0..<6).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined()
        return (slug.isEmpty ? "board" : slug) + "-" + suffix
    }
}
