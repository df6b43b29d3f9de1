/// Why a message was refused; the raw values are the wire codes of `error` messages.
///
/// Operation outcomes (`ack` with `rejected`) use the model's `RejectCode` instead: an `error` means
/// the message itself could not be taken, a rejection means a well-formed operation did not apply.
public enum ErrorCode: String, Hashable, Codable, Sendable, CaseIterable {
    /// The frame is not a JSON object (or is binary).
    case badJSON = "bad-json"
    /// The `type` is missing or not one this server knows.
    case unknownType = "unknown-type"
    /// A required field is missing.
    case missingField = "missing-field"
    /// A field has the wrong type, or a value out of range or over a limit.
    case invalidField = "invalid-field"
    /// A board message arrived before `hello` was accepted.
    case notJoined = "not-joined"
    /// A second `hello` on a connection that already joined.
    case alreadyJoined = "already-joined"
    /// `hello` named a protocol version this server does not speak.
    case unsupportedProtocol = "unsupported-protocol"
    /// `hello` named a board that does not exist.
    case unknownBoard = "unknown-board"
    /// `hello` presented a key that opens neither role (the connection is then closed 4003).
    case badKey = "bad-key"
    /// The message names a drag session this connection does not have.
    case unknownSession = "unknown-session"
    /// The connection sent more messages of one kind than its rate limit allows; this one was not
    /// applied. A connection that keeps going is closed 1008.
    case rateLimited = "rate-limited"
    /// The server could not do what was asked because of its own failure; nothing changed.
    case internalError = "internal"
    /// An admin message from a member who is not an admin (the message names its role).
    case forbidden
    /// An admin message names no person of the board (or a removed one).
    case unknownPerson = "unknown-person"
    /// An admin message names no invite of the board.
    case unknownInvite = "unknown-invite"
    /// The change would leave the board without its last person admin.
    case lastAdmin = "last-admin"
    /// `hello.invite` is no invite of the board (then close 4003).
    case inviteUnknown = "invite-unknown"
    /// `hello.invite` is past its expiry (then close 4003).
    case inviteExpired = "invite-expired"
    /// `hello.invite` was claimed as often as it may be (then close 4003).
    case inviteUsed = "invite-used"
    /// `hello.invite` was disabled by an admin (then close 4003).
    case inviteRevoked = "invite-revoked"
    /// The device's person on the board was removed (then close 4003).
    case removed
    /// A role key while the board's anyone-with-the-link row is off (then close 4003).
    case linksOff = "links-off"
}

/// An `error` message's payload: a code, a sentence, the offending field and the message's `ref`.
///
/// JSON shape: `{"type":"error","ref":"r7","code":"invalid-field","field":"target.index","message":"…"}`.
public struct ProtocolError: Error, Hashable, Codable, Sendable, CustomStringConvertible {
    /// The `ref` of the message refused, when it had one.
    public var ref: String?
    /// The code.
    public var code: ErrorCode
    /// What went wrong and what to do.
    public var message: String
    /// The offending field as a dotted path (`target.index`, `op.items.2`), when there is one.
    public var field: String?

    /// Creates an error.
    public init(_ code: ErrorCode, _ message: String, field: String? = nil, ref: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.ref = ref
    }

    /// The same error answering the message with `ref`.
    public func answering(_ ref: String?) -> ProtocolError {
        var copy = self
        copy.ref = ref
        return copy
    }

    /// `code (field): message`.
    public var description: String {
        if let field { return "\(code.rawValue) (\(field)): \(message)" }
        return "\(code.rawValue): \(message)"
    }
}

/// WebSocket close codes Corkboard uses, beyond the standard ones the transport sends itself
/// (1001 shutdown, 1007 invalid UTF-8, 1009 message too big).
public enum CloseCode {
    /// Normal closure.
    public static let normal = 1000
    /// The server is going away (shutdown).
    public static let goingAway = 1001
    /// Policy violation: too many invalid messages, or too slow to keep up (R11). Resume to continue.
    public static let policyViolation = 1008
    /// The server failed; reconnect.
    public static let internalError = 1011
    /// Another connection resumed with the same client id; this one is superseded.
    public static let replaced = 4000
    /// No valid `hello` arrived within the handshake time.
    public static let helloTimeout = 4001
    /// The `hello` protocol version is not supported (after an `unsupported-protocol` error).
    public static let unsupportedProtocol = 4002
    /// The key opens no role on the board.
    public static let badKey = 4003
    /// The board does not exist.
    public static let unknownBoard = 4004
    /// Another node of the cluster sequences the board now (after a `redirect` message naming it
    /// when known): connect there, or to any entry URL, and resume.
    public static let moved = 4005
    /// Sent by a client that heard nothing on the link for its liveness limit (not even the `pong`
    /// to its `ping`): the server stalled or the network dropped; the client resumes elsewhere.
    public static let noAnswer = 4100
}
