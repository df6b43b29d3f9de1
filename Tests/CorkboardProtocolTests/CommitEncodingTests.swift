import CorkboardModel
import CorkboardProtocol
import Foundation
import Testing

/// `WireCodec.encodeCommit` encodes a committed operation once for the peers' `op`, the sender's
/// `ack` and the store's record; each must decode to exactly what is encoded one by one.
struct CommitEncodingTests {
    static let committed = CommittedOperation(
        seq: 42, opId: "op-\"7\"", clientId: "c-1",
        op: .move(
            BoardOperation.Move(
                items: ["demo-gc1", "demo-gc2"],
                destination: Destination(collection: "demo-found", section: "demo-found", index: 1, after: "demo-gc9"),
                session: "m1/d1")),
        effect: Effect(changes: [
            ItemChange(
                item: "demo-gc1", from: Position(collection: "demo-caches", section: "demo-to-find", index: 0),
                to: Position(collection: "demo-found", section: "demo-found", index: 1))
        ]))

    @Test(arguments: [nil, "r1", "quote \" backslash \\ newline \n tab \t bell \u{7} é"])
    func opAndAckDecodeLikeSeparateEncodings(ref: String?) throws {
        let committed = Self.committed
        let encoding = WireCodec.encodeCommit(committed, sender: (ref, committed.opId))
        let op = encoding.op
        let ack = try #require(encoding.ack)
        #expect(try WireCodec.decodeServerMessage(op.bytes) == .op(committed))
        #expect(
            try WireCodec.decodeServerMessage(ack.bytes)
                == .ack(ServerMessage.Ack(ref: ref, opId: committed.opId, outcome: .committed(committed))))
        #expect(op.type == "op" && ack.type == "ack")
        #expect(!op.isEphemeral && !ack.isEphemeral)
        // Valid JSON on its own, for any client's parser.
        #expect(try JSONSerialization.jsonObject(with: Data(ack.bytes)) is [String: Any])
        #expect(encoding.record == WireCodec.encode(committed))
    }

    /// An operation without a sender (the room's own, half of a move between boards) goes out as
    /// an `op` to everyone, and the store's record is the same bytes the `op` was made from.
    @Test func withoutSenderOnlyTheOpAndTheRecord() throws {
        let committed = Self.committed
        let encoding = WireCodec.encodeCommit(committed, sender: nil)
        #expect(encoding.ack == nil)
        #expect(try WireCodec.decodeServerMessage(encoding.op.bytes) == .op(committed))
        let record = try #require(encoding.record)
        #expect(try JSONDecoder().decode(CommittedOperation.self, from: Data(record)) == committed)
        #expect(Array(encoding.op.bytes.suffix(record.count - 1)) == Array(record.dropFirst()))
    }
}
