import Foundation

/// Names of items as people read them on a board, for the sentences the model and the rooms write
/// about edits and undo (R12, R13): a card's name, a note's text, a link's host, "Image". The
/// browser's `itemLabel` (web/js/model/card-content.js) names items the same way.
public enum ItemNames {
    /// The longest text shown as a name, in characters, before it is cut with "…".
    static let longestText = 48
    /// The name of an item that is no longer on the board.
    static let deleted = "a card that was deleted"

    /// A short name for an item with these representations, in quotes when it is a title
    /// (“Old Mill Wheel”), plain when it is a description ("an image", "a group of 3 cards").
    ///
    /// - Complexity: O(size of the representations).
    public static func quoted(
        representations: [Representation], childCount: Int? = nil, isPlaceholder: Bool = false
    ) -> String {
        if isPlaceholder { return "a card that is still loading" }
        if let card = value(of: "corkboard.card", in: representations), let name = cardName(card), !name.isEmpty {
            return "“\(cut(name))”"
        }
        if let text = value(of: "public.plain-text", in: representations), !text.isEmpty {
            return "“\(cut(text))”"
        }
        if let url = value(of: "public.url", in: representations) {
            return "“\(URL(string: url)?.host ?? cut(url))”"
        }
        if value(of: "public.image", in: representations) != nil { return "an image" }
        if let childCount { return childCount == 1 ? "a group of 1 card" : "a group of \(childCount) cards" }
        return "an untitled card"
    }

    /// The value of the first representation of `type` or one of its subtypes.
    static func value(of type: String, in representations: [Representation]) -> String? {
        representations.first { TypeMatching.entry(type, matches: $0.type) }?.value
    }

    /// The `name` of a `corkboard.card` JSON value.
    static func cardName(_ json: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return nil
        }
        if let name = object["name"] as? String { return name }
        return (object["name"] as? NSNumber)?.stringValue
    }

    /// The text on one line, at most `longestText` characters.
    static func cut(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
        return line.count > longestText ? String(line.prefix(longestText - 1)) + "…" : line
    }
}

extension Board {
    /// The item's name as people read it (“Old Mill Wheel”, "an image"), or "a card that was
    /// deleted" when it is gone.
    ///
    /// - Complexity: O(size of its representations).
    public func quotedName(of item: ItemID) -> String {
        guard let slot = itemSlots[item] else { return ItemNames.deleted }
        return quotedName(ofSlot: slot)
    }

    func quotedName(ofSlot slot: Slot) -> String {
        let node = nodes[Int(slot)]
        return ItemNames.quoted(
            representations: node.representations, childCount: node.children?.count,
            isPlaceholder: node.placeholder != nil)
    }
}

extension Item {
    /// The item's name as people read it (“Old Mill Wheel”, "an image").
    public var quotedName: String {
        ItemNames.quoted(
            representations: representations, childCount: children?.count, isPlaceholder: placeholder != nil)
    }
}
