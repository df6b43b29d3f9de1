import CorkboardModel
import CorkboardStorage
import Foundation
import Testing

/// `TrelloImport`: a Trello board export converted into a new board, every Corkboard bound kept.
struct TrelloImportTests {
    /// A fixture file of `Tests/Fixtures/trello`.
    private func fixture(_ name: String) throws -> Data {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/trello/\(name)")
        return try Data(contentsOf: url)
    }

    private func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object)
    }

    private func details(_ board: Board, _ item: String) -> CardDetails? {
        board.collections.flatMap { $0.sections.flatMap(\.items) }.first { $0.id == ItemID(item) }?.details
    }

    @Test("lists become collections in pos order, cards in pos order, closed ones left out and counted")
    func structure() throws {
        let converted = try TrelloImport.convert(try fixture("trello-board.json"), boardID: "t")
        let board = converted.board
        #expect(converted.title == "Trip ✈️ planning")
        #expect(board.collections.map(\.title) == ["Ideas", "To do 📝", "Empty"])
        #expect(board.collections.map(\.id.rawValue) == ["t-list-list-ideas", "t-list-list-todo", "t-list-list-empty"])
        let todo = board.collections[1].sections[0].items
        #expect(todo.map(\.id.rawValue) == ["t-card-card-pack", "t-card-card-flights"])
        #expect(todo[1].representations[1] == Representation(type: "public.plain-text", value: "Book flights ✈️"))
        #expect(board.quotedName(of: ItemID("t-card-card-pack")) == "“Pack 🎒”")
        #expect(board.collections[2].sections[0].items.isEmpty)
        #expect(board.checkInvariants().isEmpty)
        let report = converted.report
        #expect(report.lists == 3)
        #expect(report.cards == 3)
        #expect(report.closedLists == 1)
        #expect(report.closedCards == 2)
        #expect(!board.allItemIDs.contains(ItemID("t-card-card-archived")))
        #expect(!board.allItemIDs.contains(ItemID("t-card-card-in-old")))
    }

    @Test("labels keep their names or are named after their colour; Trello colours map to the palette")
    func labels() throws {
        let converted = try TrelloImport.convert(try fixture("trello-board.json"), boardID: "t")
        let labels = converted.board.labels
        #expect(labels.map(\.name) == ["Urgent 🔥", "red", "Later", "gray"])
        #expect(labels.map(\.color) == [.green, .red, .green, .gray])
        #expect(converted.report.labels == 4)
        #expect(
            details(converted.board, "t-card-card-flights")?.labels == [
                LabelID("t-label-lab1"), LabelID("t-label-lab2"),
            ])
        #expect(TrelloImport.color("sky_light") == .sky)
        #expect(TrelloImport.color("black") == .gray)
        #expect(TrelloImport.color("purple") == .purple)
    }

    @Test("description, due date, done, checklists and attachment links on a card")
    func cardDetails() throws {
        let converted = try TrelloImport.convert(try fixture("trello-board.json"), boardID: "t")
        let flights = try #require(details(converted.board, "t-card-card-flights"))
        #expect(flights.due == 1_772_357_400_000)
        #expect(flights.done)
        #expect(
            flights.description
                == """
                Compare **prices** first.

                ### Attachments

                - [Itinerary](https://example.com/itinerary.pdf)
                """)
        #expect(flights.problem == nil)
        // Trello's checklists are the card's checklists, items in `pos` order, "complete" checked.
        #expect(flights.checklists.map(\.name) == ["Before leaving"])
        #expect(flights.checklists.first?.items.map(\.text) == ["Tickets", "Passport"])
        #expect(flights.checklists.first?.items.map(\.done) == [false, true])
        #expect(converted.report.checklists == 1)
        #expect(converted.report.checklistItems == 2)
        #expect(converted.report.attachments == 1)
        let pack = try #require(details(converted.board, "t-card-card-pack"))
        #expect(pack.due == nil)
        #expect(!pack.done)
    }

    @Test("commentCard actions become comments, oldest first, with author name and original time")
    func comments() throws {
        let converted = try TrelloImport.convert(try fixture("trello-board.json"), boardID: "t")
        let thread = try #require(details(converted.board, "t-card-card-flights")).comments
        #expect(thread.map(\.text) == ["First!", "Done 👍"])
        #expect(thread.map(\.name) == ["Grace Hopper", "Ada Lovelace"])
        #expect(thread.map(\.at) == [1_767_254_400_000, 1_767_348_000_000])
        #expect(thread.map(\.id.rawValue) == ["trello:act1", "trello:act3"])
        // The blank comment on "Pack" is left out; the long one is cut.
        let pack = try #require(details(converted.board, "t-card-card-pack")).comments
        #expect(pack.count == 1)
        #expect(pack[0].text.utf8.count <= CardLimits.commentBytes)
        #expect(pack[0].text.hasSuffix(TrelloImport.truncationMarker))
        #expect(converted.report.comments == 3)
        #expect(converted.report.commentsLeftOut == 1)
    }

    @Test("over-long title, description and comment are cut with the marker and counted")
    func truncation() throws {
        let converted = try TrelloImport.convert(try fixture("trello-board.json"), boardID: "t")
        let item = try #require(
            converted.board.collections[0].sections[0].items.first { $0.id == ItemID("t-card-card-long") })
        #expect(item.representations[1].value.count == TrelloImport.cardTitleCharacters)
        let description = try #require(item.details).description
        #expect(description.utf8.count <= CardLimits.descriptionBytes)
        #expect(description.hasSuffix(TrelloImport.truncationMarker))
        #expect(item.details?.problem == nil)
        #expect(converted.report.truncated == 3)
    }

    @Test("past 50 labels and 500 comments a card: the rest is left out and counted")
    func countLimits() throws {
        let labels = (0..<60).map { ["id": "l\($0)", "name": "L\($0)", "color": "blue"] }
        let actions = (0..<520).map { n -> [String: Any] in
            [
                "id": "a\(n)", "type": "commentCard",
                "date": String(format: "2026-01-01T00:%02d:%02d.000Z", n / 60, n % 60),
                "data": ["text": "comment \(n)", "card": ["id": "c1"]], "memberCreator": ["fullName": "Ada"],
            ]
        }
        let export: [String: Any] = [
            "name": "Big", "labels": labels, "lists": [["id": "L", "name": "List", "closed": false, "pos": 1]],
            "cards": [
                [
                    "id": "c1", "name": "Card", "idList": "L", "closed": false, "pos": 1,
                    "idLabels": labels.map { $0["id"]! },
                ]
            ],
            "actions": actions,
        ]
        let converted = try TrelloImport.convert(try json(export), boardID: "b")
        #expect(converted.board.labels.count == CardLimits.labels)
        #expect(converted.report.labelsLeftOut == 10)
        let card = try #require(details(converted.board, "b-card-c1"))
        #expect(card.labels.count == CardLimits.labels)
        #expect(card.comments.count == CardLimits.comments)
        #expect(card.comments.first?.text == "comment 20")
        #expect(card.comments.last?.text == "comment 519")
        #expect(converted.report.commentsLeftOut == 20)
        #expect(card.problem == nil)
    }

    @Test("cards past the board size limit are left out and counted, the rest kept")
    func sizeLimit() throws {
        let cards = (0..<20).map { n -> [String: Any] in
            [
                "id": "c\(n)", "name": "Card \(n)", "desc": String(repeating: "d", count: 10_000), "idList": "L",
                "pos": n,
            ]
        }
        let export: [String: Any] = [
            "name": "Sized", "lists": [["id": "L", "name": "List", "pos": 1]], "cards": cards,
        ]
        let converted = try TrelloImport.convert(try json(export), boardID: "b", sizeLimit: 100_000)
        #expect(converted.report.cards > 0)
        #expect(converted.report.cardsLeftOutForSize > 0)
        #expect(converted.report.cards + converted.report.cardsLeftOutForSize == 20)
        #expect(converted.board.estimatedSnapshotBytes <= 100_000)
    }

    @Test("malformed JSON, non-Trello JSON and an oversized file are refused with a clear error")
    func badInput() throws {
        let malformed = try fixture("malformed.json")
        let notTrello = try fixture("not-trello.json")
        #expect(throws: TrelloImportError.self) { try TrelloImport.convert(malformed, boardID: "b") }
        do {
            _ = try TrelloImport.convert(malformed, boardID: "b")
            Issue.record("malformed JSON was converted")
        } catch {
            #expect(error.message.contains("not valid JSON"))
        }
        do {
            _ = try TrelloImport.convert(notTrello, boardID: "b")
            Issue.record("a Corkboard archive was taken for a Trello export")
        } catch {
            #expect(error.message.contains("not a Trello board export"))
        }
        do {
            _ = try TrelloImport.convert(Data(count: TrelloImport.maxFileBytes + 1), boardID: "b")
            Issue.record("an oversized file was converted")
        } catch {
            #expect(error.message.contains("at most \(TrelloImport.maxFileBytes)"))
        }
        let noID = try json(["lists": [["name": "no id"]], "cards": []])
        do {
            _ = try TrelloImport.convert(noID, boardID: "b")
            Issue.record("a list without an id was converted")
        } catch {
            #expect(error.message.contains("lists.0"))
        }
    }
}
