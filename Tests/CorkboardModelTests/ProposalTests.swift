import CorkboardModel
import Testing

@Suite("Proposals (dropUpdate)")
struct ProposalTests {
    let board: Board = {
        var b = makeBoard(
            ["s1": ["a", "g", "b"]],
            extra: [BoardCollection(id: "p", accepts: ["public.image"], sections: [Section(id: "p1")])])
        _ = try! b.apply(move(["b"], to: .into("g", collection: "c", section: "s1")), clientId: "x", opId: "1")
        return b
    }()
    let here = HoverTarget(collection: "c", section: "s1", index: 0)

    @Test("Proposal: move on the same board, copy from elsewhere or when asked")
    func moveOrCopy() {
        #expect(
            board.proposal(items: ["a"], at: here) == Proposal(operation: .move, intent: .insertAtDestinationIndexPath))
        #expect(board.proposal(items: ["a"], at: here, copyRequested: true).operation == .copy)
        #expect(board.proposal(items: [], foreignTypes: [["public.url"]], at: here).operation == .copy)
    }

    @Test("Proposal: cancel when no items are left or the destination is missing")
    func cancel() {
        #expect(board.proposal(items: ["zz"], at: here).operation == .cancel)
        #expect(
            board.proposal(items: ["a"], at: HoverTarget(collection: "c", section: "nope", index: 0)).operation
                == .cancel)
        #expect(
            board.proposal(items: ["a"], at: HoverTarget(collection: "p", section: "s1", index: 0)).operation == .cancel
        )
    }

    @Test("Proposal: forbidden for viewers, unaccepted types and cycles; intent follows the target")
    func forbidden() {
        #expect(board.proposal(items: ["a"], at: here, canEdit: false).operation == .forbidden)
        let photos = HoverTarget(collection: "p", section: "p1", index: 0)
        #expect(board.proposal(items: ["a"], at: photos).operation == .forbidden)
        #expect(board.proposal(items: [], foreignTypes: [["public.image.jpeg"]], at: photos).operation == .copy)
        let intoG = HoverTarget(collection: "c", section: "s1", index: 1, intent: .insertIntoDestinationIndexPath)
        #expect(
            board.proposal(items: ["a"], at: intoG)
                == Proposal(operation: .move, intent: .insertIntoDestinationIndexPath))
        #expect(board.proposal(items: ["g"], at: intoG).operation == .forbidden)
        let pastEnd = HoverTarget(collection: "c", section: "s1", index: 9, intent: .insertIntoDestinationIndexPath)
        #expect(board.proposal(items: ["a"], at: pastEnd).intent == .insertAtDestinationIndexPath)
    }
}
