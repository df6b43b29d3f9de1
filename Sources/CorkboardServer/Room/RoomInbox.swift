public import CorkboardProtocol
public import CorkboardStorage
import OrderedCollections
import Synchronization

/// What a room is asked to do, in the order its connections asked.
public enum RoomEvent: Sendable {
    /// A connection presented `hello` for this room.
    case join(ConnectionHandle, ClientMessage.Hello)
    /// A connection joins as a person: its `hello`'s invite or device was resolved in the catalog.
    case joinPerson(ConnectionHandle, ClientMessage.Hello, PersonJoin)
    /// The board's keys or people changed in the catalog (an admin's change saved, or another
    /// node's or process's re-read): see `RoomState+People.swift`.
    case accessChanged(AccessChange)
    /// The catalog refused an admin's change of the board's people; nothing changed.
    case peopleRefused(ConnectionHandle, ProtocolError)
    /// A joined connection sent a decoded message.
    case message(ConnectionHandle, ClientMessage)
    /// The connection closed.
    case leave(ConnectionHandle)
    /// A decoding error for a connection of this room (counts toward the 1008 limit).
    case invalid(ConnectionHandle, ProtocolError)
    /// Time to send coalesced ephemeral updates.
    case tick
    /// The hover window ended: hovers that waited for it go out (`RoomConfiguration.hoverWindow`).
    case hoverWindow
    /// Time to end quiet drags and clean up placeholders.
    case sweep
    /// Time to send snapshot parts to joiners with room in their window (R14).
    case transfer
    /// The store finished the transaction holding operations up to a seq (`nil`) or failed.
    case durable(Int, StoreError?)
    /// The store failed to write undo histories that went without operations: the room's next
    /// operations go with the board's histories whole (`UndoHistory.rewriteAll()`).
    case undoWriteFailed
    /// The board's share keys were replaced (`corkboard boards rotate-keys`): members who joined
    /// with the old keys are closed (`RoomState+KeyRotation.swift`).
    case keysRotated(BoardKeys)
    /// Another node of the cluster takes the board (a handoff, or this node lost its lease): the
    /// room redirects its members there and stops (`RoomState+Ownership.swift`).
    case relinquish(RoomHandoff)
    /// Another board answered what the room asked it about a drag over or onto it (R6, R14):
    /// a proposal, what it remembers of a resent drop, or how a drop there ended.
    case crossBoard(CrossBoardEvent)
}

/// A room's queue of events: any thread posts without waiting, the room takes everything queued at
/// once, so a burst is handled (and, with a durable store, committed) as one batch.
///
/// A hover that may wait for the tick (a `dropUpdate` without `ref` while the server is busy, see
/// `Room.post(_:)`) does not wake a room whose tick is armed: it is handled with the tick, and a
/// later hover of the same drag waiting the same way replaces it (ephemeral, latest per session
/// wins). A busy room then wakes about once per tick for its hovers, not once per hover.
final class RoomInbox: Sendable {
    /// A waiting hover's drag: the connection and its session.
    struct HoverKey: Hashable {
        var handle: ConnectionHandle
        var session: String
    }

    private struct State {
        var events: [RoomEvent] = []
        /// Hovers waiting for the armed tick, the latest per drag, in the order their drags first
        /// waited. Every one of them came after every event in `events`: an event that may not
        /// wait moves them into `events` before it.
        var waiting: OrderedDictionary<HoverKey, RoomEvent> = [:]
        var waiter: CheckedContinuation<[RoomEvent], Never>?
        var closed = false
        /// A tick is scheduled for the room and not yet posted: hovers may wait for it.
        var tickArmed = false
        /// Waiting hovers replaced by a later one of their drag (for tests).
        var superseded = 0
        /// When the oldest queued event was posted (read once per batch, not per event).
        var oldestPosted: ContinuousClock.Instant?
        /// When the oldest event of the batch taken last was posted.
        var takenPosted: ContinuousClock.Instant?

        /// Whether nothing is queued.
        var isEmpty: Bool { events.isEmpty && waiting.isEmpty }

        /// Moves the waiting hovers behind the queued events, in order.
        mutating func endWaiting() {
            guard !waiting.isEmpty else { return }
            // Moved, not copied: with nothing else queued the hovers' array becomes the queue.
            let moved = waiting.values.elements
            waiting = [:]
            if events.isEmpty { events = moved } else { events.append(contentsOf: moved) }
        }

        /// Takes the queued events (the waiting hovers last) and notes when the oldest was posted.
        mutating func takeEvents() -> [RoomEvent] {
            endWaiting()
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
    ///
    /// With `waitingFor`, the event is a hover that may wait: while the room's tick is armed it is
    /// queued without waking the room and replaces the waiting hover of the same drag.
    @discardableResult
    func post(_ event: consuming RoomEvent, waitingFor hover: HoverKey? = nil) -> Bool {
        // Moved into the queue, not copied: a copy retains every string of the message.
        var posted: RoomEvent? = consume event
        let (accepted, waiter, batch) = state.withLock {
            state -> (Bool, CheckedContinuation<[RoomEvent], Never>?, [RoomEvent]) in
            guard !state.closed else { return (false, nil, []) }
            if let hover, state.tickArmed {
                // Not the start of any wait that is timed: the room is not woken for it.
                // Assigned in place (`updateValue` would copy the new hover in and the old one out).
                if let index = state.waiting.index(forKey: hover) {
                    state.waiting.values[index] = posted.take()!
                    state.superseded += 1
                } else {
                    state.waiting[hover] = posted.take()!
                }
                return (true, nil, [])
            }
            if case .tick? = posted { state.tickArmed = false }
            if let waiter = state.waiter {
                state.waiter = nil
                guard state.isEmpty else {
                    // Hovers waited for the tick: they go first, in the order they came.
                    state.oldestPosted = .now
                    state.endWaiting()
                    state.events.append(posted.take()!)
                    return (true, waiter, state.takeEvents())
                }
                state.takenPosted = .now
                return (true, waiter, [posted.take()!])
            }
            if state.events.isEmpty { state.oldestPosted = .now }
            state.endWaiting()
            state.events.append(posted.take()!)
            return (true, nil, [])
        }
        waiter?.resume(returning: batch)
        return accepted
    }

    /// The room asked for a tick: until it is posted, hovers that may wait do not wake the room.
    func armTick() { state.withLock { $0.tickArmed = true } }

    /// Hovers that were replaced by a later hover of their drag while waiting for the tick.
    var supersededHovers: Int { state.withLock { $0.superseded } }

    /// Waits for at least one event and returns every queued one; an empty array once closed.
    ///
    /// Hovers waiting for the armed tick do not end the wait (the tick does); with no tick armed
    /// they are taken at once.
    func next() async -> [RoomEvent] {
        await withCheckedContinuation { continuation in
            let ready: [RoomEvent]? = state.withLock { state in
                if !state.events.isEmpty || (!state.waiting.isEmpty && !state.tickArmed) || state.closed {
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
