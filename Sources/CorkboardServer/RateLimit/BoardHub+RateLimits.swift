import CorkboardProtocol
import Logging

/// The hub enforces each connection's rate limits (`RateLimits`) before a room does any work: a
/// message past its limit costs a clock read, a token bucket and, at most, an `error`.
extension BoardHub {
    /// Counts a joined connection's message against its limits; `false` when it must be dropped
    /// (then answered `rate-limited`, or the connection closed 1008 when it keeps going).
    func admit(_ message: ClientMessage, from handle: ConnectionHandle) -> Bool {
        guard let kind = RateLimitedKind(message) else { return true }
        let limit = configuration.rateLimits[kind]
        guard limit.isEnabled else { return true }
        let now = clock.now
        let verdict = withLink(handle) { link -> ConnectionRateLimiter.Verdict in
            let verdict = link.limiter.admit(kind, at: now)
            if verdict == .close { link.closing = true }
            return verdict
        }
        guard let verdict else { return false }
        switch verdict {
        case .accept:
            return true
        case .refuse(let notify):
            configuration.metrics.countRateLimited(kind, closing: false)
            if notify {
                sink.send(WireCodec.encode(.error(Self.rateLimited(kind, limit, ref: message.ref))), to: handle)
            }
            return false
        case .close:
            configuration.metrics.countRateLimited(kind, closing: true)
            logger.notice(
                "closing a connection that keeps going past its rate limit",
                metadata: ["connection": "\(handle)", "kind": "\(kind.rawValue)", "limit": "\(limit)"])
            sink.send(WireCodec.encode(.error(Self.rateLimited(kind, limit, ref: message.ref))), to: handle)
            sink.close(handle, code: CloseCode.policyViolation, reason: Self.rateLimitCloseReason)
            return false
        }
    }

    /// The close reason of a connection that kept going past its rate limit (1008); the gateway
    /// counts such closes against the connection's address.
    public static let rateLimitCloseReason = "too many messages: past the rate limit again and again"

    /// The `rate-limited` error for a message of `kind`.
    static func rateLimited(_ kind: RateLimitedKind, _ limit: RateLimit, ref: String?) -> ProtocolError {
        switch kind {
        case .operations:
            ProtocolError(
                .rateLimited,
                "Too many changes: a connection may send \(limit) (submit, drop, sync); this one was not applied. "
                    + "Wait a moment and send it again.", ref: ref)
        case .ephemeral:
            ProtocolError(
                .rateLimited,
                "Too many live updates: a connection may send \(limit) (cursor, presence, drags, ping); this one "
                    + "and the next ones past the limit are dropped until the connection slows down.", ref: ref)
        }
    }
}
