public import CorkboardProtocol
public import CorkboardServer
public import CorkboardTransport

/// The rooms' `ConnectionSink` over the WebSocket server: one `OutboundFrame` per encoded message,
/// shared by all its recipients, over the message's own bytes (never copied).
public struct TransportSink: ConnectionSink {
    let server: WebSocketServer
    /// Counts the closes that throttle an address (failed joins, rate-limit closes).
    let throttles: AddressThrottles?

    /// A sink over a server.
    public init(server: WebSocketServer) { self.init(server: server, throttles: nil) }

    init(server: WebSocketServer, throttles: AddressThrottles?) {
        self.server = server
        self.throttles = throttles
    }

    public func send(_ message: EncodedMessage, to handles: [ConnectionHandle]) {
        let frame = OutboundFrame(utf8: message.head, tail: message.tail)
        if handles.count == 1 {
            server.send(frame, to: ConnectionID(rawValue: handles[0].rawValue))
        } else {
            server.broadcast(frame, to: Self.ids(handles))
        }
    }

    /// Shares one frame like `send(_:to:)`; the frame counts itself off as it enters each
    /// recipient's socket write and calls `written` after the last.
    public func send(
        _ message: EncodedMessage, to handles: [ConnectionHandle], whenWritten written: @escaping @Sendable () -> Void
    ) {
        let frame = OutboundFrame(
            utf8: message.head, tail: message.tail, delivery: FrameDelivery(recipients: handles.count, done: written))
        server.broadcast(frame, to: Self.ids(handles))
    }

    public func pendingBytes(of handle: ConnectionHandle) -> Int {
        server.backlog(of: ConnectionID(rawValue: handle.rawValue)).bytes
    }

    public func pendingBytes(of handles: [ConnectionHandle]) -> [Int] {
        server.queuedBytes(of: Self.ids(handles))
    }

    /// The transport's ids of the rooms' handles (the same numbers).
    private static func ids(_ handles: [ConnectionHandle]) -> [ConnectionID] {
        handles.map { ConnectionID(rawValue: $0.rawValue) }
    }

    /// Closes a connection. A policy close (1008: too slow to keep up, or too many invalid
    /// messages, R11) drops what is still queued and goes out at once, so a client that stopped
    /// reading is disconnected instead of lingering; other closes follow the queued messages (the
    /// `error` explaining a bad key or an unknown board arrives first).
    public func close(_ handle: ConnectionHandle, code: Int, reason: String, discardingPending: Bool) {
        let id = ConnectionID(rawValue: handle.rawValue)
        // Before the close frame leaves, so a client reconnecting at once meets its own failure.
        throttles?.closing(id, code: code, reason: reason)
        server.close(id, code: code, reason: reason, discardingQueued: discardingPending)
    }
}
