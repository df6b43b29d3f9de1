import CorkboardModel
import CorkboardProtocol

/// How a member catching up (R10, R14) gets the board: the operations it missed when the room
/// holds few enough of them, else the board, inline when small, in `snapshotPart` messages under
/// flow control (`SnapshotTransfers`) when large.
enum BoardDelivery {
    /// In the `welcome` or `synced` itself: the board's JSON, spliced into the message.
    case inline(InlineBoard)
    /// In parts announced by `snapshotParts`, then the operations committed since the parts'
    /// seq, as `op` messages the member keeps until the board is whole.
    case parts(SnapshotEncoding, then: [CommittedOperation])
}

extension SnapshotTransfers {
    /// Whether a member missing operations worth `bytes` (encoded) should get the board instead:
    /// when they pass the slow-client bound and the board is smaller, or when they would come near
    /// the slow-client close (R11).
    static func prefersBoard(
        overOperationsOf bytes: Int, board: Board, _ configuration: RoomConfiguration
    ) -> Bool {
        guard bytes > configuration.slowClientBytes else { return false }
        return board.estimatedSnapshotBytes < bytes || bytes > configuration.slowClientCloseBytes / 2
    }

    /// The board at head, inline or in parts by its estimated size. Either is encoded once per
    /// seq: an encoding made at a durable seq (which no store failure can roll back) is shared by
    /// every member that needs that seq, so a crowd joining at once costs one encoding of the board
    /// and holds one copy of it. `encoded` hears of a new encoding in parts.
    ///
    /// A board in parts is not encoded again at every new seq: while the operations committed
    /// since the shared encoding are worth at most an eighth of it (`operations(since:in:)`), a
    /// joiner gets that encoding and then those operations, so a join costs the room what changed,
    /// not the board.
    mutating func delivery(
        of sequencer: Sequencer, durableHead: Int, _ configuration: RoomConfiguration,
        encoded: (SnapshotEncoding) -> Void = { _ in }
    ) -> BoardDelivery {
        if sequencer.board.estimatedSnapshotBytes <= configuration.inlineSnapshotBytes {
            if let sharedInline, sharedInline.seq == sequencer.head { return .inline(sharedInline) }
            let board = InlineBoard(seq: sequencer.head, json: WireCodec.encode(sequencer.snapshot))
            if board.seq <= durableHead { sharedInline = board }
            return .inline(board)
        }
        if let shared, let since = Self.operations(since: shared, in: sequencer) { return .parts(shared, then: since) }
        let encoding = SnapshotEncoding(sequencer.snapshot, partBytes: configuration.snapshotPartBytes)
        if encoding.seq <= durableHead { shared = encoding }
        encoded(encoding)
        return .parts(encoding, then: [])
    }

    /// The operations committed since `encoding`'s seq, when the sequencer still holds them all and
    /// they are worth at most an eighth of the encoding's bytes; else `nil` (encode the board again).
    static func operations(since encoding: SnapshotEncoding, in sequencer: Sequencer) -> [CommittedOperation]? {
        guard let ops = sequencer.operations(after: encoding.seq) else { return nil }
        var bytes = 0
        for op in ops {
            bytes += op.estimatedBytes
            if bytes > encoding.bytes / 8 { return nil }
        }
        return ops
    }

    /// A `welcome` or `synced` for a member catching up from `ops` (the operations after its last
    /// seq, `nil` when the room does not hold them all): the operations, or the board when
    /// `prefersBoard`.
    ///
    /// - Parameter message: Builds the message from operations, an inline snapshot, or a parts
    ///   descriptor (exactly one is non-`nil`).
    mutating func catchUp(
        ops: [CommittedOperation]?, sequencer: Sequencer, durableHead: Int, _ configuration: RoomConfiguration,
        encoded: (SnapshotEncoding) -> Void,
        message: ([CommittedOperation]?, Snapshot?, ServerMessage.SnapshotParts?) -> ServerMessage
    ) -> CatchUpMessage {
        if let ops {
            let withOps = WireCodec.encode(message(ops, nil, nil))
            if !Self.prefersBoard(overOperationsOf: withOps.bytes.count, board: sequencer.board, configuration) {
                return CatchUpMessage(encoded: withOps, parts: nil, operations: ops.count)
            }
        }
        switch delivery(of: sequencer, durableHead: durableHead, configuration, encoded: encoded) {
        case .inline(let board):
            return CatchUpMessage(
                encoded: WireCodec.encode(message(nil, nil, nil), snapshot: board.json), parts: nil, operations: nil)
        case .parts(let encoding, let since):
            return CatchUpMessage(
                encoded: WireCodec.encode(message(nil, nil, encoding.descriptor)), parts: encoding, operations: nil,
                following: since)
        }
    }
}

/// The board's JSON at a seq, as it goes inline in `welcome.snapshot` and `synced.snapshot`.
struct InlineBoard {
    /// The seq the board is at.
    var seq: Int
    /// `WireCodec.encode(_: Snapshot)` of the board at `seq`.
    var json: [UInt8]
}

/// A `welcome` or `synced` for a member catching up.
struct CatchUpMessage {
    /// The message.
    var encoded: EncodedMessage
    /// The board's parts, to transfer after the message (R14).
    var parts: SnapshotEncoding?
    /// How many operations it carries, when it carries operations rather than the board.
    var operations: Int?
    /// The operations committed after the parts' seq, sent as `op` messages right after the
    /// message (the member keeps them until its board is whole).
    var following: [CommittedOperation] = []
}
