import CorkboardJSON
import CorkboardModel
import CorkboardProtocol
import Foundation

/// The malformed, unknown, oversized and out-of-range messages `--bad-input` sends, each with the
/// error codes docs/PROTOCOL.md says it must get.
///
/// Every case must be answered by exactly one `error` and change nothing: no ack, no committed
/// operation, no lease. Bots send at most one bad message per ``minimumInterval`` so the server's
/// limit (more than 20 errors in 10 s closes the connection 1008) is never reached. Frames larger
/// than the server's message limit are left out: the transport closes such a connection (1009)
/// before the protocol sees it.
enum BadInput {
    /// What a case needs from the bot: fresh identifiers and something of the board to name.
    struct Context {
        /// A fresh `ref`, also used as `opId` and session, starting with ``prefix``.
        var ref: String
        /// An item of the board, or a made-up one on an empty board.
        var item: ItemID
        /// A collection and one of its sections.
        var collection: CollectionID
        /// A section of `collection`.
        var section: SectionID
        /// The board id.
        var board: String
    }

    /// One bad message and the error it must get.
    struct Case: Sendable {
        /// A short name for reports.
        var name: String
        /// The acceptable error codes.
        var expected: Set<ErrorCode>
        /// Whether the error must echo the context's ref (the server can read it from the message).
        var echoesRef: Bool
        /// Whether the frame is text (a binary frame is refused as `bad-json`).
        var isText = true
        /// The frame.
        var frame: @Sendable (Context) -> [UInt8]
    }

    /// Every ref, opId and session of a bad message starts with this, so the checks can find them.
    static let prefix = "bad-"

    /// The least time between two bad messages of one bot (at most 14 in any 10 s).
    static let minimumInterval = Duration.milliseconds(750)

    /// The cases, sent in turn (each bot starts at a different one).
    static let catalog: [Case] = [
        Case(name: "truncated JSON", expected: [.badJSON], echoesRef: false) { _ in
            Array(#"{"type":"ping","ref":"#.utf8)
        },
        Case(name: "binary frame", expected: [.badJSON], echoesRef: false, isText: false) { c in
            WireCodec.encode(.ping(ClientMessage.Ping(ref: c.ref)))
        },
        Case(name: "JSON array", expected: [.badJSON], echoesRef: false) { _ in Array("[1,2,3]".utf8) },
        Case(name: "unknown type", expected: [.unknownType], echoesRef: true) { c in
            Array(#"{"type":"teleport","ref":\#(quoted(c.ref))}"#.utf8)
        },
        Case(name: "missing type", expected: [.unknownType], echoesRef: true) { c in
            Array(#"{"ref":\#(quoted(c.ref)),"session":"s"}"#.utf8)
        },
        Case(name: "missing op", expected: [.missingField], echoesRef: true) { c in
            Array(#"{"type":"submit","ref":\#(quoted(c.ref)),"opId":\#(quoted(c.ref)),"base":0}"#.utf8)
        },
        Case(name: "string for a number", expected: [.invalidField], echoesRef: true) { c in
            Array(#"{"type":"sync","ref":\#(quoted(c.ref)),"lastSeq":"zero"}"#.utf8)
        },
        Case(name: "unknown operation kind", expected: [.invalidField], echoesRef: true) { c in
            Array(
                (#"{"type":"submit","ref":\#(quoted(c.ref)),"opId":\#(quoted(c.ref)),"base":0,"#
                    + #""op":{"kind":"explode","items":[\#(quoted(c.item.rawValue))]}}"#).utf8)
        },
        Case(name: "unknown intent", expected: [.invalidField], echoesRef: true) { c in
            Array(
                (#"{"type":"submit","ref":\#(quoted(c.ref)),"opId":\#(quoted(c.ref)),"base":0,"op":{"kind":"move","#
                    + #""items":[\#(quoted(c.item.rawValue))],"destination":{"collection":"#
                    + #"\#(quoted(c.collection.rawValue)),"section":\#(quoted(c.section.rawValue)),"index":0,"#
                    + #""intent":"sideways"}}}"#).utf8)
        },
        Case(name: "negative index", expected: [.invalidField], echoesRef: true) { c in
            submit(c, .move(BoardOperation.Move(items: [c.item], destination: destination(c, index: -1))))
        },
        Case(name: "index over the limit", expected: [.invalidField], echoesRef: true) { c in
            WireCodec.encode(
                .dropUpdate(
                    ClientMessage.DropUpdate(
                        ref: c.ref, session: c.ref,
                        target: DragTarget(
                            collection: c.collection, section: c.section, index: ProtocolLimits.maxIndex + 1))))
        },
        Case(name: "negative base", expected: [.invalidField], echoesRef: true) { c in
            submit(c, .move(BoardOperation.Move(items: [c.item], destination: destination(c, index: 0))), base: -1)
        },
        Case(name: "oversized opId", expected: [.invalidField], echoesRef: true) { c in
            let opId = c.ref + String(repeating: "x", count: ProtocolLimits.maxTokenBytes + 1)
            return WireCodec.encode(
                .submit(
                    ClientMessage.Submit(
                        ref: c.ref, opId: opId, base: 0,
                        op: .delete(BoardOperation.Delete(items: [c.item])))))
        },
        Case(name: "too many items", expected: [.invalidField], echoesRef: true) { c in
            let items = (0...ProtocolLimits.maxItemsPerDrag).map { ItemID("\(c.ref)-\($0)") }
            return WireCodec.encode(.dragBegin(ClientMessage.DragBegin(ref: c.ref, session: c.ref, items: items)))
        },
        Case(name: "empty drag", expected: [.invalidField], echoesRef: true) { c in
            WireCodec.encode(.dragBegin(ClientMessage.DragBegin(ref: c.ref, session: c.ref, items: [])))
        },
        Case(name: "oversized name", expected: [.invalidField], echoesRef: true) { c in
            WireCodec.encode(
                .hello(
                    ClientMessage.Hello(
                        ref: c.ref, board: c.board, key: nil,
                        name: String(repeating: "n", count: ProtocolLimits.maxNameCharacters + 1))))
        },
        Case(name: "second hello", expected: [.alreadyJoined], echoesRef: true) { c in
            WireCodec.encode(.hello(ClientMessage.Hello(ref: c.ref, board: c.board, key: nil, name: "again")))
        },
        Case(name: "unsupported protocol", expected: [.unsupportedProtocol], echoesRef: true) { c in
            WireCodec.encode(
                .hello(ClientMessage.Hello(ref: c.ref, protocol: 99, board: c.board, key: nil, name: "future")))
        },
        Case(name: "hover without a drag", expected: [.unknownSession], echoesRef: true) { c in
            WireCodec.encode(
                .dropUpdate(
                    ClientMessage.DropUpdate(
                        ref: c.ref, session: c.ref,
                        target: DragTarget(collection: c.collection, section: c.section, index: 0))))
        },
        Case(name: "drop without a drag", expected: [.unknownSession], echoesRef: true) { c in
            WireCodec.encode(
                .drop(
                    ClientMessage.Drop(
                        ref: c.ref, session: c.ref, opId: c.ref, base: 0, destination: destination(c, index: 0))))
        },
        Case(name: "client moveOut", expected: [.invalidField], echoesRef: true) { c in
            submit(c, .moveOut(BoardOperation.Delete(items: [c.item])))
        },
        Case(name: "insert naming an id", expected: [.invalidField], echoesRef: true) { c in
            submit(
                c,
                .insert(
                    BoardOperation.Insert(
                        items: [
                            NewItem(
                                id: ItemID(c.ref),
                                representations: [Representation(type: "public.plain-text", value: "x")])
                        ], destination: destination(c, index: 0))))
        },
        Case(name: "cursor out of range", expected: [.invalidField], echoesRef: false) { _ in
            WireCodec.encode(.cursor(ClientMessage.Cursor(x: ProtocolLimits.maxCoordinate * 10, y: 0)))
        },
        Case(name: "negative lastSeq", expected: [.invalidField], echoesRef: true) { c in
            WireCodec.encode(.sync(ClientMessage.Sync(ref: c.ref, lastSeq: -1)))
        },
        Case(name: "oversized ref", expected: [.invalidField], echoesRef: false) { c in
            WireCodec.encode(
                .ping(ClientMessage.Ping(ref: c.ref + String(repeating: "r", count: ProtocolLimits.maxTokenBytes))))
        },
    ]

    private static func submit(_ c: Context, _ op: BoardOperation, base: Int = 0) -> [UInt8] {
        WireCodec.encode(.submit(ClientMessage.Submit(ref: c.ref, opId: c.ref, base: base, op: op)))
    }

    private static func destination(_ c: Context, index: Int) -> Destination {
        Destination(collection: c.collection, section: c.section, index: index)
    }

    /// A string as a JSON string literal.
    static func quoted(_ string: String) -> String { JSONString.quoted(string) }
}

/// What `--bad-input` found: every bad message must get one error with an expected code, and
/// nothing may change.
struct BadInputTally: Sendable, Codable {
    /// Bad messages sent.
    var sent = 0
    /// Answered by an error with an expected code (and ref).
    var answered = 0
    /// Bad messages sent, by case name.
    var cases: [String: Int] = [:]
    /// Answered with another code or ref: what was expected and what came.
    var wrongAnswers: [String] = []
    /// Not answered within the timeout.
    var unanswered: [String] = []
    /// Bad messages that changed something: an answer other than an error, a committed operation.
    var changes: [String] = []

    /// Whether every bad message got its error and nothing changed.
    var passed: Bool { answered == sent && wrongAnswers.isEmpty && unanswered.isEmpty && changes.isEmpty }

    /// Adds another bot's findings (lists are capped at 20 entries).
    mutating func add(_ other: BadInputTally) {
        sent += other.sent
        answered += other.answered
        cases.merge(other.cases, uniquingKeysWith: +)
        wrongAnswers += other.wrongAnswers.prefix(max(0, 20 - wrongAnswers.count))
        unanswered += other.unanswered.prefix(max(0, 20 - unanswered.count))
        changes += other.changes.prefix(max(0, 20 - changes.count))
    }
}
