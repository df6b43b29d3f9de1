import CFrameGuard
import CLibWebSockets
import Logging
import Synchronization

/// A frame libwebsockets 4.1.6 would let through, or drop without a close frame, found by the read
/// guard (`CFrameGuard`) before libwebsockets parsed any of it. The connection is closed with 1002
/// and ``reason``.
enum FrameViolation: Sendable, Equatable {
    /// A frame without the mask bit (RFC 6455 §5.1).
    case unmasked
    /// A control frame whose length uses the 16- or 64-bit form (§5.5: at most 125 bytes).
    case controlTooLong
    /// A 64-bit length with its top bit set (§5.2).
    case lengthTopBit

    init?(_ raw: cfg_violation_t) {
        switch raw {
        case CFG_VIOLATION_UNMASKED: self = .unmasked
        case CFG_VIOLATION_CONTROL_TOO_LONG: self = .controlTooLong
        case CFG_VIOLATION_LENGTH_TOP_BIT: self = .lengthTopBit
        default: return nil
        }
    }

    /// The close code: protocol error.
    static let closeCode = 1002

    /// The close reason sent to the client (at most 123 bytes).
    var reason: String {
        switch self {
        case .unmasked: "unmasked frame: a client must mask every frame (RFC 6455 section 5.1)"
        case .controlTooLong: "control frame longer than 125 bytes (RFC 6455 section 5.5)"
        case .lengthTopBit: "frame length with its most significant bit set (RFC 6455 section 5.2)"
        }
    }
}

/// The guard's hook: a registered connection's client sent a violating frame (service thread,
/// inside libwebsockets' read of that connection), or the read-path check's probe was stopped.
private func frameGuardViolation(_ token: UnsafeMutableRawPointer?, _ raw: cfg_violation_t) {
    guard let token, let violation = FrameViolation(raw) else { return }
    let wsi = OpaquePointer(token)
    guard let up = lws_context_user(lws_get_context(wsi)) else { return }
    let context = Unmanaged<ShardContext>.fromOpaque(up).takeUnretainedValue()
    if context.probeReported(wsi) { return }
    context.protocolViolation(wsi, violation)
}

/// The transport's side of the frame guard (`CFrameGuard`): it registers every socket a shard
/// adopts, tells the guard where each upgrade stands, and closes 1002 the connections the guard
/// stopped.
extension ShardContext {
    /// Sets the guard's hook (every shard does; the same function each time). Whether the guard is
    /// in the read path at all is the read-path check's to say (``ReadPathCheck``).
    func installFrameGuard() {
        cfg_set_hook(frameGuardViolation)
    }

    /// Starts guarding an adopted server socket (after `lws_adopt_socket_vhost`, before any read).
    /// With a read timer (``ReadTiming``) the guard reads the socket through the timer's reader.
    func guardSocket(_ fd: Int32, _ wsi: OpaquePointer, timedBy timer: ReadTiming.Timer?) {
        let reader = timer.map { _ in ReadTiming.reader }
        guard cfg_register(fd, UnsafeMutableRawPointer(wsi), reader, timer?.context) == 0 else { return }
        loop.sockets[wsi]?.guardedDescriptor = fd
    }

    /// Stops guarding a socket libwebsockets destroyed (before ``forgetSocket(_:)``).
    func unguardSocket(_ wsi: OpaquePointer) {
        guard let fd = loop.sockets[wsi]?.guardedDescriptor else { return }
        loop.sockets[wsi]?.guardedDescriptor = nil
        cfg_unregister(fd, UnsafeMutableRawPointer(wsi))
    }

    /// The upgrade of `wsi` completed as connection `id`: frames are checked from here on, and a
    /// violating frame that came with the upgrade request closes it at once.
    func guardEstablished(_ wsi: OpaquePointer) {
        guard let fd = loop.sockets[wsi]?.guardedDescriptor else { return }
        if let violation = FrameViolation(cfg_established(fd, UnsafeMutableRawPointer(wsi))) {
            protocolViolation(wsi, violation)
        }
    }

    /// An upgrade request was refused and the connection may carry more HTTP requests.
    func guardRefused(_ wsi: OpaquePointer) {
        guard let fd = loop.sockets[wsi]?.guardedDescriptor else { return }
        cfg_refused(fd, UnsafeMutableRawPointer(wsi))
    }

    /// Closes a connection whose client broke the framing rules: nothing of the violating frame or
    /// after it reaches libwebsockets (the guard swallows it), and the close frame 1002 goes out at
    /// the next writeable callback, through the transport's own closing handshake.
    func protocolViolation(_ wsi: OpaquePointer, _ violation: FrameViolation) {
        guard let raw = lws_wsi_user(wsi)?.load(as: UInt64.self), raw != 0 else { return }
        let id = ConnectionID(rawValue: raw)
        guard loop.wsiByID[id] != nil, !loop.closing.contains(id) else { return }
        logger.info(
            "closing a connection whose client broke the WebSocket protocol",
            metadata: ["connection": "\(id)", "reason": "\(violation.reason)"])
        loop.closeInfo[id] = (FrameViolation.closeCode, violation.reason)
        shard.outbox.withLock {
            $0.closeForProtocolError(id, code: FrameViolation.closeCode, reason: violation.reason)
        }
        lws_callback_on_writable(wsi)
        Lws.dropAfter(wsi, seconds: configuration.slowConsumerKillAfter.wholeSecondsRoundedUp)
    }
}
