extension ServerMessage {
    /// `redirect`: the board is sequenced by another node of the cluster. The connection closes
    /// 4005 after it; the client connects to `url` (or, without one, to any of its entry URLs) and
    /// sends its `hello` again, resuming (R10) if it had joined.
    public struct Redirect: Hashable, Codable, Sendable {
        /// The `hello`'s ref, when this answers a `hello`.
        public var ref: String?
        /// The board.
        public var board: String
        /// The WebSocket URL of the node that sequences the board (`--public-url`); absent while the
        /// board is between nodes (its previous node stopped and the next has not taken it yet).
        public var url: String?
        /// Why, in a sentence.
        public var reason: String

        /// Creates the message.
        public init(ref: String? = nil, board: String, url: String?, reason: String) {
            self.ref = ref
            self.board = board
            self.url = url
            self.reason = reason
        }
    }
}
