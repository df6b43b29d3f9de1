import CorkboardModel

/// A single-item move of a random item of a board to a random place in one of its sections: what
/// the storm and soak movers send.
struct RandomMove: Sendable {
    var item: ItemID
    var place: PlannedBoard.Place
    var index: Int

    /// Draws the item, then the section, then the index (below the largest section's size plus
    /// one); `nil` on a board with no items to move.
    init?(on plan: PlannedBoard, using random: inout SplitMix64) {
        guard !plan.items.isEmpty else { return nil }
        item = plan.items[Int.random(in: 0..<plan.items.count, using: &random)]
        place = plan.sections[Int.random(in: 0..<plan.sections.count, using: &random)]
        index = Int.random(in: 0...max(0, plan.itemsPerSection), using: &random)
    }

    /// Sends the move from `peer`, if it is joined, as a measured operation on `board`
    /// (``LoadContext/sendMeasured(from:board:tag:_:)``); its opId is `tag` stamped with the send time.
    func send(from peer: Int, tag: String, board: Int, in context: LoadContext) {
        context.sendMeasured(from: peer, board: board, tag: tag) { joined, opId in
            Wire.move(
                opId: opId, base: joined.lastSeq, item: item,
                destination: Wire.place(place.collection, place.section, index: index))
        }
    }
}
