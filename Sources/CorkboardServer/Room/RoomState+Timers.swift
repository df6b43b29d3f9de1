import CorkboardModel
import CorkboardProtocol
import Logging

/// What the room does on its clock: the tick that sends coalesced ephemeral updates, the sweep
/// that ends quiet drags, quiet edit leases and old placeholders, and the slow-client checks both
/// run (R8, R9, R11, R12).
///
/// A room asks for an alarm (`RoomAction.armTick`, `.arm`) only when something waits for a time: an
/// idle board (nobody dragging, nothing sent since the last sweep, no placeholder, nobody editing) holds no alarm.
extension RoomState {
    /// The tick's alarm fired: sends the coalesced updates, unless they already went out with
    /// committed output since the alarm was asked for (`sendUpdatesWithCommittedOutput`, busy
    /// only). Then this tick sends nothing, even if the server is no longer busy, and what changed
    /// since waits for the next one: peers never get a board's updates twice within a tick.
    mutating func tickFired(now: BoardTime) {
        ephemeral.tickStarted()
        let wentEarly = updatesWentEarly
        updatesWentEarly = false
        if !wentEarly { sendUpdates(now: now) }
    }

    /// While the server is busy, sends the coalesced updates right behind the batch's committed
    /// output, in the same socket writes, instead of in writes of their own at the tick.
    ///
    /// A busy server's cost is mostly socket writes (a `send` on loopback also runs the peer's
    /// receive), and a drop already writes to every member. So when the batch sent an `op` or
    /// `ack`, a tick is armed (something waits for it) and the configured tick has passed since
    /// the last updates, they go now; the armed tick then sends nothing (`tickFired`).
    mutating func sendUpdatesWithCommittedOutput(now: BoardTime, busy: Bool) {
        guard busy, batchSentCommitted, ephemeral.tickScheduled else { return }
        if let sent = updatesSentAt, now < sent.advanced(by: configuration.tick) { return }
        sendUpdates(now: now)
        updatesWentEarly = true
        flush()
    }

    /// While the server is not busy, sends the batch's hovers to peers as the batch ends, in the
    /// same writes as its other output: the latest per drag, one message each, instead of waiting
    /// up to a tick for them.
    ///
    /// Each send costs every peer a socket write, so sends are at least a hover window apart
    /// (`RoomConfiguration.hoverWindow`): the first hover after a quiet window goes at once, and
    /// those that come within the window wait for its end (a `.hoverWindow` alarm) to share one
    /// write per peer. A drag hovering faster than the tick is paced to it (`HoverPace`): its extra
    /// hovers wait for the tick. Once busy (the tick stretched), hovers wait for the tick again and
    /// are coalesced across batches; cursors and presence always wait for it.
    mutating func sendHoversAtOnce(now: BoardTime, busy: Bool) {
        guard !busy, drags.hasPendingHovers else { return }
        if let sent = hoversSentAt, now < sent.advanced(by: configuration.hoverWindow) {
            if !hoverWindowArmed {
                hoverWindowArmed = true
                actions.append(.arm(.hoverWindow, at: sent.advanced(by: configuration.hoverWindow)))
            }
            return
        }
        hoversSentAt = now
        drags.sendHovers(members: &members, outbox: &outbox, now: now, tick: configuration.tick, atOnce: true)
    }

    /// Sends the coalesced updates: the joins and leaves since the last tick, the drag starts and
    /// draggers' answers that waited for it (a busy server), each changed drag's latest hover, each
    /// moved cursor, each changed presence, one message each, encoded once for all recipients
    /// (after R11's check).
    mutating func sendUpdates(now: BoardTime) {
        updatesSentAt = now
        checkBacklogs(now: now)
        members.sendRosterChanges(into: &outbox)
        drags.sendHovers(members: &members, outbox: &outbox, now: now, tick: configuration.tick)
        ephemeral.send(members: &members, outbox: &outbox)
    }

    /// Ends quiet drags (R9) and quiet edit leases (R12), deletes placeholders of owners who did not come back in time and
    /// placeholders past their maximum age (R8), and checks slow members (R11).
    mutating func sweep(now: BoardTime) {
        if let deadline = sweepDeadline, deadline <= now { sweepDeadline = nil }
        sentSinceSweep = false
        transfers.forgetInline()
        transfers.forgetParts(now: now, retention: configuration.sharedPartsRetention)
        checkBacklogs(now: now)
        for key in drags.quiet(at: now, quietPeriod: configuration.leaseQuietPeriod) {
            drags.end(key, reason: .expired, leases: &leases.drags, members: &members, outbox: &outbox)
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
    mutating func checkBacklogs(now: BoardTime) {
        let handles = members.handles
        for (handle, pending) in zip(handles, backlogs.pendingBytes(of: handles)) {
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

    /// Asks for the alarms the room's state needs after a batch: the tick when hovers, cursors or
    /// presence wait for it, the sweep when something may expire or a member may fall behind, the
    /// snapshot pump while a transfer is in progress.
    mutating func scheduleTimers(now: BoardTime) {
        if ephemeral.needsTick(
            alsoPending: drags.waitsForTick || members.roster.isPending)
        {
            actions.append(.armTick(after: now))
        }
        if transfers.needsTimer() {
            actions.append(.arm(.transfer, at: now.advanced(by: configuration.snapshotPumpInterval)))
        }
        if let next = nextSweep(now: now), sweepDeadline.map({ next < $0 }) ?? true {
            sweepDeadline = next
            actions.append(.arm(.sweep, at: next))
        }
    }

    /// When the next sweep is due, or `nil` when nothing waits for one: every `sweepInterval`
    /// while drags are live, members are slow or messages went out since the last sweep (R9,
    /// R11); at a departed owner's grace deadline and at the oldest placeholder's maximum age
    /// (R8); when the quietest edit lease runs out (R12); when the board's kept encoding in parts
    /// is due to go (R14).
    ///
    /// The regular sweep is phased like the tick: the interval is cut into phases (at most 64, so
    /// about 16 ms apart for the 1 s sweep), and the room sweeps in the one its board's slot
    /// picks. Rooms still share wakes (a phase serves every room in it), but a thousand busy rooms
    /// no longer all sweep in the same instant: that burst, at each whole second, held every drop
    /// read around it behind it.
    mutating func nextSweep(now: BoardTime) -> BoardTime? {
        var next: BoardTime?
        func consider(_ deadline: BoardTime) { next = next.map { min($0, deadline) } ?? deadline }
        if !drags.isEmpty || members.hasSlowMembers || sentSinceSweep {
            consider(
                RoomTimers.phased(
                    after: now, period: configuration.sweepInterval, base: configuration.tick, slot: tickSlot))
        }
        if let departed = members.earliestDeparture {
            consider(departed.advanced(by: configuration.placeholderGracePeriod))
        }
        if let created = oldestPlaceholder(now: now) {
            consider(created.advanced(by: configuration.placeholderMaximumAge))
        }
        if let expiry = transfers.partsExpiry(retention: configuration.sharedPartsRetention) {
            consider(expiry)
        }
        if let activity = leases.edits.earliestActivity {
            consider(BoardTime(secondsSince1970: activity).advanced(by: configuration.editLeaseQuietPeriod))
        }
        // Never ask for a deadline already past: it would fire at once, again and again.
        return next.map { max($0, now.advanced(by: configuration.tick)) }
    }

    /// The creation time of the board's oldest placeholder; scanned again only after the board
    /// changed, and only on a board that has placeholders.
    private mutating func oldestPlaceholder(now: BoardTime) -> BoardTime? {
        guard sequencer.board.placeholderCount > 0 else { return nil }
        if placeholderScan?.head != sequencer.head {
            let oldest = sequencer.board.earliestPlaceholderCreation.map { BoardTime(secondsSince1970: $0) }
            placeholderScan = (sequencer.head, oldest)
        }
        return placeholderScan?.oldest
    }
}
