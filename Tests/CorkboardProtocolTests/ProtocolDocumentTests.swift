import CorkboardModel
import CorkboardProtocol
import Foundation
import Testing

/// Keeps docs/PROTOCOL.md honest: every `json` example must decode with the server's codec (client
/// messages are validated too) and survive a round trip, and every message type, operation kind,
/// error code, rejection code, close code and limit must be in the document.
@Suite("docs/PROTOCOL.md matches the code")
struct ProtocolDocumentTests {
    @Test("Every json block decodes as a message of its section's direction")
    func everyBlockDecodes() throws {
        let document = try ProtocolDocument.load()
        #expect(document.blocks.count >= 40, "Expected the document's examples; found \(document.blocks.count).")
        for block in document.blocks {
            if case .failure(let reason) = block.decoded {
                Issue.record("docs/PROTOCOL.md line \(block.line): \(reason)")
            }
        }
    }

    @Test("Every field of every example is part of its message")
    func examplesRoundTrip() throws {
        let document = try ProtocolDocument.load()
        for block in document.blocks {
            guard case .success(let message) = block.decoded else { continue }
            let original = try JSONSerialization.jsonObject(with: Data(block.text.utf8))
            let reencoded = try JSONSerialization.jsonObject(with: Data(message.encoded))
            for problem in differences(original, reencoded, path: "") {
                let why = "a misspelled or unknown field is ignored by the decoder, so the example misleads"
                Issue.record("docs/PROTOCOL.md line \(block.line): \(problem) (\(why))")
            }
        }
    }

    @Test("Every client and server message type has an example")
    func messageTypesHaveExamples() throws {
        let document = try ProtocolDocument.load()
        let clientTypes = Set(document.messages.compactMap { $0.client?.type })
        let missing = [
            ("client", ClientMessage.types.filter { !clientTypes.contains($0) }),
            (
                "server",
                unshown(serverTypes, by: serverTypeIndex, of: document.messages.compactMap(\.server), named: \.type)
            ),
        ]
        for (direction, types) in missing {
            for type in types {
                Issue.record("docs/PROTOCOL.md has no json example of the \(direction) message \"\(type)\"; add one.")
            }
        }
        #expect(document.text.contains("## Client → server messages"))
        #expect(document.text.contains("## Server → client messages"))
    }

    @Test("Every board operation kind has an example and a section")
    func operationKindsHaveExamples() throws {
        let document = try ProtocolDocument.load()
        let shown = document.messages.flatMap(\.operations)
        let missing = Set(unshown(operationKinds, by: operationKindIndex, of: shown, named: \.kind))
        for kind in operationKinds {
            if missing.contains(kind) {
                Issue.record("docs/PROTOCOL.md has no json example of the operation kind \"\(kind)\"; add one.")
            }
            if !document.text.contains("\n### \(kind)\n") {
                Issue.record("docs/PROTOCOL.md has no \"### \(kind)\" section under Board operations.")
            }
        }
    }

    @Test("Every error code, rejection code and close code has a row in its table")
    func codesAreDescribed() throws {
        let document = try ProtocolDocument.load()
        let closeCodes = [
            CloseCode.normal, CloseCode.goingAway, CloseCode.policyViolation, CloseCode.internalError,
            CloseCode.replaced, CloseCode.helloTimeout, CloseCode.unsupportedProtocol, CloseCode.badKey,
            CloseCode.unknownBoard,
            1007,  // invalid UTF-8, sent by the transport
            1009,  // message too big, sent by the transport
        ]
        let tables = [
            ("Error codes", ErrorCode.allCases.map { "| `\($0.rawValue)` |" }),
            ("Rejection codes", RejectCode.allCases.map { "| `\($0.rawValue)` |" }),
            ("Close codes", closeCodes.map { "\n| \($0) |" }),
        ]
        for (name, rows) in tables {
            let table = try document.section("### \(name)")
            for row in rows where !table.contains(row) {
                Issue.record("docs/PROTOCOL.md: the \(name) table has no row starting \"\(row.trimmingPrefix("\n"))\".")
            }
        }
    }

    @Test("The limits table, subprotocol and endpoint match ProtocolLimits")
    func limitsMatch() throws {
        let document = try ProtocolDocument.load()
        let limits = try document.section("## Limits")
        let rows = [
            ("version", ProtocolLimits.version),
            ("maxTokenBytes", ProtocolLimits.maxTokenBytes),
            ("maxNameCharacters", ProtocolLimits.maxNameCharacters),
            ("maxItemsPerDrag", ProtocolLimits.maxItemsPerDrag),
            ("maxExternalItems", ProtocolLimits.maxExternalItems),
            ("maxIndex", ProtocolLimits.maxIndex),
            ("maxCoordinate", Int(ProtocolLimits.maxCoordinate)),
            ("maxJSONDepth", ProtocolLimits.maxJSONDepth),
            ("maxTitleBytes", ProtocolLimits.maxTitleBytes),
            ("maxTypeBytes", ProtocolLimits.maxTypeBytes),
            ("maxValueBytes", ProtocolLimits.maxValueBytes),
            ("maxRepresentations", ProtocolLimits.maxRepresentations),
            ("maxAccepts", ProtocolLimits.maxAccepts),
            ("maxExternalTypes", ProtocolLimits.maxExternalTypes),
            ("maxGroupDepth", ProtocolLimits.maxGroupDepth),
            ("maxNewSections", ProtocolLimits.maxNewSections),
            ("activityPage", ActivityLimits.pageLimit),
        ]
        for (name, value) in rows where !limits.contains("| `\(name)` | \(value) |") {
            Issue.record("docs/PROTOCOL.md: the Limits table should have the row \"| `\(name)` | \(value) |\".")
        }
        let reserved = "| `reservedOpIdCharacter` | `\(ProtocolLimits.reservedOpIdCharacter)` |"
        #expect(limits.contains(reserved), "docs/PROTOCOL.md: the Limits table should have the row \"\(reserved)\".")
        #expect(document.text.contains("`\(ProtocolLimits.subprotocol)`"))
        #expect(document.text.contains("ws://HOST:PORT/ws"))
    }
}

// MARK: - The document

/// docs/PROTOCOL.md, split into its `json` blocks, each decoded by the direction its section says.
private struct ProtocolDocument {
    /// Which messages a block may hold, from the `##` heading it sits under.
    enum Direction {
        case client, server, either
    }

    /// A decoded message of either direction.
    enum Message {
        case client(ClientMessage)
        case server(ServerMessage)

        var client: ClientMessage? {
            if case .client(let message) = self { return message }
            return nil
        }

        var server: ServerMessage? {
            if case .server(let message) = self { return message }
            return nil
        }

        /// The message encoded again by the code.
        var encoded: [UInt8] {
            switch self {
            case .client(let message): WireCodec.encode(message)
            case .server(let message): WireCodec.encode(message).bytes
            }
        }

        /// The board operations it carries, committed or submitted.
        var operations: [BoardOperation] {
            switch self {
            case .client(.submit(let submit)): [submit.op]
            case .client: []
            case .server(.op(let committed)): [committed.op]
            case .server(.ack(let ack)): ack.outcome.committed.map { [$0.op] } ?? []
            case .server(.welcome(let welcome)): (welcome.ops ?? []).map(\.op)
            case .server(.synced(let synced)): (synced.ops ?? []).map(\.op)
            case .server: []
            }
        }
    }

    /// One fenced `json` block.
    struct Block {
        /// The 1-based line of its opening fence.
        var line: Int
        var text: String
        var direction: Direction
        var decoded: Result<Message, DecodeFailure>
    }

    /// Why a block decoded as no message.
    struct DecodeFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Thrown when the document cannot be read or lacks a section.
    struct DocumentError: Error, CustomStringConvertible {
        var description: String
    }

    let text: String
    let blocks: [Block]

    /// Every message that decoded.
    var messages: [Message] {
        blocks.compactMap { try? $0.decoded.get() }
    }

    /// docs/PROTOCOL.md, found from this file's path.
    static func load() throws -> ProtocolDocument {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // CorkboardProtocolTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // the package
            .appendingPathComponent("docs/PROTOCOL.md")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw DocumentError(description: "Cannot read \(url.path); the protocol document must be there.")
        }
        return try ProtocolDocument(text: String(decoding: data, as: UTF8.self))
    }

    /// Splits a document into blocks; blocks under "## Client → server …" are client messages, under
    /// "## Server → client …" server messages, elsewhere either.
    init(text: String) throws {
        self.text = text
        var blocks: [Block] = []
        var direction = Direction.either
        var open: (line: Int, lines: [Substring])?
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    let body = block.lines.joined(separator: "\n")
                    blocks.append(
                        Block(
                            line: block.line, text: body, direction: direction,
                            decoded: ProtocolDocument.decode(body, as: direction)))
                    open = nil
                } else {
                    block.lines.append(line)
                    open = block
                }
            } else if trimmed == "```json" {
                open = (offset + 1, [])
            } else if line.hasPrefix("## ") {
                direction =
                    line.contains("Client → server") ? .client : line.contains("Server → client") ? .server : .either
            }
        }
        if let open {
            throw DocumentError(description: "docs/PROTOCOL.md line \(open.line): the json block is never closed.")
        }
        self.blocks = blocks
    }

    /// The text from a heading line to the next heading of the same or a higher level.
    func section(_ heading: String) throws -> String {
        guard let start = text.range(of: "\n\(heading)\n") else {
            throw DocumentError(description: "docs/PROTOCOL.md has no \"\(heading)\" heading.")
        }
        let level = heading.prefix { $0 == "#" }
        var end = text.endIndex
        var search = start.upperBound
        while let next = text.range(of: "\n#", range: search..<text.endIndex) {
            let rest = text[text.index(after: next.lowerBound)...]
            let hashes = rest.prefix { $0 == "#" }
            if hashes.count <= level.count, rest.dropFirst(hashes.count).first == " " {
                end = next.lowerBound
                break
            }
            search = next.upperBound
        }
        return String(text[start.lowerBound..<end])
    }

    static func decode(_ body: String, as direction: Direction) -> Result<Message, DecodeFailure> {
        let bytes = Array(body.utf8)
        var reasons: [String] = []
        if direction != .server {
            do {
                return .success(.client(try WireCodec.decodeClientMessage(bytes)))
            } catch {
                reasons.append("as a client message: \(error)")
            }
        }
        if direction != .client {
            do {
                return .success(.server(try WireCodec.decodeServerMessage(bytes)))
            } catch {
                reasons.append("as a server message: \(error)")
            }
        }
        let expected =
            switch direction {
            case .client: "a client message (it is under \"Client → server messages\")"
            case .server: "a server message (it is under \"Server → client messages\")"
            case .either: "neither a client nor a server message"
            }
        let verb = direction == .either ? "decodes as" : "does not decode as"
        return .failure(
            DecodeFailure(description: "the json block \(verb) \(expected): \(reasons.joined(separator: "; "))"))
    }
}

// MARK: - Exhaustive lists

/// Every server message type, indexed by `serverTypeIndex`. Its switch is exhaustive, so a new
/// case stops this file compiling until it is listed here, and then the document needs an example.
private let serverTypes = [
    "welcome", "ack", "op", "dragGranted", "proposal", "dragStarted", "dragItems", "dragHover", "dragEnded",
    "membersChanged", "memberList", "cursor", "presence", "synced", "pong", "error", "snapshotPart", "editGranted",
    "editRefused", "editStarted", "editEnded", "undoable", "redirect", "activity", "activityPage", "people",
    "roleChanged",
]

private func serverTypeIndex(_ message: ServerMessage) -> Int {
    switch message {
    case .welcome: 0
    case .ack: 1
    case .op: 2
    case .dragGranted: 3
    case .proposal: 4
    case .dragStarted: 5
    case .dragItems: 6
    case .dragHover: 7
    case .dragEnded: 8
    case .membersChanged: 9
    case .memberList: 10
    case .cursor: 11
    case .presence: 12
    case .synced: 13
    case .pong: 14
    case .error: 15
    case .snapshotPart: 16
    case .editGranted: 17
    case .editRefused: 18
    case .editStarted: 19
    case .editEnded: 20
    case .undoable: 21
    case .redirect: 22
    case .activity: 23
    case .activityPage: 24
    case .people: 25
    case .roleChanged: 26
    }
}

/// Every board operation kind, indexed by `operationKindIndex` (exhaustive, as above).
private let operationKinds = [
    "move", "copy", "insert", "insertPlaceholder", "commitPlaceholder", "deletePlaceholder", "delete", "moveOut",
    "updateItem", "createCollection", "renameCollection", "deleteCollection", "moveCollection", "setAccepts",
    "createSection", "renameSection", "deleteSection", "moveSection", "setLayout", "renameBoard", "batch",
    "updateCard", "setLabel", "deleteLabel", "addComment", "editComment", "deleteComment", "restore", "emptyTrash",
    "checklist",
]

private func operationKindIndex(_ op: BoardOperation) -> Int {
    switch op {
    case .move: 0
    case .copy: 1
    case .insert: 2
    case .insertPlaceholder: 3
    case .commitPlaceholder: 4
    case .deletePlaceholder: 5
    case .delete: 6
    case .moveOut: 7
    case .updateItem: 8
    case .createCollection: 9
    case .renameCollection: 10
    case .deleteCollection: 11
    case .moveCollection: 12
    case .setAccepts: 13
    case .createSection: 14
    case .renameSection: 15
    case .deleteSection: 16
    case .moveSection: 17
    case .setLayout: 18
    case .renameBoard: 19
    case .batch: 20
    case .updateCard: 21
    case .setLabel: 22
    case .deleteLabel: 23
    case .addComment: 24
    case .editComment: 25
    case .deleteComment: 26
    case .restore: 27
    case .emptyTrash: 28
    case .checklist: 29
    }
}

/// The names in `names` (a list indexed by the exhaustive switch `index`) that no value of `shown`
/// has, checking on the way that the list names each shown value as the value does.
private func unshown<Value>(
    _ names: [String], by index: (Value) -> Int, of shown: [Value], named name: (Value) -> String
) -> [String] {
    var indexes = Set<Int>()
    for value in shown {
        let i = index(value)
        #expect(
            names[i] == name(value),
            "\(names[i]) is listed where \(name(value)) belongs: the list is out of step with its switch")
        indexes.insert(i)
    }
    return names.indices.filter { !indexes.contains($0) }.map { names[$0] }
}

// MARK: - Round trip

/// Where `original` (parsed from the document) and `reencoded` (the decoded message encoded again)
/// differ: a key the code does not know, or a value that changed.
private func differences(_ original: Any, _ reencoded: Any, path: String) -> [String] {
    let shown = path.isEmpty ? "the message" : "\"\(path)\""
    switch (original, reencoded) {
    case (let a as [String: Any], let b as [String: Any]):
        return a.keys.sorted().flatMap { key -> [String] in
            let child = path.isEmpty ? key : "\(path).\(key)"
            guard let value = b[key] else {
                return ["\"\(child)\" is not a field the code reads"]
            }
            return differences(a[key]!, value, path: child)
        }
    case (let a as [Any], let b as [Any]):
        guard a.count == b.count else { return ["\(shown) has \(a.count) elements but \(b.count) after a round trip"] }
        return zip(a, b).enumerated().flatMap { differences($1.0, $1.1, path: "\(path).\($0)") }
    case (is [String: Any], _), (is [Any], _), (_, is [String: Any]), (_, is [Any]):
        return ["\(shown) changes shape in a round trip"]
    default:
        let a = "\(original)"
        let b = "\(reencoded)"
        return a == b ? [] : ["\(shown) is \(a) in the document but \(b) after a round trip"]
    }
}
