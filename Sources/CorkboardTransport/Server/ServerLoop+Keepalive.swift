import CLibWebSockets
import Logging

/// The lws timer callback of a shard's keepalive sweep: finds the shard from the timer's owner.
private func corkboardKeepaliveTimer(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let owner = Lws.timerOwner(sul) else { return }
    Unmanaged<ShardContext>.fromOpaque(owner).takeUnretainedValue().keepaliveSweep()
}

/// Pings and hangups of quiet connections (``Keepalive``), on the shard's service thread: one lws
/// timer per shard fires once a second while the shard has connections.
extension ShardContext {
    /// Follows a connection that just opened; starts the sweep if it was stopped.
    func follow(_ id: ConnectionID) {
        loop.keepalive.add(id)
        armKeepalive()
    }

    /// Once a second: pings connections that went quiet, drops those that stayed quiet past the
    /// hangup (their `.disconnected` says why), and schedules the next sweep while any are left.
    func keepaliveSweep() {
        loop.keepaliveArmed = false
        guard !loop.shuttingDown else { return }
        let found = loop.keepalive.sweep()
        for id in found.ping {
            guard let wsi = loop.wsiByID[id], !loop.closing.contains(id) else { continue }
            // Not behind bytes lws still holds for the socket: a peer that reads nothing is
            // pinged at a later sweep or dropped at the hangup.
            guard lws_partial_buffered(wsi) == 0 else { continue }
            if !Lws.ping(wsi, buffer: loop.scratch + Lws.pre) { Lws.dropSoon(wsi) }
        }
        let seconds = loop.keepalive.hangupAfter
        for id in found.hangUp {
            guard let wsi = loop.wsiByID[id] else { continue }
            logger.debug("dropping a connection that answered no ping", metadata: ["connection": "\(id)"])
            loop.closeInfo[id] = (1006, "no answer to ping within \(seconds) s")
            loop.closing.insert(id)
            Lws.dropSoon(wsi)
        }
        armKeepalive()
    }

    /// Schedules the next sweep in a second, unless one is scheduled or nothing is followed.
    private func armKeepalive() {
        guard !loop.keepaliveArmed, !loop.keepalive.isEmpty, let ctx = loop.context else { return }
        loop.keepaliveArmed = true
        lws_sul_schedule(ctx, 0, &loop.keepaliveTimer.pointee.sul, corkboardKeepaliveTimer, 1_000_000)
    }

    /// Cancels the sweep (before the context is destroyed).
    func stopKeepalive() {
        guard loop.keepaliveArmed, let ctx = loop.context else { return }
        loop.keepaliveArmed = false
        lws_sul_schedule(ctx, 0, &loop.keepaliveTimer.pointee.sul, nil, LWS_SET_TIMER_USEC_CANCEL)
    }
}
