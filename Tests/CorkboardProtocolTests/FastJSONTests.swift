import CorkboardModel
import Foundation
import Testing

@testable import CorkboardProtocol

/// The hand-written JSON paths must produce exactly what the Codable ones do, and leave anything
/// outside their plain subset to `JSONDecoder`.
struct FastJSONTests {
    /// The same JSON object (keys, values, absent optionals), whatever the key order.
    func sameObject(_ a: [UInt8], _ b: Data) throws -> Bool {
        let x = try JSONSerialization.jsonObject(with: Data(a)) as? NSDictionary
        let y = try JSONSerialization.jsonObject(with: b) as? NSDictionary
        return x != nil && x == y
    }

    static let target = DragTarget(collection: "demo-found", section: "demo-found", index: 3)
    static let otherTarget = DragTarget(
        board: "other \"b\"", collection: "c", section: "s", index: 0, intent: .insertIntoDestinationIndexPath)

    static let serverMessages: [ServerMessage] = [
        .proposal(
            ServerMessage.ProposalMessage(
                ref: "r1", session: "d1", target: target, proposal: Proposal(operation: .move, intent: .unspecified))),
        .proposal(
            ServerMessage.ProposalMessage(
                ref: nil, session: "d\u{1}2", target: otherTarget,
                proposal: Proposal(
                    operation: .forbidden, intent: .insertIntoDestinationIndexPath, reason: "No: \\ \n é"))
        ),
        .dragHover(
            ServerMessage.DragHover(
                session: "d1", member: "m1", target: target, proposal: Proposal(operation: .copy, intent: .unspecified))
        ),
        .dragEnded(ServerMessage.DragEnded(session: "d1", member: "m1", reason: .dropped, seq: 12)),
        .dragEnded(ServerMessage.DragEnded(session: "d1", member: "m1", reason: .expired)),
        .dragStarted(DragState(session: "d1", member: "m1", items: ["a", "b"], external: [["public.url"], []])),
        .dragStarted(
            DragState(
                session: "d1", member: "m1", items: [], external: [], target: otherTarget,
                proposal: Proposal(operation: .cancel, intent: .unspecified, reason: "gone"))),
    ]

    @Test(arguments: serverMessages)
    func serverMessagesEncodeLikeJSONEncoder(message: ServerMessage) throws {
        let fast = try #require(FastJSON.encode(message))
        #expect(try sameObject(fast, JSONEncoder().encode(message)))
        #expect(try WireCodec.decodeServerMessage(fast) == message)
        #expect(WireCodec.encode(message).bytes == fast)
    }

    static let commits: [CommittedOperation] = [
        CommittedOperation(
            seq: 7, opId: "o1", clientId: "c-1",
            op: .move(
                BoardOperation.Move(
                    items: ["i1", "i\"2"],
                    destination: Destination(
                        collection: "c", section: "s", index: 2, after: "a", before: "b", intent: .unspecified),
                    session: "m1/d1")),
            effect: Effect(
                changes: [
                    ItemChange(
                        item: "i1", from: Position(collection: "c", section: "t", group: "g", index: 0),
                        to: Position(collection: "c", section: "s", index: 2)),
                    ItemChange(item: "i\"2", from: nil, to: nil),
                ], skipped: ["i9"])),
        CommittedOperation(
            seq: 8, opId: "o2", clientId: "c-1",
            op: .move(
                BoardOperation.Move(
                    items: ["i1"], destination: .into("t", collection: "c", section: "s"))),
            effect: Effect()),
    ]

    @Test(arguments: commits)
    func committedMovesEncodeLikeJSONEncoder(committed: CommittedOperation) throws {
        let fast = try #require(FastJSON.committedMove(committed))
        #expect(try sameObject(fast, JSONEncoder().encode(committed)))
        let (op, ack) = WireCodec.encodeCommit(committed, ref: "r", opId: committed.opId)
        #expect(try WireCodec.decodeServerMessage(op.bytes) == .op(committed))
        #expect(
            try WireCodec.decodeServerMessage(ack.bytes)
                == .ack(ServerMessage.Ack(ref: "r", opId: committed.opId, outcome: .committed(committed))))
    }

    @Test func otherOperationsAreLeftToJSONEncoder() {
        let delete = CommittedOperation(
            seq: 1, opId: "o", clientId: "c", op: .delete(BoardOperation.Delete(items: ["i"])), effect: Effect())
        #expect(FastJSON.committedMove(delete) == nil)
        #expect(FastJSON.encode(.pong(ServerMessage.Pong(ref: "r", head: 1))) == nil)
    }

    /// Messages the fast decoder reads: it must give what JSONDecoder gives.
    static let plainClientMessages = [
        #"{"type":"dropUpdate","session":"d1","target":{"collection":"c","section":"s","index":4,"intent":"insertAtDestinationIndexPath"}}"#,
        #" { "type" : "dropUpdate" , "ref":"r1", "session":"d1", "copy":true, "key":"k", "target":{"board":"b","collection":"c","section":"s","index":0,"intent":"unspecified"} } "#,
        #"{"type":"drop","session":"d1","opId":"o1","base":3,"destination":{"collection":"c","section":"s","index":1,"after":"a","before":"b","intent":"insertAtDestinationIndexPath"}}"#,
        #"{"type":"drop","ref":"r","session":"d1","opId":"o1","base":0,"copy":false,"board":"b","key":"k","destination":{"collection":"c","section":"s","index":0,"intent":"insertIntoDestinationIndexPath","target":"t"}}"#,
        #"{"type":"submit","opId":"o1","base":12,"op":{"kind":"move","items":["i1","é"],"destination":{"collection":"c","section":"s","index":-1,"intent":"insertAtDestinationIndexPath"}}}"#,
        #"{"type":"submit","ref":"r","opId":"o1","base":0,"session":"d1","op":{"kind":"move","items":[],"session":"d1","destination":{"collection":"c","section":"s","index":0,"intent":"unspecified"}}}"#,
    ]

    @Test(arguments: plainClientMessages)
    func plainClientMessagesDecodeLikeJSONDecoder(text: String) throws {
        let bytes = Array(text.utf8)
        let fast = try #require(bytes.withUnsafeBufferPointer { FastJSON.decodeClientMessage($0) })
        let slow = try JSONDecoder().decode(ClientMessage.self, from: Data(bytes))
        #expect(fast == slow)
    }

    /// Anything outside the plain subset goes to JSONDecoder, which decides (value or error).
    static let unusualClientMessages = [
        #"{"type":"dropUpdate","session":"d\u0031","target":{"collection":"c","section":"s","index":4,"intent":"unspecified"}}"#,
        #"{"type":"dropUpdate","session":"d1","key":null,"target":{"collection":"c","section":"s","index":4,"intent":"unspecified"}}"#,
        #"{"type":"dropUpdate","session":"d1","target":{"collection":"c","section":"s","index":4.0,"intent":"unspecified"}}"#,
        #"{"type":"dropUpdate","session":"d1","extra":1,"target":{"collection":"c","section":"s","index":4,"intent":"unspecified"}}"#,
        #"{"type":"dropUpdate","session":"d1","session":"d2","target":{"collection":"c","section":"s","index":4,"intent":"unspecified"}}"#,
        #"{"type":"dropUpdate","session":"d1","target":{"collection":"c","section":"s","index":4,"intent":"sideways"}}"#,
        #"{"type":"dropUpdate","session":"d1","target":{"collection":"c","section":"s","index":01,"intent":"unspecified"}}"#,
        #"{"type":"dropUpdate","session":"d1","target":{"collection":"c","section":"s","index":99999999999999999999,"intent":"unspecified"}}"#,
        #"{"type":"submit","opId":"o1","base":0,"op":{"kind":"delete","items":["i1"]}}"#,
        #"{"type":"drop","session":"d1","opId":"o1","base":0,"destination":{"collection":"c","section":"s","index":1,"intent":"unspecified"}} x"#,
        #"{"type":"ping"}"#,
    ]

    @Test(arguments: unusualClientMessages)
    func unusualClientMessagesAreLeftToJSONDecoder(text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { FastJSON.decodeClientMessage($0) } == nil)
        // Whatever JSONDecoder makes of it, the codec makes of it too (before validation).
        if let slow = try? JSONDecoder().decode(ClientMessage.self, from: Data(bytes)),
            let codec = try? WireCodec.decodeClientMessage(bytes)
        {
            #expect(slow == codec)
        }
    }

    @Test func invalidUTF8IsLeftToJSONDecoder() {
        var bytes = Array(
            #"{"type":"dropUpdate","session":"dX","target":{"collection":"c","section":"s","index":4,"intent":"unspecified"}}"#
                .utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "X"))!] = 0xFF
        #expect(bytes.withUnsafeBufferPointer { FastJSON.decodeClientMessage($0) } == nil)
    }

    @Test func validationStillAppliesToFastMessages() {
        let text =
            #"{"type":"dropUpdate","ref":"r9","session":"d1","target":{"collection":"c","section":"s","index":-1,"intent":"unspecified"}}"#
        #expect(throws: ProtocolError.self) { try WireCodec.decodeClientMessage(Array(text.utf8)) }
        do {
            _ = try WireCodec.decodeClientMessage(Array(text.utf8))
        } catch {
            #expect(error.code == .invalidField && error.field == "target.index" && error.ref == "r9")
        }
    }
}
