public import CorkboardProtocol
public import CorkboardStorage
import Synchronization

/// What a room is asked to do, in the order its connections asked.
public enum RoomEvent: Sendable {
    /// A connection presented `hello` for this room.
    case join(ConnectionHandle, ClientMessage.Hello)
    /// A joined connection sent a decoded message.
    case message(ConnectionHandle, ClientMessage)
    /// The connection closed.
    case leave(ConnectionHandle)
    /// A decoding error for a connection of this room (counts toward the 1008 limit).
    case invalid(ConnectionHandle, ProtocolError)
    /// Time to send coalesced ephemeral updates.
    case tick
    /// Time to end quiet drags and clean up placeholders.
    case sweep
    /// Time to send snapshot parts to joiners with room in their window (R14).
    case transfer
    /// The store finished the transaction holding operations up to a seq (`nil`) or failed.
    case durable(Int, StoreError?)
    /// The board's share keys were replaced (`corkboard boards rotate-keys`): members who joined
    /// with the old keys are closed (`Room+KeyRotation.swift`).
    case keysRotated(BoardKeys)
    /// Another node of the cluster takes the board (a handoff, or this node lost its lease): the
    /// room redirects its members there and stops (`Room+Ownership.swift`).
    case relinquish(RoomHandoff)
}

/// A room's queue of events: any thread posts without waiting, the room takes everything queued at
/// once, so a burst is handled (and, with a durable store, committed) as one batch.
final class RoomInbox: Sendable {
    private struct State {
        var events: [RoomEvent] = []
        var waiter: CheckedContinuation<[RoomEvent], Never>?
        var closed = false
        /// When the oldest queued event was posted (read once per batch, not per event).
        var oldestPosted: ContinuousClock.Instant?
        /// When the oldest event of the batch taken last was posted.
        var takenPosted: ContinuousClock.Instant?

        /// Takes the queued events and notes when the oldest was posted.
        mutating func takeEvents() -> [RoomEvent] {
            defer {
                events.removeAll(keepingCapacity: true)
                takenPosted = oldestPosted
                oldestPosted = nil
            }
            return events
        }
    }

    private let state = Mutex(State())

    /// Queues an event; returns at once; `false` when the inbox is closed (the event is dropped).
    @discardableResult
    func post(_ event: RoomEvent) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<[RoomEvent], Never>?) in
            guard !state.closed else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                state.takenPosted = .now
                return (true, waiter)
            }
            if state.events.isEmpty { state.oldestPosted = .now }
            state.events.append(event)
            return (true, nil)
        }
        waiter?.resume(returning: [event])
        return accepted
    }

    /// Waits for at least one event and returns every queued one; an empty array once closed.
    func next() async -> [RoomEvent] {
        await withCheckedContinuation { continuation in
            let ready: [RoomEvent]? = state.withLock { state in
                if !state.events.isEmpty || state.closed {
                    return state.takeEvents()
                }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Takes every queued event without waiting (possibly none).
    func takeAll() -> [RoomEvent] {
        state.withLock { $0.takeEvents() }
    }

    /// When the oldest event of the batch taken last was posted (`nil` once read, or when the
    /// batch came some other way): the start of the time a drop waited for its room.
    func takeBatchPostedAt() -> ContinuousClock.Instant? {
        state.withLock { state in
            defer { state.takenPosted = nil }
            return state.takenPosted
        }
    }

    /// Stops accepting events and wakes the waiter with nothing.
    func close() {
        let waiter = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: [])
    }
}
