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
        .dragGranted(ServerMessage.DragGranted(ref: "r2", session: "d1", granted: ["a", "b"], refused: [])),
        .dragGranted(
            ServerMessage.DragGranted(
                ref: nil, session: "d\"3", granted: [],
                refused: [
                    LeaseTable.Refusal(item: "x", code: .locked, message: "Held by \"Ada\" (d9)."),
                    LeaseTable.Refusal(item: "y\u{2}", code: .gone, message: "No such item."),
                ])),
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
        let encoding = WireCodec.encodeCommit(committed, sender: ("r", committed.opId))
        #expect(try WireCodec.decodeServerMessage(encoding.op.bytes) == .op(committed))
        #expect(
            try WireCodec.decodeServerMessage(try #require(encoding.ack).bytes)
                == .ack(ServerMessage.Ack(ref: "r", opId: committed.opId, outcome: .committed(committed))))
    }

    @Test func otherOperationsAreLeftToJSONEncoder() {
        let delete = CommittedOperation(
            seq: 1, opId: "o", clientId: "c", op: .delete(BoardOperation.Delete(items: ["i"])), effect: Effect())
        #expect(FastJSON.committedMove(delete) == nil)
        #expect(FastJSON.encode(.pong(ServerMessage.Pong(ref: "r", head: 1))) == nil)
    }

    /// The exact bytes of `serverMessages` and `commits` through the fast path: members in the
    /// documented order, absent optionals left out (the object comparisons above ignore order).
    static let fastBytes = [
        #"{"type":"proposal","ref":"r1","session":"d1","target":{"collection":"demo-found","section":"demo-found","index":3,"intent":"insertAtDestinationIndexPath"},"proposal":{"operation":"move","intent":"unspecified"}}"#,
        #"{"type":"proposal","session":"d\u00012","target":{"board":"other \"b\"","collection":"c","section":"s","index":0,"intent":"insertIntoDestinationIndexPath"},"proposal":{"operation":"forbidden","intent":"insertIntoDestinationIndexPath","reason":"No: \\ \n é"}}"#,
        #"{"type":"dragHover","session":"d1","member":"m1","target":{"collection":"demo-found","section":"demo-found","index":3,"intent":"insertAtDestinationIndexPath"},"proposal":{"operation":"copy","intent":"unspecified"}}"#,
        #"{"type":"dragGranted","ref":"r2","session":"d1","granted":["a","b"],"refused":[]}"#,
        #"{"type":"dragGranted","session":"d\"3","granted":[],"refused":[{"item":"x","code":"locked","message":"Held by \"Ada\" (d9)."},{"item":"y\u0002","code":"gone","message":"No such item."}]}"#,
        #"{"type":"dragEnded","session":"d1","member":"m1","reason":"dropped","seq":12}"#,
        #"{"type":"dragEnded","session":"d1","member":"m1","reason":"expired"}"#,
        #"{"type":"dragStarted","session":"d1","member":"m1","items":["a","b"],"external":[["public.url"],[]]}"#,
        #"{"type":"dragStarted","session":"d1","member":"m1","items":[],"external":[],"target":{"board":"other \"b\"","collection":"c","section":"s","index":0,"intent":"insertIntoDestinationIndexPath"},"proposal":{"operation":"cancel","intent":"unspecified","reason":"gone"}}"#,
        #"{"seq":7,"opId":"o1","clientId":"c-1","op":{"kind":"move","items":["i1","i\"2"],"destination":{"collection":"c","section":"s","index":2,"after":"a","before":"b","intent":"unspecified"},"session":"m1/d1"},"effect":{"changes":[{"item":"i1","from":{"collection":"c","section":"t","group":"g","index":0},"to":{"collection":"c","section":"s","index":2}},{"item":"i\"2"}],"skipped":["i9"],"removed":[]}}"#,
        #"{"seq":8,"opId":"o2","clientId":"c-1","op":{"kind":"move","items":["i1"],"destination":{"collection":"c","section":"s","index":0,"intent":"insertIntoDestinationIndexPath","target":"t"}},"effect":{"changes":[],"skipped":[],"removed":[]}}"#,
    ]

    @Test func fastPathBytesAreExact() throws {
        let texts =
            try Self.serverMessages.map { String(decoding: try #require(FastJSON.encode($0)), as: UTF8.self) }
            + Self.commits.map { String(decoding: try #require(FastJSON.committedMove($0)), as: UTF8.self) }
        #expect(texts == Self.fastBytes)
    }

    /// Messages the fast decoder reads: it must give what JSONDecoder gives.
    static let plainClientMessages = [
        #"{"type":"dropUpdate","session":"d1","target":{"collection":"c","section":"s","index":4,"intent":"insertAtDestinationIndexPath"}}"#,
        #" { "type" : "dropUpdate" , "ref":"r1", "session":"d1", "copy":true, "key":"k", "target":{"board":"b","collection":"c","section":"s","index":0,"intent":"unspecified"} } "#,
        #"{"type":"drop","session":"d1","opId":"o1","base":3,"destination":{"collection":"c","section":"s","index":1,"after":"a","before":"b","intent":"insertAtDestinationIndexPath"}}"#,
        #"{"type":"drop","ref":"r","session":"d1","opId":"o1","base":0,"copy":false,"board":"b","key":"k","destination":{"collection":"c","section":"s","index":0,"intent":"insertIntoDestinationIndexPath","target":"t"}}"#,
        #"{"type":"submit","opId":"o1","base":12,"op":{"kind":"move","items":["i1","é"],"destination":{"collection":"c","section":"s","index":-1,"intent":"insertAtDestinationIndexPath"}}}"#,
        #"{"type":"submit","ref":"r","opId":"o1","base":0,"session":"d1","op":{"kind":"move","items":[],"session":"d1","destination":{"collection":"c","section":"s","index":0,"intent":"unspecified"}}}"#,
        #"{"type":"dragBegin","session":"d1","items":["i1"]}"#,
        #"{"type":"dragBegin","ref":"r2","session":"d1","items":["i1","é",  "i3"]}"#,
        #"{"type":"dragBegin","session":"d1","items":[]}"#,
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
        #"{"type":"dragBegin","session":"d1","items":["i1"],"external":[["public.png"]]}"#,
        #"{"type":"dragBegin","session":"d1","items":["i1"],"opId":"o1"}"#,
        #"{"type":"dragBegin","session":"d1","items":"i1"}"#,
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

/// The one-pass reader against the tree decoder it replaced (`ReferenceFastJSON`): for every
/// input, both make the same message or both leave it to `JSONDecoder`.
@Suite struct FastJSONReaderTests {
    /// A member value that is sometimes of the wrong kind.
    static func scalar(_ random: inout SplitMix64, string: String) -> String {
        switch random.next() % 60 {
        case 0: return "5"
        case 1: return "true"
        case 2: return "null"
        case 3: return #""a\u0031""#
        case 4: return "[\"x\"]"
        case 5: return "{}"
        default: return "\"\(string)\""
        }
    }

    static func int(_ random: inout SplitMix64) -> String {
        let valid = ["0", "7", "-3", "12345678901234567", "123456789012345678", "-0"]
        let invalid = ["1234567890123456789", "01", "1.5", "2e3", "-", "\"4\"", "1E2"]
        return random.next() % 8 == 0
            ? invalid[Int(random.next() % UInt64(invalid.count))] : valid[Int(random.next() % UInt64(valid.count))]
    }

    /// An object with the members given (some dropped, some repeated, one unknown now and then),
    /// in random order with random whitespace.
    static func object(_ members: [(String, String)], _ random: inout SplitMix64) -> String {
        var chosen = members.filter { _ in random.next() % 25 != 0 }
        if random.next() % 25 == 0, let first = members.first { chosen.append(first) }
        if random.next() % 25 == 0 { chosen.append(("extra", "1")) }
        for i in chosen.indices.reversed() { chosen.swapAt(i, Int(random.next() % UInt64(i + 1))) }
        func space() -> String { ["", "", "", " ", "\n", "\t ", "  "][Int(random.next() % 7)] }
        let body = chosen.map { "\(space())\"\($0.0)\"\(space()):\(space())\($0.1)\(space())" }.joined(separator: ",")
        return "{\(body)}"
    }

    static func destination(_ random: inout SplitMix64) -> String {
        object(
            [
                ("collection", scalar(&random, string: "c")), ("section", scalar(&random, string: "s")),
                ("index", int(&random)), ("after", scalar(&random, string: "a")),
                ("before", scalar(&random, string: "b")),
                ("intent", scalar(&random, string: random.next() % 20 == 0 ? "sideways" : "unspecified")),
                ("target", scalar(&random, string: "t")),
            ], &random)
    }

    static func message(_ random: inout SplitMix64) -> String {
        let copy = ["true", "false", "true", "false", "true", "false", "1", "\"yes\""][Int(random.next() % 8)]
        let items = ["[]", "[\"i1\",\"é\"]", "[ \"i1\" ]", "[\"i1\",2]", "[\"i1\",]", "\"i1\""][
            Int(random.next() % 6)]
        switch random.next() % 4 {
        case 0:
            let target = object(
                [
                    ("board", scalar(&random, string: "b")), ("collection", scalar(&random, string: "c")),
                    ("section", scalar(&random, string: "s")), ("index", int(&random)),
                    ("intent", scalar(&random, string: "insertAtDestinationIndexPath")),
                ], &random)
            return object(
                [
                    ("type", "\"dropUpdate\""), ("ref", scalar(&random, string: "r")),
                    ("session", scalar(&random, string: "p1s2t3h4")), ("target", target), ("copy", copy),
                    ("key", scalar(&random, string: "k")),
                ], &random)
        case 1:
            return object(
                [
                    ("type", "\"drop\""), ("ref", scalar(&random, string: "r")),
                    ("session", scalar(&random, string: "d")),
                    ("opId", scalar(&random, string: "o1")), ("base", int(&random)),
                    ("destination", destination(&random)), ("copy", copy), ("board", scalar(&random, string: "b")),
                    ("key", scalar(&random, string: "k")),
                ], &random)
        case 2:
            return object(
                [
                    ("type", "\"dragBegin\""), ("ref", scalar(&random, string: "r")),
                    ("session", scalar(&random, string: "d")), ("items", items),
                ], &random)
        default:
            let op = object(
                [
                    ("kind", random.next() % 20 == 0 ? "\"delete\"" : "\"move\""), ("items", items),
                    ("destination", destination(&random)), ("session", scalar(&random, string: "d")),
                ], &random)
            return object(
                [
                    ("type", "\"submit\""), ("ref", scalar(&random, string: "r")),
                    ("opId", scalar(&random, string: "o")),
                    ("base", int(&random)), ("op", op), ("session", scalar(&random, string: "d")),
                ], &random)
        }
    }

    static func same(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { FastJSON.decodeClientMessage($0) == ReferenceFastJSON.decode($0) }
    }

    @Test("the test's own messages and the plain and unusual examples read the same")
    func examples() {
        for text in FastJSONTests.plainClientMessages + FastJSONTests.unusualClientMessages {
            #expect(Self.same(Array(text.utf8)), "\(text)")
        }
    }

    @Test("20,000 generated messages (members dropped, repeated, reordered, of the wrong kind) read the same")
    func generated() {
        var random = SplitMix64(seed: 17)
        var decoded = 0
        for _ in 0..<20_000 {
            let bytes = Array(Self.message(&random).utf8)
            #expect(Self.same(bytes), "\(String(decoding: bytes, as: UTF8.self))")
            if bytes.withUnsafeBufferPointer({ FastJSON.decodeClientMessage($0) }) != nil { decoded += 1 }
        }
        // Both outcomes are exercised: the generator is not all noise.
        #expect(decoded > 2_000 && decoded < 18_000, "\(decoded) of 20,000 decoded")
    }

    @Test("byte-level mutations of valid messages (replaced, deleted, inserted bytes) read the same")
    func mutated() {
        var random = SplitMix64(seed: 99)
        let alphabet = Array(#"{}[]",:0-19.eE\ tfnru"xé"#.utf8) + [0x00, 0x1F, 0xFF, 0xC3]
        for text in FastJSONTests.plainClientMessages {
            let original = Array(text.utf8)
            for _ in 0..<3_000 {
                var bytes = original
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    let at = Int(random.next() % UInt64(bytes.count))
                    let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                    switch random.next() % 3 {
                    case 0: bytes[at] = byte
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(byte, at: at)
                    }
                    if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
                }
                #expect(Self.same(bytes), "\(bytes)")
            }
        }
    }
}
