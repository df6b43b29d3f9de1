/// An error from the transport layer, with a readable description saying what to do about it.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// A configuration value is invalid.
        case invalidConfiguration
        /// The listening socket could not be created (port in use, bad address, bad certificate).
        case listenFailed
        /// The server or client was started twice or used after shutdown.
        case invalidState
        /// A URL could not be parsed.
        case invalidURL
        /// A client connection attempt failed.
        case connectFailed
        /// The server did not start because the frame guard is not in libwebsockets' read path
        /// (`ServerConfiguration.allowUnguardedReads` starts it anyway, unguarded).
        case unguardedReads
    }

    /// The kind of failure.
    public let kind: Kind
    /// What went wrong and what to do.
    public let message: String

    /// Creates an error.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// A configuration value is invalid.
    public static func invalidConfiguration(_ message: String) -> TransportError {
        TransportError(kind: .invalidConfiguration, message: message)
    }

    /// Listening failed.
    public static func listenFailed(_ message: String) -> TransportError {
        TransportError(kind: .listenFailed, message: message)
    }

    /// Wrong lifecycle state.
    public static func invalidState(_ message: String) -> TransportError {
        TransportError(kind: .invalidState, message: message)
    }

    /// Bad URL.
    public static func invalidURL(_ message: String) -> TransportError {
        TransportError(kind: .invalidURL, message: message)
    }

    /// A connection attempt failed.
    public static func connectFailed(_ message: String) -> TransportError {
        TransportError(kind: .connectFailed, message: message)
    }

    /// The frame guard is not in libwebsockets' read path.
    public static func unguardedReads(_ message: String) -> TransportError {
        TransportError(kind: .unguardedReads, message: message)
    }

    /// The message.
    public var description: String { message }
}
