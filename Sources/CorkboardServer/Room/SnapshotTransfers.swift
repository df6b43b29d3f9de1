import CorkboardModel
import CorkboardProtocol

/// Snapshots on their way to members in parts (R14), with flow control: a member gets its next
/// part only while its unsent bytes are under a window, so a board of any size up to the limit
/// reaches a reader of any speed without ever nearing the slow-client close; a member that reads
/// nothing for too long is reported stalled.
///
/// A value that decides and returns what to send; the room sends it and keeps the clock. It also
/// decides how a member catching up gets the board (`BoardDelivery`).
struct SnapshotTransfers {
    /// One member's transfer.
    struct Transfer {
        var encoding: SnapshotEncoding
        /// The next part to send.
        var next = 0
        /// Whether the message announcing the parts was handed to the sink (parts may follow).
        var started = false
        /// When the member last read something or got a part.
        var lastProgress: BoardTime
        /// The member's unsent bytes after the last check.
        var lastPending = Int.max
    }

    /// What one check produced.
    struct Step {
        /// Parts to send, in order.
        var sends: [(EncodedMessage, ConnectionHandle)] = []
        /// Members whose transfer made no progress for the stall timeout (their transfer ended).
        var stalled: [ConnectionHandle] = []
    }

    private(set) var active: [ConnectionHandle: Transfer] = [:]
    /// The last encoding in parts made at a durable seq, shared by every joiner at that seq (and,
    /// with the operations since, by later joiners: `BoardDelivery`). Kept after its transfers end
    /// until it has not been used for `RoomConfiguration.sharedPartsRetention` (`forgetParts`).
    var shared: SnapshotEncoding?
    /// When a transfer of `shared` last began.
    private(set) var sharedUsedAt: BoardTime?
    /// The last inline encoding made at a durable seq, shared by every joiner at that seq until
    /// the next sweep (`forgetInline()`), so a room that nobody joins holds no copy of it.
    var sharedInline: InlineBoard?
    /// Whether a `.transfer` event is on its way.
    private(set) var timerScheduled = false

    /// Whether no transfer is in progress.
    var isEmpty: Bool { active.isEmpty }

    /// Whether a `.transfer` event must be scheduled; when it returns `true` the caller schedules
    /// one, and no other until `timerFired()`.
    mutating func needsTimer() -> Bool {
        guard !active.isEmpty, !timerScheduled else { return false }
        timerScheduled = true
        return true
    }

    /// The scheduled `.transfer` event arrived.
    mutating func timerFired() { timerScheduled = false }

    /// Registers a transfer for a member, replacing any earlier one; parts go out after `start`.
    mutating func begin(_ handle: ConnectionHandle, _ encoding: SnapshotEncoding, now: BoardTime) {
        active[handle] = Transfer(encoding: encoding, lastProgress: now)
        if shared?.seq == encoding.seq { sharedUsedAt = now }
    }

    /// Forgets a member's transfer (it left, or a new one replaces it). The shared encoding stays
    /// for the next joiners (`forgetParts`).
    mutating func cancel(_ handle: ConnectionHandle) {
        active[handle] = nil
    }

    /// Drops the shared inline encoding (the room's sweep: joins come in bursts, and a burst
    /// shares one encoding).
    mutating func forgetInline() { sharedInline = nil }

    /// Drops the shared encoding in parts when no transfer is in progress and none began for
    /// `retention` (the room's sweep), so a room nobody joins holds no copy of its board.
    mutating func forgetParts(now: BoardTime, retention: Duration) {
        guard active.isEmpty, let used = sharedUsedAt, used.duration(to: now) >= retention else { return }
        shared = nil
        sharedUsedAt = nil
    }

    /// When `forgetParts` will let the shared encoding go, if one is kept and nothing uses it now:
    /// the sweep must come by then.
    func partsExpiry(retention: Duration) -> BoardTime? {
        guard active.isEmpty, shared != nil, let used = sharedUsedAt else { return nil }
        return used.advanced(by: retention)
    }

    /// The seq of a member's transfer, if it has one.
    func seq(of handle: ConnectionHandle) -> Int? { active[handle]?.encoding.seq }

    /// Marks a transfer started (its announcement was sent) and returns the first parts.
    mutating func start(
        _ handle: ConnectionHandle, now: BoardTime, window: Int, pendingBytes: Int
    ) -> [EncodedMessage] {
        guard var transfer = active[handle], !transfer.started else { return [] }
        transfer.started = true
        transfer.lastProgress = now
        var pending = pendingBytes
        let parts = take(&transfer, pending: &pending, window: window)
        transfer.lastPending = pending
        finish(handle, transfer)
        return parts
    }

    /// Sends every started transfer as many parts as fit in its window, and reports those that
    /// made no progress for `stallTimeout`.
    ///
    /// - Complexity: O(active transfers + parts sent).
    mutating func pump(
        now: BoardTime, window: Int, stallTimeout: Duration, pendingBytes: (ConnectionHandle) -> Int
    ) -> Step {
        var step = Step()
        for handle in active.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var transfer = active[handle], transfer.started else { continue }
            var pending = pendingBytes(handle)
            if pending < transfer.lastPending { transfer.lastProgress = now }
            let parts = take(&transfer, pending: &pending, window: window)
            if !parts.isEmpty { transfer.lastProgress = now }
            for part in parts { step.sends.append((part, handle)) }
            transfer.lastPending = pending
            if transfer.next < transfer.encoding.parts.count, transfer.lastProgress.duration(to: now) > stallTimeout {
                step.stalled.append(handle)
                cancel(handle)
                continue
            }
            finish(handle, transfer)
        }
        return step
    }

    /// The parts that fit in the window now.
    private func take(_ transfer: inout Transfer, pending: inout Int, window: Int) -> [EncodedMessage] {
        var parts: [EncodedMessage] = []
        let all = transfer.encoding.parts
        while transfer.next < all.count, pending < window {
            parts.append(all[transfer.next])
            pending += all[transfer.next].bytes.count
            transfer.next += 1
        }
        return parts
    }

    /// Stores a transfer, or drops it once every part was sent.
    private mutating func finish(_ handle: ConnectionHandle, _ transfer: Transfer) {
        if transfer.next >= transfer.encoding.parts.count {
            cancel(handle)
        } else {
            active[handle] = transfer
        }
    }
}
