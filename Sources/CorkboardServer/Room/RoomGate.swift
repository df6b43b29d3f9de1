/// Who may change a room's sequencer right now: its own batch of events, or a move between two
/// boards that holds both rooms (R14).
///
/// A move between boards must commit on two rooms as one step: the destination inserts and the
/// source takes out, with nothing sequenced on either board in between, and both operations go to
/// the store in one transaction. A move holds both rooms' gates (entered in board-id order, so two
/// moves in opposite directions cannot wait on each other), and a room's run loop enters its own
/// gate around each batch. Holding a gate never spans waiting for the store.
struct RoomGate {
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Takes the gate if it is free; `false` means the caller must queue.
    mutating func tryEnter() -> Bool {
        guard !held else { return false }
        held = true
        return true
    }

    /// Queues a caller; it is resumed holding the gate.
    mutating func enqueue(_ waiter: CheckedContinuation<Void, Never>) { waiters.append(waiter) }

    /// Gives the gate to the first waiter (returned, to be resumed) or frees it.
    mutating func leave() -> CheckedContinuation<Void, Never>? {
        precondition(held, "leaving a room gate that is not held")
        guard !waiters.isEmpty else {
            held = false
            return nil
        }
        return waiters.removeFirst()
    }
}

extension Room {
    /// Waits until this room's gate is free and takes it.
    func enterGate() async {
        if gate.tryEnter() { return }
        await withCheckedContinuation { gate.enqueue($0) }
    }

    /// Releases this room's gate to the next waiter.
    func leaveGate() {
        gate.leave()?.resume()
    }
}
