public import CorkboardProtocol

/// Why a ``BoardClient`` or ``BoardConnection`` call failed: a code, a sentence saying what went
/// wrong and what to do, and the server's error or close code when there is one.
public struct BoardClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        /// A bounded wait ran out before the awaited answer or state arrived.
        public static let timedOut = Code(name: "timed-out")
        /// The connection could not be established (refused, bad URL, handshake failure).
        public static let connectFailed = Code(name: "connect-failed")
        /// The connection closed (by the server, the network or ``BoardConnection/close()``).
        public static let closed = Code(name: "closed")
        /// The server answered with an `error` message (see ``BoardClientError/serverError``).
        public static let refused = Code(name: "refused")
        /// The call needs a board the connection has not joined yet, or a live link it does not have.
        public static let notJoined = Code(name: "not-joined")
        /// The awaiting task was cancelled.
        public static let cancelled = Code(name: "cancelled")
        /// The client's transport could not start.
        public static let transport = Code(name: "transport")

        /// The code's name, e.g. `timed-out`.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong and what to do.
    public let message: String
    /// The server's `error` message, for ``Code/refused`` (and a refused join).
    public let serverError: ProtocolError?
    /// The WebSocket close code, when the connection closed with one.
    public let closeCode: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, serverError: ProtocolError? = nil, closeCode: Int? = nil) {
        self.code = code
        self.message = message
        self.serverError = serverError
        self.closeCode = closeCode
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    static func refused(_ error: ProtocolError, answering what: String) -> BoardClientError {
        BoardClientError(.refused, "The server refused \(what): \(error)", serverError: error)
    }
}
