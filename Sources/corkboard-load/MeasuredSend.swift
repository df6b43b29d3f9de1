import CorkboardLoadKit

extension LoadContext {
    /// Sends a measured operation from `peer`, if it is joined, on `board`, which every other
    /// member of the board should receive: its opId is `tag` stamped with the send time and is
    /// registered with the metrics before `message` builds the frame from the peer's state and
    /// that opId. Returns whether it was sent.
    @discardableResult
    func sendMeasured(
        from peer: Int, board: Int, tag: String, _ message: (PeerLane.Joined, String) -> [UInt8]
    ) -> Bool {
        let expected = roster.members(board) - 1
        return hub.send(peer) { joined in
            let sent = Monotonic.nanos()
            let opId = Stamp.op(tag, sent: sent)
            metrics.registerOp(opId, board: board, expectedPeers: expected, sent: sent)
            return message(joined, opId)
        }
    }
}
