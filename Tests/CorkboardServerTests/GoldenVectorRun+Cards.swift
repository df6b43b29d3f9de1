import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Foundation
import Testing

extension VectorRun {
    /// A change of a card's details, of the board's labels or of a comment (R16), on what the
    /// board holds now, sometimes stale or naming what is not there, so every refusal occurs too.
    mutating func cardOperation() -> (String, BoardOperation) {
        let board = sequencer.board
        let client = pick(clients)
        let item = pick(board.allItemIDs.sorted() + ["ghost"])
        let seen = board.details(of: item) ?? CardDetails()
        let labelIDs: [LabelID] = ["l-red", "l-blue", "l-gone"]
        let people = ["Ada", "Bob", "Cy", " "]
        let files = [
            Attachment(
                url: "/files/demo/\(String(repeating: "a", count: 64)).bin", name: "Plan.pdf", type: "application/pdf",
                bytes: 1234),
            Attachment(
                url: "/files/demo/\(String(repeating: "b", count: 64)).png", name: "map.png", type: "image/png",
                bytes: 78),
            Attachment(
                url: "/files/demo/\(String(repeating: "c", count: 64)).gif", name: " ", type: "image/gif", bytes: 5),
        ]
        switch Int.random(in: 0..<20, using: &rng) {
        case 10...19:
            // Mostly a card that has checklists already, so that their items pile up and change.
            let listed = board.allItemIDs.sorted().filter { board.details(of: $0)?.checklists.isEmpty == false }
            let card = listed.isEmpty || chance(20) ? item : pick(listed)
            let step = Int.random(in: 0..<1000, using: &rng)
            return (
                client,
                .randomChecklistChange(on: card, seen: board.details(of: card) ?? CardDetails(), me: client, step: step)
                {
                    Int.random(in: 0..<$0, using: &rng)
                }
            )
        case 0:
            let colors = LabelColor.allCases
            return (
                client,
                .setLabel(
                    .init(
                        label: Label(id: pick(Array(labelIDs.prefix(2))), name: pick(Self.texts), color: pick(colors)),
                        index: chance(50) ? nil : Int.random(in: 0...2, using: &rng)))
            )
        case 1:
            return (client, .deleteLabel(.init(label: pick(labelIDs))))
        case 2, 3:
            return (
                client, .addComment(.init(item: item, text: chance(10) ? " " : pick(Self.texts) + "!", name: client))
            )
        case 4, 5:
            // Someone's comment, edited or deleted by its author or, now and then, by another client.
            let commented = board.allItemIDs.sorted().filter { board.details(of: $0)?.comments.isEmpty == false }
            guard !commented.isEmpty else { return cardOperation() }
            let card = pick(commented)
            let comment = pick(board.details(of: card)!.comments)
            let who = chance(75) ? comment.author : client
            let version = comment.version - (chance(25) ? 1 : 0)
            return (
                who,
                chance(40)
                    ? .deleteComment(.init(item: card, comment: comment.id))
                    : .editComment(
                        .init(item: card, comment: comment.id, text: pick(Self.texts) + "?", version: version))
            )
        default:
            let stale = chance(20) ? 1 : 0
            return (
                client,
                .updateCard(
                    .init(
                        item: item,
                        description: chance(40)
                            ? .init(pick(Self.texts), version: chance(20) ? nil : seen.descriptionVersion - stale)
                            : nil,
                        dates: chance(30)
                            ? .init(
                                due: Int.random(in: 0...2_000_000_000_000, using: &rng),
                                start: chance(30) ? Int.random(in: 0...2_000_000_000_000, using: &rng) : nil,
                                version: chance(20) ? nil : seen.datesVersion - stale) : nil,
                        done: chance(40) ? chance(50) : nil, assign: chance(40) ? [pick(people)] : nil,
                        unassign: chance(20) ? [pick(people)] : nil, addLabels: chance(40) ? [pick(labelIDs)] : nil,
                        removeLabels: chance(20) ? [pick(labelIDs)] : nil,
                        attach: chance(25) ? [pick(files)] : nil, detach: chance(15) ? [pick(files).url] : nil,
                        cover: chance(20) ? pick(["", files[0].url, files[1].url]) : nil))
            )
        }
    }
}
