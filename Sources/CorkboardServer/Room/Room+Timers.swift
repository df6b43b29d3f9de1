import CorkboardModel
import CorkboardProtocol
import Logging

/// What the room does on its clock: the tick that sends coalesced ephemeral updates, the sweep
/// that ends quiet drags and old placeholders, and the slow-client checks both run (R8, R9, R11).
extension Room {
    /// Sends the coalesced updates: each changed drag's latest hover, each moved cursor, each
    /// changed presence, one message each, encoded once for all recipients (after R11's check).
    func tick(now: BoardTime) {
        ephemeral.tickStarted()
        checkBacklogs(now: now)
        drags.sendHovers(members: &members, outbox: &outbox)
        ephemeral.send(members: &members, outbox: &outbox)
    }

    /// Ends quiet drags (R9), deletes placeholders of owners who did not come back in time and
    /// placeholders past their maximum age (R8), and checks slow members (R11).
    func sweep(now: BoardTime) {
        checkBacklogs(now: now)
        for key in drags.quiet(at: now, quietPeriod: configuration.leaseQuietPeriod) {
            drags.end(key, reason: .expired, leases: &sequencer.leases, members: &members, outbox: &outbox)
        }
        expireEdits(now: now)
        for client in members.departures(before: now.advanced(by: .zero - configuration.placeholderGracePeriod)) {
            for item in sequencer.board.placeholders(ownedBy: client) {
                logger.info(
                    "deleting a departed owner's placeholder", metadata: ["item": "\(item)", "owner": "\(client)"])
                sequenceSystem(.deletePlaceholder(.init(item: item)), opId: "cleanup-\(item)", now: now)
            }
        }
        let oldest = now.advanced(by: .zero - configuration.placeholderMaximumAge)
        for item in sequencer.board.placeholders(createdBefore: oldest.secondsSince1970) {
            logger.info("deleting an expired placeholder", metadata: ["item": "\(item)"])
            sequenceSystem(.deletePlaceholder(.init(item: item)), opId: "expire-\(item)", now: now)
        }
    }

    /// R11: marks members whose unsent output passed the bound as slow, closes those far past it,
    /// and catches up members that drained with the latest state of what they missed.
    func checkBacklogs(now: BoardTime) {
        for handle in members.handles {
            let pending = sink.pendingBytes(of: handle)
            switch members.updateBacklog(of: handle, pendingBytes: pending, configuration) {
            case .unchanged:
                break
            case .tooSlow:
                logger.notice(
                    "closing a slow connection",
                    metadata: ["member": "\(members[handle]?.member.id ?? "-")", "pendingBytes": "\(pending)"])
                leave(handle, now: now)
                outbox.close(
                    handle, code: CloseCode.policyViolation,
                    reason: "too slow to keep up; reconnect with your last seq to resume", discardingPending: true)
            case .drained(let missed):
                ephemeral.catchUp(handle, missed: missed, drags: drags, members: members, outbox: &outbox)
            }
        }
    }

    /// Schedules the tick when hovers, cursors or presence wait for it.
    func scheduleTick() {
        if ephemeral.needsTick(hoversPending: !drags.pendingHovers.isEmpty) { post(.tick, after: configuration.tick) }
    }

    /// Schedules the next check of the snapshot transfers while any is active.
    func scheduleTransferPump() {
        if transfers.needsTimer() { post(.transfer, after: configuration.snapshotPumpInterval) }
    }

    /// Posts an event to this room after a delay on its clock.
    func post(_ event: RoomEvent, after delay: Duration) {
        Task { [weak self, clock] in
            try? await clock.sleep(for: delay)
            self?.post(event)
        }
    }
}
