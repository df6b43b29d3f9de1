public import CorkboardProtocol

/// A connection as the rooms know it: an opaque number given by whoever owns the sockets.
public struct ConnectionHandle: Hashable, Sendable, CustomStringConvertible {
    /// The number.
    public let rawValue: UInt64

    /// Wraps a number.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// `conn-N`.
    public var description: String { "conn-\(rawValue)" }
}

/// Where rooms send encoded messages: the one thing they know about connections.
///
/// The executable adapts the WebSocket transport to it; tests record what was sent. Calls must not
/// block: a sink queues and returns.
public protocol ConnectionSink: Sendable {
    /// Queues one encoded message for several connections; implementations share the bytes.
    func send(_ message: EncodedMessage, to handles: [ConnectionHandle])
    /// Bytes queued for a connection and not yet written (R11 decides on it).
    func pendingBytes(of handle: ConnectionHandle) -> Int
    /// Bytes queued and not yet written for each of several connections, in order (a room checks
    /// all its members at each tick: an implementation answers them together). The default asks
    /// `pendingBytes(of:)` for each.
    func pendingBytes(of handles: [ConnectionHandle]) -> [Int]
    /// Closes a connection with a WebSocket close code and reason, after the messages already queued
    /// for it, or at once (`discardingPending`) when those would never be read (a slow client, R11).
    func close(_ handle: ConnectionHandle, code: Int, reason: String, discardingPending: Bool)
    /// Queues one encoded message for several connections like `send(_:to:)` and calls `written`
    /// once it has gone to every one of them: into a socket write, or refused for a connection
    /// already gone (rooms time a drop's broadcast with it). A message dropped with a slow
    /// connection's backlog never calls it. The default calls `written` as soon as it is queued.
    func send(
        _ message: EncodedMessage, to handles: [ConnectionHandle], whenWritten written: @escaping @Sendable () -> Void)
}

extension ConnectionSink {
    /// Asks `pendingBytes(of:)` for each connection.
    public func pendingBytes(of handles: [ConnectionHandle]) -> [Int] { handles.map { pendingBytes(of: $0) } }

    /// Closes a connection after the messages already queued for it.
    public func close(_ handle: ConnectionHandle, code: Int, reason: String) {
        close(handle, code: code, reason: reason, discardingPending: false)
    }

    /// Queues one encoded message for one connection.
    public func send(_ message: EncodedMessage, to handle: ConnectionHandle) { send(message, to: [handle]) }

    /// Queues the message and calls `written` at once: a sink that cannot tell when bytes reach a
    /// socket (a test's recording sink) treats queued as written.
    public func send(
        _ message: EncodedMessage, to handles: [ConnectionHandle], whenWritten written: @escaping @Sendable () -> Void
    ) {
        send(message, to: handles)
        written()
    }
}
