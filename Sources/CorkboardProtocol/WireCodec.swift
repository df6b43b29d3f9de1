import CorkboardJSON
public import CorkboardModel
import Foundation

/// A server message encoded once as a JSON text frame, to be shared by every recipient.
///
/// The JSON is held in pieces that follow one another: one piece for almost every message. A
/// `welcome` or `synced` carrying the board inline has three, the middle one the board's JSON,
/// encoded once per seq and shared by every member that joins at that seq (a transport copies the
/// pieces straight into its socket writes, so no member holds its own copy of the board).
public struct EncodedMessage: Sendable {
    /// The first piece of the JSON: all of it, unless `tail` holds more.
    public let head: [UInt8]
    /// The pieces after `head`, in order (shared ones among them); empty for almost every message,
    /// so a message in one piece costs no array of pieces.
    public let tail: [[UInt8]]
    /// The JSON's length in bytes (all pieces).
    public let count: Int
    /// Whether a slow client may lose it (R11); see `ServerMessage.isEphemeral`.
    public let isEphemeral: Bool
    /// The message type, for logs and tests.
    public let type: String

    /// A message in one piece.
    public init(bytes: [UInt8], isEphemeral: Bool, type: String) {
        head = bytes
        tail = []
        count = bytes.count
        self.isEphemeral = isEphemeral
        self.type = type
    }

    /// A message in several pieces (shared ones among them), sent in order.
    public init(pieces: [[UInt8]], isEphemeral: Bool, type: String) {
        head = pieces.first ?? []
        tail = Array(pieces.dropFirst())
        count = pieces.reduce(0) { $0 + $1.count }
        self.isEphemeral = isEphemeral
        self.type = type
    }

    /// Every piece, in order (`head`, then `tail`).
    public var pieces: [[UInt8]] { [head] + tail }

    /// The whole JSON in one array (`head` itself when there is one piece; joined otherwise).
    public var bytes: [UInt8] { tail.isEmpty ? head : head + tail.joined() }

    /// The text, for logs and tests.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// The one place Corkboard messages become JSON and JSON becomes messages.
///
/// Decoding turns every failure into a `ProtocolError` naming the code, the offending field as a
/// dotted path, and the message's `ref` when one could be read, then checks the decoded message
/// against `ProtocolLimits`.
public enum WireCodec {
    /// Decodes and validates a client message.
    ///
    /// - Throws: `ProtocolError` (`bad-json`, `unknown-type`, `missing-field`, `invalid-field`,
    ///   `unsupported-protocol`) with the field and the message's ref.
    /// - Complexity: O(n) in the message size.
    public static func decodeClientMessage(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> ClientMessage {
        if let fast = bytes.withContiguousStorageIfAvailable({ FastJSON.decodeClientMessage($0) }) ?? nil {
            do {
                try MessageValidation.validate(fast)
            } catch {
                throw error.answering(fast.ref)
            }
            return fast
        }
        let data = Data(bytes)
        let precheck = data.withUnsafeBytes { JSONPrecheck.scan($0.bindMemory(to: UInt8.self)) }
        if precheck.depth > ProtocolLimits.maxJSONDepth {
            throw ProtocolError(
                .badJSON,
                "The message nests objects and arrays more than \(ProtocolLimits.maxJSONDepth) levels deep; "
                    + "the limit is \(ProtocolLimits.maxJSONDepth).", ref: precheck.ref)
        }
        let message: ClientMessage
        do {
            message = try JSONDecoder().decode(ClientMessage.self, from: data)
        } catch {
            let failure = numberError(error, precheck.oddNumbers) ?? protocolError(for: error)
            throw failure.answering(probeRef(data))
        }
        do {
            try MessageValidation.validate(message)
        } catch {
            throw error.answering(message.ref)
        }
        return message
    }

    /// Decodes a server message (clients, bots and tests).
    ///
    /// - Throws: `ProtocolError` as for client messages.
    public static func decodeServerMessage(_ bytes: some Collection<UInt8>) throws(ProtocolError) -> ServerMessage {
        do {
            return try JSONDecoder().decode(ServerMessage.self, from: Data(bytes))
        } catch {
            throw protocolError(for: error)
        }
    }

    /// Encodes a server message once, for any number of recipients.
    ///
    /// Messages whose values cannot be represented in JSON cannot arise from validated input; if one
    /// does, an `internal` error message is encoded in its place so the connection sees a failure
    /// instead of silence.
    public static func encode(_ message: ServerMessage) -> EncodedMessage {
        if let fast = FastJSON.encode(message) {
            return EncodedMessage(bytes: fast, isEphemeral: message.isEphemeral, type: message.type)
        }
        do {
            let data = try encoder().encode(message)
            return EncodedMessage(bytes: Array(data), isEphemeral: message.isEphemeral, type: message.type)
        } catch {
            let fallback = ServerMessage.error(
                ProtocolError(.internalError, "The server could not encode a \(message.type) message: \(error)."))
            let data = (try? encoder().encode(fallback)) ?? Data(#"{"type":"error","code":"internal"}"#.utf8)
            return EncodedMessage(bytes: Array(data), isEphemeral: false, type: "error")
        }
    }

    /// A committed operation as JSON (its `CommittedOperation` fields), by the hand-written encoder
    /// for moves and JSONEncoder for the rest; `nil` only if it cannot be encoded. The store's log
    /// uses it so durability does not pay JSONEncoder's price on the hot path.
    public static func encode(_ committed: CommittedOperation) -> [UInt8]? {
        FastJSON.committedMove(committed) ?? (try? Array(encoder().encode(committed)))
    }

    /// A committed operation encoded once for everything that carries it: the `op` its peers get,
    /// the sender's committed `ack`, and the record the store keeps (`encode(_: CommittedOperation)`).
    public struct CommitEncoding: Sendable {
        /// The `op` message for the members other than the sender (every member without one).
        public var op: EncodedMessage
        /// The sender's `ack` with the `committed` outcome; `nil` for an operation without a sender.
        public var ack: EncodedMessage?
        /// The operation's own JSON, as the store's log keeps it; `nil` only if it cannot be
        /// encoded (the store then refuses it with its own error).
        public var record: [UInt8]?
    }

    /// Encodes a committed operation once for the messages it goes out as and the store's record:
    /// the `op` every other member gets, the sender's committed `ack` (when there is a sender), and
    /// the operation's JSON the store writes (commit and announce once).
    ///
    /// The messages decode to the same as `encode(.op(committed))` and
    /// `encode(.ack(Ack(ref: ref, opId: opId, outcome: .committed(committed))))`; encoding the
    /// operation (with its effect) is most of the cost of a commit, so it is done once and the
    /// messages are spliced around it.
    public static func encodeCommit(
        _ committed: CommittedOperation, sender: (ref: String?, opId: String)?
    ) -> CommitEncoding {
        guard let data = encode(committed), data.count > 2, data.first == UInt8(ascii: "{") else {
            return CommitEncoding(
                op: encode(.op(committed)),
                ack: sender.map {
                    encode(.ack(ServerMessage.Ack(ref: $0.ref, opId: $0.opId, outcome: .committed(committed))))
                },
                record: nil)
        }
        let fields = data.dropFirst()  // the operation's fields and the closing brace
        var op: [UInt8] = []
        op.reserveCapacity(fields.count + 16)
        op += #"{"type":"op","#.utf8
        op += fields
        var encoding = CommitEncoding(op: EncodedMessage(bytes: op, isEphemeral: false, type: "op"), record: data)
        if let (ref, opId) = sender {
            var ack: [UInt8] = []
            ack.reserveCapacity(fields.count + opId.utf8.count + (ref?.utf8.count ?? 0) + 64)
            ack += #"{"type":"ack","#.utf8
            if let ref {
                ack += #""ref":"#.utf8
                JSONString.append(ref, to: &ack)
                ack.append(UInt8(ascii: ","))
            }
            ack += #""opId":"#.utf8
            JSONString.append(opId, to: &ack)
            ack += #","outcome":{"kind":"committed","#.utf8
            ack += fields
            ack.append(UInt8(ascii: "}"))
            encoding.ack = EncodedMessage(bytes: ack, isEphemeral: false, type: "ack")
        }
        return encoding
    }

    /// The board's JSON as it appears in `welcome.snapshot` and `synced.snapshot`: encoded once
    /// per seq and shared by every `welcome` or `synced` made with ``encode(_:snapshot:)``.
    public static func encode(_ snapshot: Snapshot) -> [UInt8] {
        // A snapshot holds only validated strings, integers, booleans and finite doubles.
        (try? Array(encoder().encode(snapshot))) ?? []
    }

    /// Encodes a `welcome` or `synced` whose `snapshot` is left out, with the board's JSON
    /// (`encode(_: Snapshot)`) spliced in as its `snapshot` field: the message's own JSON and
    /// the shared board go out as separate pieces, so the board is never copied per member.
    ///
    /// The result decodes to the same message as encoding it with the snapshot set.
    public static func encode(_ message: ServerMessage, snapshot: [UInt8]) -> EncodedMessage {
        let own = encode(message)
        guard own.type == message.type, own.tail.isEmpty, own.head.last == UInt8(ascii: "}"), own.head.count > 2,
            !snapshot.isEmpty
        else { return own }
        var opening = Array(own.head.dropLast())
        opening += #","snapshot":"#.utf8
        return EncodedMessage(
            pieces: [opening, snapshot, [UInt8(ascii: "}")]], isEphemeral: own.isEphemeral, type: own.type)
    }

    /// Encodes a client message (clients, bots and tests).
    public static func encode(_ message: ClientMessage) -> [UInt8] {
        // Client messages hold only strings, integers, booleans and validated finite doubles.
        (try? Array(encoder().encode(message))) ?? []
    }

    /// Compact JSON without escaped slashes (ids and URLs stay readable).
    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return encoder
    }

    /// Maps a decoding failure to the protocol's error codes and a field path.
    static func protocolError(for error: any Error) -> ProtocolError {
        if let unknown = error as? UnknownType {
            return ProtocolError(
                .unknownType, "Unknown message type \"\(unknown.type)\"; see docs/PROTOCOL.md for the types.",
                field: "type")
        }
        guard let error = error as? DecodingError else {
            return ProtocolError(.badJSON, "The message could not be read: \(error).")
        }
        switch error {
        case .keyNotFound(let key, let context) where context.codingPath.isEmpty && key.stringValue == "type":
            return ProtocolError(
                .unknownType, "The message has no \"type\"; see docs/PROTOCOL.md for the types.", field: "type")
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return ProtocolError(.missingField, "The field \"\(field)\" is required.", field: field)
        case .typeMismatch(_, let context) where context.codingPath.isEmpty,
            .valueNotFound(_, let context) where context.codingPath.isEmpty:
            return ProtocolError(.badJSON, "The message must be a JSON object with a \"type\", not another JSON value.")
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            return ProtocolError(.invalidField, "The field \"\(field)\" must be \(describe(type)).", field: field)
        case .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            return ProtocolError(
                .invalidField, "The field \"\(field)\" must be \(describe(type)), not null.", field: field)
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return ProtocolError(.badJSON, "The message is not a JSON object: \(context.debugDescription)")
            }
            let field = path(context.codingPath)
            return ProtocolError(
                .invalidField, "The field \"\(field)\" is invalid: \(context.debugDescription)", field: field)
        @unknown default:
            return ProtocolError(.badJSON, "The message could not be read: \(error).")
        }
    }

    /// Foundation reports a number no `Int` can hold as "not valid JSON": name the field, the
    /// limit and the value instead (the first such number in a field that is not a coordinate).
    static func numberError(_ error: any Error, _ numbers: [JSONPrecheck.OddNumber]) -> ProtocolError? {
        guard case DecodingError.dataCorrupted(let context)? = error as? DecodingError, context.codingPath.isEmpty
        else { return nil }
        let doubles: Set<Substring> = ["x", "y", "createdAt"]
        guard let odd = numbers.first(where: { !doubles.contains($0.field.split(separator: ".").last ?? "") })
        else { return nil }
        return ProtocolError(
            .invalidField,
            "The field \"\(odd.field)\" must be a whole number from \(Int64.min) to \(Int64.max); got \(odd.literal).",
            field: odd.field)
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: type == [String: Any].self ? "an object" : "a \(type)"
        }
    }

    /// Reads `ref` from a message that failed to decode, so the error can answer it.
    private static func probeRef(_ data: Data) -> String? {
        guard let probe = try? JSONDecoder().decode(RefProbe.self, from: data), let ref = probe.ref,
            ref.utf8.count <= ProtocolLimits.maxTokenBytes
        else { return nil }
        return ref
    }

    private struct RefProbe: Decodable {
        var ref: String?
        enum CodingKeys: String, CodingKey { case ref }
        init(from decoder: any Decoder) throws {
            ref = try? decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .ref)
        }
    }
}
