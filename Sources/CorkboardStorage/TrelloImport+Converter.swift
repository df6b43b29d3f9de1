import CorkboardModel
import Foundation

extension TrelloImport {
    /// Builds the board from a decoded export, counting in `report` what it brings and leaves out.
    struct Converter {
        let export: TrelloExport
        let boardID: String
        let sizeLimit: Int
        var report = Report()
        /// The snapshot bytes the board has so far (estimated from each part's JSON).
        private var bytes = 4096
        private let encoder = JSONEncoder()
        private let dates = ISO8601DateFormatter()
        private let fractionalDates: ISO8601DateFormatter = {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter
        }()

        init(export: TrelloExport, boardID: String, sizeLimit: Int) {
            self.export = export
            self.boardID = boardID
            self.sizeLimit = sizeLimit
        }

        private func id(_ kind: String, _ trello: String) -> String { "\(boardID)-\(kind)-\(trello)" }

        mutating func board() throws(Rejection) -> Board {
            let labels = self.labels()
            let labelIDs = Dictionary(labels.map { ($0.trello, $0.label.id) }, uniquingKeysWith: { a, _ in a })
            bytes += labels.reduce(0) { $0 + $1.label.name.utf8.count + $1.label.id.rawValue.utf8.count + 40 }
            let comments = self.comments()
            let checklists = Dictionary(grouping: export.checklists ?? [], by: { $0.idCard ?? "" })
            let lists = export.lists.sortedByTrelloPosition(\.pos)
            let openLists = Set(lists.filter { $0.closed != true }.map(\.id))
            var cardsByList: [String: [TrelloExport.Card]] = [:]
            for card in export.cards.sortedByTrelloPosition(\.pos) {
                guard let list = card.idList, openLists.contains(list), card.closed != true else {
                    report.closedCards += 1
                    continue
                }
                cardsByList[list, default: []].append(card)
            }
            var collections: [BoardCollection] = []
            for list in lists {
                guard list.closed != true else {
                    report.closedLists += 1
                    continue
                }
                var title = TrelloImport.cleanLine(list.name ?? "")
                if let cut = TrelloImport.fitting(title, maxBytes: TrelloImport.collectionTitleBytes) {
                    title = cut
                    report.truncated += 1
                }
                var items: [Item] = []
                for card in cardsByList[list.id] ?? [] {
                    let item = self.item(
                        card, labels: labelIDs, checklists: checklists[card.id] ?? [], comments: comments[card.id] ?? []
                    )
                    let size = (try? encoder.encode(item).count) ?? 0
                    guard bytes + size <= sizeLimit else {
                        report.cardsLeftOutForSize += 1
                        continue
                    }
                    bytes += size
                    items.append(item)
                }
                report.lists += 1
                report.cards += items.count
                report.comments += items.reduce(0) { $0 + ($1.details?.comments.count ?? 0) }
                collections.append(
                    BoardCollection(
                        id: CollectionID(id("list", list.id)), title: title, layout: .list,
                        sections: [Section(id: SectionID(id("section", list.id)), title: "", items: items)]))
            }
            if collections.isEmpty {
                // A board with no open list still gets somewhere to put cards, as an empty board has.
                collections = BoardTemplate.empty.collections(board: boardID)
            }
            report.labels = labels.count
            return try Board(collections: collections, labels: labels.map(\.label))
        }

        /// The board's labels (the first `CardLimits.labels`), with the Trello id each came from.
        private mutating func labels() -> [(trello: String, label: Label)] {
            var result: [(trello: String, label: Label)] = []
            for label in export.labels ?? [] {
                guard result.count < CardLimits.labels else {
                    report.labelsLeftOut += 1
                    continue
                }
                var name = TrelloImport.cleanLine(label.name ?? "")
                if name.isEmpty { name = (label.color ?? "gray").replacingOccurrences(of: "_", with: " ") }
                if name.count > CardLimits.labelNameCharacters {
                    name = String(name.prefix(CardLimits.labelNameCharacters - 1)) + "…"
                    report.truncated += 1
                }
                result.append(
                    (
                        label.id,
                        Label(id: LabelID(id("label", label.id)), name: name, color: TrelloImport.color(label.color))
                    ))
            }
            return result
        }

        /// The `commentCard` actions as comments per Trello card id, oldest first, at most
        /// `CardLimits.comments` per card (the newest kept).
        private mutating func comments() -> [String: [CardComment]] {
            var result: [String: [CardComment]] = [:]
            for (index, action) in (export.actions ?? []).enumerated() where action.type == "commentCard" {
                guard let card = action.data?.card?.id else { continue }
                var text = action.data?.text ?? ""
                if text.allSatisfy(\.isWhitespace) {
                    report.commentsLeftOut += 1
                    continue
                }
                if let cut = TrelloImport.fitting(text, maxBytes: CardLimits.commentBytes) {
                    text = cut
                    report.truncated += 1
                }
                var name = TrelloImport.cleanLine(
                    action.memberCreator?.fullName ?? action.memberCreator?.username ?? "")
                if name.isEmpty { name = "Trello user" }
                if name.count > TrelloImport.authorNameCharacters {
                    name = String(name.prefix(TrelloImport.authorNameCharacters - 1)) + "…"
                }
                let comment = CardComment(
                    id: CommentID("trello:\(action.id ?? "\(card)-\(index)")"),
                    author: "trello:\(action.memberCreator?.id ?? "unknown")", name: name,
                    at: milliseconds(action.date) ?? 0, text: text)
                result[card, default: []].append(comment)
            }
            for (card, thread) in result {
                // Trello lists actions newest first; a stable sort keeps same-time comments in order.
                var sorted = thread.enumerated().sorted { a, b in
                    a.element.at == b.element.at ? a.offset > b.offset : a.element.at < b.element.at
                }.map(\.element)
                if sorted.count > CardLimits.comments {
                    report.commentsLeftOut += sorted.count - CardLimits.comments
                    sorted.removeFirst(sorted.count - CardLimits.comments)
                }
                var seen = Set<CommentID>()
                result[card] = sorted.filter { seen.insert($0.id).inserted }
            }
            return result
        }

        /// A Trello date as milliseconds since 1970 within Corkboard's range, or `nil`.
        private func milliseconds(_ text: String?) -> Int? {
            guard let text, let date = fractionalDates.date(from: text) ?? dates.date(from: text) else { return nil }
            let ms = Int((date.timeIntervalSince1970 * 1000).rounded())
            return (0...CardLimits.latestDate).contains(ms) ? ms : nil
        }

        private mutating func item(
            _ card: TrelloExport.Card, labels: [String: LabelID], checklists: [TrelloExport.Checklist],
            comments: [CardComment]
        ) -> Item {
            var title = TrelloImport.cleanLine(card.name ?? "")
            if title.isEmpty { title = "Untitled card" }
            if title.count > TrelloImport.cardTitleCharacters {
                title = String(title.prefix(TrelloImport.cardTitleCharacters - 1)) + "…"
                report.truncated += 1
            }
            var markdown = self.description(card)
            if let cut = TrelloImport.fitting(markdown, maxBytes: CardLimits.descriptionBytes) {
                markdown = cut
                report.truncated += 1
            }
            var cardLabels: [LabelID] = []
            for trello in card.idLabels ?? [] {
                if let label = labels[trello], !cardLabels.contains(label) { cardLabels.append(label) }
            }
            let due = milliseconds(card.due)
            var start = milliseconds(card.start)
            if let due, let s = start, s > due { start = nil }
            let details = CardDetails(
                description: markdown, due: due, start: start, done: card.dueComplete == true, labels: cardLabels,
                comments: comments, checklists: self.checklists(card, checklists))
            let name = (try? encoder.encode(["name": title])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return Item(
                id: ItemID(id("card", card.id)),
                representations: [
                    Representation(type: "corkboard.card", value: name),
                    Representation(type: "public.plain-text", value: title),
                ],
                details: details)
        }

        /// The card's checklists in Trello's order (`idChecklists`, then `pos`), their items by `pos`
        /// (`state` "complete" checked), within `CardLimits`: blank items and what passes the
        /// bounds are left out and counted, long texts cut.
        private mutating func checklists(_ card: TrelloExport.Card, _ checklists: [TrelloExport.Checklist])
            -> [Checklist]
        {
            let order = card.idChecklists ?? []
            let ordered = checklists.sortedByTrelloPosition(\.pos).sorted {
                (order.firstIndex(of: $0.id) ?? Int.max) < (order.firstIndex(of: $1.id) ?? Int.max)
            }
            var lists: [Checklist] = []
            var entries = 0
            for (n, checklist) in ordered.enumerated() {
                guard lists.count < CardLimits.checklists else {
                    report.checklistItemsLeftOut += checklist.checkItems?.count ?? 0
                    continue
                }
                var name = fitted(TrelloImport.cleanLine(checklist.name ?? ""))
                if name.isEmpty { name = "Checklist" }
                var list = Checklist(id: ChecklistID("k\(n)-\(checklist.id.prefix(48))"), name: name)
                for (m, item) in (checklist.checkItems ?? []).sortedByTrelloPosition(\.pos).enumerated() {
                    let text = fitted(TrelloImport.cleanLine(item.name ?? ""))
                    guard !text.isEmpty, entries < CardLimits.checklistItems else {
                        report.checklistItemsLeftOut += 1
                        continue
                    }
                    let id = ChecklistEntryID("e\(n).\(m)-\((item.id ?? "").prefix(40))")
                    list.items.append(Checklist.Entry(id: id, text: text, done: item.state == "complete"))
                    entries += 1
                }
                lists.append(list)
                report.checklists += 1
                report.checklistItems += list.items.count
            }
            return lists
        }

        /// A checklist name or item cut to `CardLimits.checklistTextCharacters` (counted when cut).
        private mutating func fitted(_ text: String) -> String {
            guard text.count > CardLimits.checklistTextCharacters else { return text }
            report.truncated += 1
            let marker = TrelloImport.truncationMarker
            return String(text.prefix(CardLimits.checklistTextCharacters - marker.count)) + marker
        }

        /// The card's `desc`, then its attachments by URL as markdown links.
        private mutating func description(_ card: TrelloExport.Card) -> String {
            var parts: [String] = []
            let desc = (card.desc ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if !desc.isEmpty { parts.append(desc) }
            let links = (card.attachments ?? []).compactMap { attachment -> String? in
                guard let url = attachment.url, url.hasPrefix("http://") || url.hasPrefix("https://") else {
                    return nil
                }
                var name = TrelloImport.cleanLine(attachment.name ?? "")
                if name.isEmpty { name = url }
                let label = name.replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]")
                let target = url.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: ")", with: "%29")
                return "- [\(label)](\(target))"
            }
            if !links.isEmpty {
                parts.append((["### Attachments", ""] + links).joined(separator: "\n"))
                report.attachments += links.count
            }
            return parts.joined(separator: "\n\n")
        }
    }
}
