extension Sequencer {
    /// R14: the rejection of an operation that would grow the board's snapshot past
    /// `Configuration.maxSnapshotBytes`, or `nil` when it fits.
    ///
    /// Only growth is refused: an operation that moves or removes things, or one of the room's own
    /// (`ClientIdentity.system`: placeholder clean-up), always passes, so a board over a lowered
    /// limit can still shrink. The insert half of a move from another board is growth like any
    /// insert: refused, it leaves the items where they were (the move is all or nothing).
    ///
    /// - Complexity: `Board.snapshotGrowth(of:clientId:opId:)`.
    func sizeRefusal(_ operation: ClientOperation) -> Rejection? {
        guard operation.clientId != ClientIdentity.system else { return nil }
        let growth = board.snapshotGrowth(of: operation.op, clientId: operation.clientId, opId: operation.opId)
        let size = board.limitedSnapshotBytes
        let limit = configuration.maxSnapshotBytes
        guard growth > 0, size + growth > limit else { return nil }
        return Rejection(
            .tooLarge,
            "This change would make the board about \(SnapshotSize.describe(size + growth)), over its limit of "
                + "\(SnapshotSize.describe(limit)) (\(limit) bytes of snapshot); nothing changed. Delete items or "
                + "move some to another board first, or ask the server's operator to raise --max-board-bytes.",
            field: "op")
    }
}
