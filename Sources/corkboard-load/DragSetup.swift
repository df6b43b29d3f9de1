extension DragDriver.Timing {
    /// Hovers `hoverHz` times a second while dragging, for `dragSeconds` of every `cycleSeconds`.
    init(hoverHz: Double, dragSeconds: Double, cycleSeconds: Double) {
        func nanos(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1e9) }
        self.init(hoverInterval: nanos(1 / hoverHz), dragDuration: nanos(dragSeconds), cycle: nanos(cycleSeconds))
    }
}

extension DragDriver {
    /// A driver already dragging with the run's first `count` peers: each gets its own share of its board's
    /// items, so no two drags ask for the same item. A run split over processes drives, in each, the
    /// draggers among its own peers.
    static func started(_ context: LoadContext, draggers count: Int, timing: Timing) -> DragDriver {
        var perBoard: [Int: [Int]] = [:]
        for peer in 0..<min(count, context.peerBoards.count) {
            perBoard[context.peerBoards[peer], default: []].append(peer)
        }
        var draggers: [Dragger] = []
        for (board, peers) in perBoard {
            let items = context.boards[board].items
            for (j, peer) in peers.enumerated() {
                let mine = stride(from: j, to: items.count, by: peers.count).map { items[$0] }
                draggers.append(Dragger(peer: peer, board: board, items: mine))
            }
        }
        let driver = DragDriver(
            context, draggers: draggers.filter { context.owns($0.peer) }.sorted { $0.peer < $1.peer }, timing: timing)
        driver.start()
        return driver
    }
}
