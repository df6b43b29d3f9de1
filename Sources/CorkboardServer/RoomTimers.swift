import Synchronization

/// The rooms' alarms: one task for all the rooms of a server sleeps until the earliest alarm and
/// posts every alarm that is due as a `RoomEvent`.
///
/// Rooms ask for an alarm only when they have work waiting for a time (hovers, cursors or presence
/// for the tick, a drag lease or a placeholder that may expire, a slow member, a snapshot
/// transfer), so an idle board holds no alarm and costs nothing. Ticks are aligned to phases: the
/// period is cut into phases an eighth of the configured tick apart (``phasesPerTick``, at most 64
/// in a period), and a room asking for a tick gets the next multiple of the period on the clock plus
/// its board's phase (`phased(after:period:base:slot:)`). The rooms of a phase share one wake-up
/// instead of each running its own timer, and the fan-out of many busy boards leaves in eight small
/// bursts per tick rather than one large one that every message arriving meanwhile would wait for.
///
/// The tick stretches while the server is busy (``TickPacing``): the timers read the process's CPU
/// use as they fire and hand every room the same, longer period, so that a busy server sheds
/// ephemeral fan-out before committed operations wait.
public final class RoomTimers: Sendable {
    /// An alarm holds the room's inbox, never the room: a stopped room's inbox is closed and
    /// takes nothing, and the room itself is freed. (A weak reference would also do that, but it
    /// gives the room a side table for good, and every retain of the room, one per message on the
    /// service thread, would then take the runtime's slow path.)
    private struct Alarm {
        let inbox: RoomInbox
        var event: RoomEvent
    }

    private struct State {
        /// Alarms by deadline; few distinct deadlines, since ticks are aligned.
        var due: [BoardTime: [Alarm]] = [:]
        var count = 0
        /// The deadline the driver task sleeps until, and its generation (a newer driver replaces it).
        var driverDeadline: BoardTime?
        var driver: Task<Void, Never>?
        var generation: UInt64 = 0
        var wakes = 0
        var pacer: TickPacer
        /// The tick rooms asked for last (the configured one; every room of a server has the same).
        var baseTick: Duration?
    }

    private let clock: any BoardClock
    private let state: Mutex<State>
    private let gauge: (any LoadGauge)?
    /// Whether the tick is stretched now (read by every room's batch without the lock).
    private let stretched = Atomic<Bool>(false)

    /// Alarms on `clock`; with a `gauge`, the tick stretches by `pacing` while the process is busy.
    public init(clock: any BoardClock, pacing: TickPacing = .off, gauge: (any LoadGauge)? = nil) {
        self.clock = clock
        self.gauge = gauge
        state = Mutex(State(pacer: TickPacer(pacing: gauge == nil ? .off : pacing)))
    }

    deinit { state.withLock { $0.driver?.cancel() } }

    /// The number of alarms waiting (for tests and `/healthz`): zero when every room is idle.
    public var pendingCount: Int { state.withLock { $0.count } }

    /// How many times the timer task woke up and posted alarms (for tests: aligned ticks share wakes).
    public var wakeCount: Int { state.withLock { $0.wakes } }

    /// Whether the server is busy: the tick is stretched past the configured one (``TickPacing``).
    /// Rooms then also send draggers' own proposals with the tick.
    public var isBusy: Bool { stretched.load(ordering: .relaxed) }

    /// The tick every room uses now, for a configured tick of `base`: `base`, or longer while the
    /// server is busy (``TickPacing``).
    public func tick(base: Duration) -> Duration { state.withLock { $0.pacer.period(base: base) } }

    /// The deadline of a room's next tick: the first time after `now` that is its `slot`'s phase
    /// of the current tick, the same for every room of that phase asking during one period.
    ///
    /// The period is cut into phases an eighth of `base` apart (at most 64) and a room ticks in
    /// the phase its `slot` picks: each wake still serves many rooms, wakes stay at most
    /// ``phasesPerTick`` per `base`, and the rooms' fan-out is spread over the period instead of
    /// arriving in one burst that committed operations would queue behind.
    func tickDeadline(after now: BoardTime, base: Duration, slot: UInt64 = 0) -> BoardTime {
        let period = state.withLock { state in
            state.baseTick = base
            return state.pacer.period(base: base)
        }
        return RoomTimers.phased(after: now, period: period, base: base, slot: slot)
    }

    /// Phases in one configured tick: rooms tick (and sweep) an eighth of a tick apart by board.
    ///
    /// All at once, 200 boards' ticks were thousands of socket writes in one burst, and drops read
    /// or committed meanwhile waited for it; eight phases cut that wait by about half at the same
    /// CPU.
    /// Wakes stay at most eight per tick, each serving the rooms of its phase.
    public static let phasesPerTick = 8

    /// The most phases a period is cut into, however long (a stretched tick, the sweep's second).
    public static let maximumPhases = 64

    /// The first time after `now` that is `slot`'s phase of `period`: `period` cut into phases an
    /// eighth of `base` apart (``phasesPerTick`` per `base`, at most ``maximumPhases``), the slot
    /// picking one. With `base` zero, or `period` under a quarter of `base`, every slot gets the
    /// aligned time.
    public static func phased(after now: BoardTime, period: Duration, base: Duration, slot: UInt64) -> BoardTime {
        guard base > .zero else { return aligned(after: now, period: period) }
        // A hair added so that a period of exactly `base` gives its eight phases despite rounding.
        let fit = (period / base * Double(phasesPerTick) + 1e-9).rounded(.down)
        let phases = UInt64(min(Double(maximumPhases), max(1, fit)))
        guard phases > 1 else { return aligned(after: now, period: period) }
        let offset = period * Double(slot % phases) / Double(phases)
        return aligned(after: now.advanced(by: .zero - offset), period: period).advanced(by: offset)
    }

    /// A stable slot for a board (FNV-1a of its id): the same on every run and every node.
    public static func slot(of board: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in board.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    /// The first multiple of `period` on the clock strictly after `now`: the deadline every room
    /// that asks for a tick during the same period gets.
    public static func aligned(after now: BoardTime, period: Duration) -> BoardTime {
        guard period > .zero else { return now }
        let periods = Int64((now.sinceEpoch / period).rounded(.down)) + 1
        var deadline = BoardTime(sinceEpoch: period * periods)
        // Rounding of the Double above may land at or before `now` for huge epochs: step once more.
        if !(now < deadline) { deadline = deadline.advanced(by: period) }
        return deadline
    }

    /// Posts `event` to `room` at `deadline` (or at once when it has passed). Only the room's
    /// inbox is held: a room that stopped and went away gets nothing.
    func schedule(_ event: RoomEvent, for room: Room, at deadline: BoardTime) {
        let replaced: Task<Void, Never>? = state.withLock { state in
            state.due[deadline, default: []].append(Alarm(inbox: room.inbox, event: event))
            state.count += 1
            if let current = state.driverDeadline, current <= deadline { return nil }
            let old = state.driver
            state.generation &+= 1
            state.driverDeadline = deadline
            state.driver = startDriver(until: deadline, generation: state.generation)
            return old
        }
        replaced?.cancel()
    }

    private func startDriver(until deadline: BoardTime, generation: UInt64) -> Task<Void, Never> {
        Task { [weak self, clock] in
            var deadline = deadline
            while true {
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                } catch {
                    return  // Cancelled: a driver for an earlier deadline took over.
                }
                guard let self, let next = self.fire(upTo: deadline, generation: generation) else { return }
                deadline = next
            }
        }
    }

    /// Posts every alarm due by `deadline` (or by now, if later); returns the next deadline to
    /// sleep until, or `nil` when this driver is done (nothing left, or it was replaced).
    private func fire(upTo deadline: BoardTime, generation: UInt64) -> BoardTime? {
        let now = clock.now
        let limit = deadline < now ? now : deadline
        let gauge = self.gauge
        let (alarms, next): ([Alarm], BoardTime?) = state.withLock { state in
            guard state.generation == generation else { return ([], nil) }
            if let gauge, let base = state.baseTick, state.pacer.observe(now: now, gauge: gauge, base: base) {
                stretched.store(state.pacer.stretch > 1, ordering: .relaxed)
            }
            var fired: [Alarm] = []
            for key in state.due.keys where key <= limit {
                fired.append(contentsOf: state.due.removeValue(forKey: key) ?? [])
            }
            state.count -= fired.count
            state.wakes += 1
            let next = state.due.keys.min()
            state.driverDeadline = next
            if next == nil { state.driver = nil }
            return (fired, next)
        }
        for alarm in alarms { alarm.inbox.post(alarm.event) }
        return next
    }
}
