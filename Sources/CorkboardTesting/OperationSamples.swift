public import CorkboardModel
import Foundation

extension DemoIDs {
    /// One operation of every kind in `BoardOperation.kinds`, on the demo template's board, as a
    /// client would send it, for table-driven tests of what each role may do (R17). The comment
    /// ones name `comment`; `restore` names `trashEntry`.
    ///
    /// A kind added to the protocol without a sample here makes this fail (`preconditionFailure`),
    /// so the tests that use it cannot pass over a kind nobody decided.
    public func sampleOperations(comment: String = "no-comment", trashEntry: String = "no-entry")
        -> [(kind: String, op: BoardOperation)]
    {
        let card = gc(1).rawValue
        let found =
            "{\"collection\":\"\(self.found.rawValue)\",\"section\":\"\(foundSection.rawValue)\",\"index\":0,"
            + "\"intent\":\"insertAtDestinationIndexPath\"}"
        let text = "[{\"type\":\"public.plain-text\",\"value\":\"Sample\"}]"
        let samples: [String: String] = [
            "move": "\"items\":[\"\(card)\"],\"destination\":\(found)",
            "copy": "\"items\":[\"\(card)\"],\"destination\":\(found)",
            "insert": "\"items\":[{\"representations\":\(text)}],\"destination\":\(found)",
            "insertPlaceholder": "\"destination\":\(found),\"representations\":\(text),\"createdAt\":1",
            "commitPlaceholder": "\"item\":\"\(card)\",\"representations\":\(text)",
            "deletePlaceholder": "\"item\":\"\(card)\"",
            "delete": "\"items\":[\"\(gc(2).rawValue)\"]",
            "moveOut": "\"items\":[\"\(card)\"]",
            "updateItem": "\"item\":\"\(card)\",\"representations\":\(text)",
            "updateCard": "\"item\":\"\(card)\",\"done\":true",
            "createCollection":
                "\"id\":\"\(board)-sample\",\"title\":\"Sample\",\"layout\":\"list\",\"accepts\":[]",
            "renameCollection": "\"collection\":\"\(caches.rawValue)\",\"title\":\"Renamed\"",
            "deleteCollection": "\"collection\":\"\(inbox.rawValue)\"",
            "moveCollection": "\"collection\":\"\(inbox.rawValue)\",\"index\":0",
            "setAccepts": "\"collection\":\"\(inbox.rawValue)\",\"accepts\":[]",
            "setLayout": "\"collection\":\"\(inbox.rawValue)\",\"layout\":\"grid\"",
            "createSection": "\"collection\":\"\(caches.rawValue)\",\"id\":\"\(board)-later\",\"title\":\"Later\"",
            "renameSection": "\"section\":\"\(toFind.rawValue)\",\"title\":\"Renamed\"",
            "deleteSection": "\"section\":\"\(toFind.rawValue)\"",
            "moveSection": "\"section\":\"\(toFind.rawValue)\",\"index\":0",
            "renameBoard": "\"title\":\"Renamed\"",
            "batch": "\"ops\":[{\"kind\":\"renameBoard\",\"title\":\"Batched\"}]",
            "setLabel": "\"label\":{\"id\":\"l-urgent\",\"name\":\"Urgent\",\"color\":\"red\"}",
            "deleteLabel": "\"label\":\"l-urgent\"",
            "addComment": "\"item\":\"\(card)\",\"text\":\"Looks good\"",
            "editComment": "\"item\":\"\(card)\",\"comment\":\"\(comment)\",\"text\":\"Edited\"",
            "deleteComment": "\"item\":\"\(card)\",\"comment\":\"\(comment)\"",
            "restore": "\"entry\":\"\(trashEntry)\"",
            "emptyTrash": "",
            "checklist": "\"item\":\"\(card)\",\"checklist\":\"k-sample\",\"action\":\"add\",\"name\":\"Sample\"",
        ]
        return BoardOperation.kinds.map { kind in
            guard let fields = samples[kind] else {
                preconditionFailure("No sample operation of kind \(kind): add one to sampleOperations.")
            }
            let json = "{\"kind\":\"\(kind)\"\(fields.isEmpty ? "" : ",")\(fields)}"
            do {
                return (kind, try JSONDecoder().decode(BoardOperation.self, from: Data(json.utf8)))
            } catch {
                preconditionFailure("The sample \(json) does not decode: \(error)")
            }
        }
    }
}
