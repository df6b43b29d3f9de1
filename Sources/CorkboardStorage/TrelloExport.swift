import Foundation

/// The parts of a Trello board export (the JSON of "Print, export and share → Export as JSON") that
/// the importer reads; every other field is ignored.
///
/// Shape: `{"name":"…","lists":[{"id","name","closed","pos"}],"cards":[{"id","name","desc","idList",`
/// `"idLabels","due","start","dueComplete","closed","pos","idChecklists","attachments":[{"name","url"}]}],`
/// `"labels":[{"id","name","color"}],"checklists":[{"id","idCard","name","pos","checkItems":[{"name",`
/// `"state","pos"}]}],"actions":[{"id","type","date","data":{"card":{"id"},"text"},"memberCreator":`
/// `{"fullName","username"}}]}`. Trello writes `null` for many absent values, so every field is optional.
struct TrelloExport: Decodable {
    var name: String?
    var lists: [List]
    var cards: [Card]
    var labels: [Label]?
    var checklists: [Checklist]?
    var actions: [Action]?

    struct List: Decodable {
        var id: String
        var name: String?
        var closed: Bool?
        var pos: TrelloPosition?
    }

    struct Card: Decodable {
        var id: String
        var name: String?
        var desc: String?
        var idList: String?
        var idLabels: [String]?
        var due: String?
        var start: String?
        var dueComplete: Bool?
        var closed: Bool?
        var pos: TrelloPosition?
        var idChecklists: [String]?
        var attachments: [Attachment]?
    }

    struct Attachment: Decodable {
        var name: String?
        var url: String?
    }

    struct Label: Decodable {
        var id: String
        var name: String?
        var color: String?
    }

    struct Checklist: Decodable {
        var id: String
        var idCard: String?
        var name: String?
        var pos: TrelloPosition?
        var checkItems: [CheckItem]?
    }

    struct CheckItem: Decodable {
        var id: String?
        var name: String?
        var state: String?
        var pos: TrelloPosition?
    }

    struct Action: Decodable {
        var id: String?
        var type: String?
        var date: String?
        var data: ActionData?
        var memberCreator: Member?
    }

    struct ActionData: Decodable {
        var card: CardReference?
        var text: String?
    }

    struct CardReference: Decodable {
        var id: String?
    }

    struct Member: Decodable {
        var id: String?
        var fullName: String?
        var username: String?
    }
}

/// A Trello `pos`: a number, written by some exports as a string ("16384") or `"top"`/`"bottom"`.
struct TrelloPosition: Decodable, Comparable {
    var value: Double

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            value = number
        } else if let text = try? container.decode(String.self) {
            value = Double(text) ?? (text == "top" ? -.greatestFiniteMagnitude : .greatestFiniteMagnitude)
        } else {
            value = .greatestFiniteMagnitude
        }
    }

    static func < (a: TrelloPosition, b: TrelloPosition) -> Bool { a.value < b.value }
}

extension Array {
    /// The elements sorted by a Trello `pos`, keeping the file's order among equal or missing ones.
    func sortedByTrelloPosition(_ position: (Element) -> TrelloPosition?) -> [Element] {
        enumerated().sorted { a, b in
            let pa = position(a.element)?.value ?? .greatestFiniteMagnitude
            let pb = position(b.element)?.value ?? .greatestFiniteMagnitude
            return pa == pb ? a.offset < b.offset : pa < pb
        }.map(\.element)
    }
}
