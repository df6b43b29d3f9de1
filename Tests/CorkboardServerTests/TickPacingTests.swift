import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Synchronization
import Testing

@testable import CorkboardServer

/// A gauge that reports what the test says the CPU use is.
private final class ScriptedGauge: LoadGauge {
    private let use = Mutex<Double?>(nil)
    private let reads = Atomic<Int>(0)

    func set(_ value: Double) { use.withLock { $0 = value } }
    var readCount: Int { reads.load(ordering: .relaxed) }

    func sample() -> Double? {
        reads.add(1, ordering: .relaxed)
        return use.withLock { $0 }
    }
}

@Suite("The tick stretches while the server is busy, and only the tick")
struct TickPacingTests {
    let base = Duration.milliseconds(33)

    @Test(
        "busy stretches in proportion (at most by half) up to the maximum, idle shrinks back to the tick, in between holds"
    )
    func pacerSteps() {
        let gauge = ScriptedGauge()
        var pacer = TickPacer(pacing: TickPacing(maximum: .milliseconds(200), busy: 0.75, idle: 0.55))
        var now = BoardTime(secondsSince1970: 1_000)
        func step(_ use: Double) -> Duration {
            gauge.set(use)
            now = now.advanced(by: .milliseconds(250))
            pacer.observe(now: now, gauge: gauge, base: base)
            return pacer.period(base: base)
        }
        #expect(pacer.period(base: base) == base)
        #expect(step(0.99) == .milliseconds(50))  // 0.99 / 0.65 > 1.5: by half, 49.5 to whole ms
        #expect(step(0.78) == .milliseconds(59))  // 0.78 / 0.65 = 1.2
        #expect(step(0.76) == .milliseconds(69))  // 59.4 × 0.76 / 0.65
        #expect(step(0.65) == .milliseconds(69), "between idle and busy the tick holds")
        #expect(step(0.52) == .milliseconds(56))  // 0.52 / 0.65 = 0.8
        for _ in 0..<10 { _ = step(0.99) }
        #expect(pacer.period(base: base) == .milliseconds(200), "never past the maximum")
        var shrinking: [Duration] = []
        for _ in 0..<12 { shrinking.append(step(0.1)) }
        #expect(zip(shrinking, shrinking.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(shrinking.last == base, "back to the configured tick once idle")
    }

    @Test("after a quiet spell (no alarms for long) the tick starts again from the configured one")
    func quietSpellResets() {
        let gauge = ScriptedGauge()
        var pacer = TickPacer(pacing: TickPacing(maximum: .milliseconds(300), sampleEvery: .milliseconds(250)))
        var now = BoardTime(secondsSince1970: 1_000)
        gauge.set(0.99)
        for _ in 0..<8 {
            now = now.advanced(by: .milliseconds(250))
            pacer.observe(now: now, gauge: gauge, base: base)
        }
        #expect(pacer.period(base: base) == .milliseconds(300))
        // Still busy when the alarms come back, but after a long pause: from the configured tick.
        now = now.advanced(by: .seconds(5))
        let changed = pacer.observe(now: now, gauge: gauge, base: base)
        #expect(changed)
        #expect(pacer.period(base: base) == .milliseconds(48), "from 33 ms, one step up (0.99 / 0.675)")
    }

    @Test("the gauge is read at most once per sample period; off never reads it")
    func sampling() {
        let gauge = ScriptedGauge()
        gauge.set(0.9)
        var pacer = TickPacer(pacing: TickPacing(sampleEvery: .milliseconds(250)))
        let start = BoardTime(secondsSince1970: 1_000)
        for ms in stride(from: 0, to: 1000, by: 10) {
            pacer.observe(now: start.advanced(by: .milliseconds(Int64(ms))), gauge: gauge, base: base)
        }
        #expect(gauge.readCount == 4)
        var off = TickPacer(pacing: .off)
        off.observe(now: start, gauge: gauge, base: base)
        off.observe(now: start.advanced(by: .seconds(10)), gauge: gauge, base: base)
        #expect(gauge.readCount == 4 && off.period(base: base) == base)
    }

    @Test("rooms share the stretched tick: each ticks at its phase of the period, the rooms of a phase on one wake")
    func roomsShareTheStretchedTick() async throws {
        let clock = ManualClock()
        let period = Duration.milliseconds(100)
        let timers = busyTimers(clock, use: 0.95, maximum: period)
        let registry = RoomRegistry()
        let rooms = (0..<5).map { RoomHarness(board: "b\($0)", clock: clock, registry: registry, timers: timers) }
        for h in rooms {
            await h.join(conn(1))
            await h.join(conn(2))
        }
        await stretch(timers, rooms: rooms, clock: clock, to: period)
        #expect(timers.tick(base: base) == period)
        for h in rooms {
            _ = h.sink.take(conn(2))
            await h.send(conn(1), .cursor(.init(x: 3, y: 4)))
        }
        let now = clock.now
        let deadlines = rooms.map {
            RoomTimers.phased(after: now, period: period, base: base, slot: $0.room.tickSlot)
        }
        for (h, deadline) in zip(rooms, deadlines) {
            #expect(timers.tickDeadline(after: now, base: base, slot: h.room.tickSlot) == deadline)
            #expect(now < deadline && now.duration(to: deadline) <= period)
        }
        // Phase by phase: no tick before a room's deadline (a sweep may come: it sends no
        // cursor), then the cursors of every room of that phase on one wake.
        for phase in Set(deadlines).sorted() {
            clock.advance(by: clock.now.duration(to: phase) - .milliseconds(1))
            try await Task.sleep(for: .milliseconds(20))
            for (h, deadline) in zip(rooms, deadlines) where deadline >= phase {
                let early = h.room.takeQueuedEvents()
                #expect(!early.contains { if case .tick = $0 { true } else { false } })
                await h.room.process(early)
                #expect(h.sink.take(conn(2)).compactMap(\.cursor).isEmpty)
            }
            clock.advance(by: .milliseconds(1))
            for (h, deadline) in zip(rooms, deadlines) where deadline == phase {
                _ = await h.firedEvents()
                #expect(h.sink.take(conn(2)).compactMap(\.cursor).map(\.x) == [3])
            }
        }
    }

    @Test("a stretched tick never holds a committed operation: the op reaches peers in its own batch")
    func committedOperationsNeverWaitForTheTick() async throws {
        let (clock, timers, h) = await busyRoom(maximum: .milliseconds(500))
        await stretch(timers, rooms: [h], clock: clock, to: .milliseconds(500))
        #expect(timers.tick(base: base) == .milliseconds(500))
        _ = h.sink.take(conn(2))
        #expect(await h.dragBegin(conn(1), "d", [h.gc(1)]) != nil)
        let ack = await h.drop(conn(1), "d", opId: "o1", at: h.at(h.found, h.foundSection, 0))
        #expect(ack?.outcome.committed != nil)
        // No clock movement: the op is already there.
        #expect(h.sink.take(conn(2)).compactMap(\.op).map(\.opId) == ["o1"])
    }

    @Test(
        "while busy, a batch that sends committed output carries the pending updates in the same writes; the armed tick then sends nothing",
        arguments: [false, true])
    func busyUpdatesRideCommittedOutput(durable: Bool) async throws {
        let store = durable ? ManualStore() : nil
        let (clock, timers, h) = await busyRoom(maximum: .milliseconds(500), store: store)
        await stretch(timers, rooms: [h], clock: clock, to: .milliseconds(500))
        let period = timers.tick(base: base)
        #expect(period == .milliseconds(500))
        // A tick at a known time: the room's updates last went out at `ticked`.
        let ticked = timers.tickDeadline(after: clock.now, base: base, slot: h.room.tickSlot)
        await h.send(conn(1), .cursor(.init(x: 1, y: 1)))
        clock.advance(by: clock.now.duration(to: ticked))
        _ = await h.firedEvents()
        _ = h.sink.take(conn(1))
        _ = h.sink.take(conn(2))
        func hover(_ index: Int) async { await h.send(conn(1), hoverUpdate(h, index, ref: nil)) }
        /// conn(2) drags `session` and drops it: committed output (its `ack`, conn(1)'s `op`).
        /// Returns what conn(2) got from the drop on (its `ack` and anything that went with it).
        func commitFromConn2(_ session: String, _ item: Int) async -> [ServerMessage] {
            #expect(await h.dragBegin(conn(2), session, [h.gc(item)]) != nil)
            let drop = ClientMessage.Drop(
                ref: nil, session: session, opId: "o-\(session)", base: await h.room.head,
                destination: h.at(h.found, h.foundSection, 0))
            await h.send(conn(2), .drop(drop))
            if let store {
                #expect(store.completePending() == 1)
                await h.processQueuedEvents()
            }
            let got = h.sink.take(conn(2))
            #expect(got.compactMap(\.ack).first?.outcome.committed != nil)
            return got
        }
        func startsOfD(_ messages: [ServerMessage]) -> [DragState] {
            messages.compactMap(\.dragStarted).filter { $0.session == "d" }
        }

        #expect(await h.dragBegin(conn(1), "d", [h.gc(1)]) != nil)
        await hover(0)
        // Less than the configured tick after the last updates: they wait for the tick.
        let first = await commitFromConn2("e", 2)
        #expect(h.sink.take(conn(1)).compactMap(\.op).count == 1)
        #expect(startsOfD(first).isEmpty, "within a configured tick of the last updates nothing goes early")

        clock.advance(by: base)
        await hover(1)
        let second = await commitFromConn2("f", 3)
        let conn1 = h.sink.take(conn(1))
        #expect(conn1.compactMap(\.op).count == 1)
        #expect(conn1.compactMap(\.proposal).map(\.target.index) == [1], "the dragger's waiting answer went with it")
        #expect(
            startsOfD(second).map { $0.target?.index } == [1], "the drag's start and latest hover went with the ack")

        // The armed tick sends nothing; the next one sends what changed since.
        await hover(2)
        clock.advance(by: clock.now.duration(to: ticked.advanced(by: period)))
        _ = await h.firedEvents()
        #expect(h.sink.take(conn(2)).compactMap(\.dragHover).isEmpty, "the armed tick was spent by the early updates")
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).isEmpty)
        clock.advance(by: period)
        _ = await h.firedEvents()
        #expect(h.sink.take(conn(2)).compactMap(\.dragHover).map(\.target.index) == [2])
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).map(\.target.index) == [2])
    }

    @Test("idle, a hover goes to peers as its batch ends; cursors still wait for the tick")
    func idleHoversGoAtOnce() async throws {
        let clock = ManualClock()
        let timers = busyTimers(clock, use: 0.1, maximum: .milliseconds(500))
        let h = RoomHarness(clock: clock, timers: timers)
        await h.join(conn(1))
        await h.join(conn(2))
        #expect(await h.dragBegin(conn(1), "d", [h.gc(1)]) != nil)
        clock.advance(by: base)
        _ = await h.firedEvents()
        _ = h.sink.take(conn(2))
        clock.advance(by: base)
        await h.send(conn(1), hoverUpdate(h, 4, ref: nil))
        await h.send(conn(1), .cursor(.init(x: 1, y: 2)))
        #expect(!timers.isBusy)
        #expect(h.sink.take(conn(2)).map(\.type) == ["dragHover"])
        clock.advance(by: base)
        _ = await h.firedEvents()
        #expect(h.sink.take(conn(2)).map(\.type) == ["cursor"], "the tick sends the cursor, not the hover again")
    }

    @Test("Room.post: only while busy does a ref-less dropUpdate wait in the inbox for the tick (the latest per drag)")
    func onlyBusyHoversWaitInTheInbox() async throws {
        let (clock, timers, h) = await busyRoom(maximum: .milliseconds(200))
        func hover(_ index: Int, ref: String? = nil) -> RoomEvent { .message(conn(1), hoverUpdate(h, index, ref: ref)) }
        // The tick armed by hand, so only the routing decides; idle, every hover is an event of its own.
        #expect(!timers.isBusy)
        h.room.inbox.armTick()
        #expect(h.room.post(hover(0)) && h.room.post(hover(1)))
        #expect(h.room.takeQueuedEvents().count == 2)
        #expect(h.room.inbox.supersededHovers == 0)
        await stretch(timers, rooms: [h], clock: clock, to: .milliseconds(200))
        #expect(timers.isBusy)
        _ = h.room.takeQueuedEvents()
        h.room.inbox.armTick()
        // Busy: the second ref-less hover of the drag replaces the first; one with a ref does not wait.
        #expect(h.room.post(hover(2)) && h.room.post(hover(3)) && h.room.post(hover(4, ref: "asked")))
        #expect(h.room.inbox.supersededHovers == 1)
        let queued = h.room.takeQueuedEvents()
        let indexes = queued.compactMap { event -> Int? in
            if case .message(_, .dropUpdate(let update)) = event { update.target.index } else { nil }
        }
        #expect(indexes == [3, 4], "the waiting hover goes ahead of the event that ended its wait")
    }

    @Test(
        "while busy, a dragger's own proposal without a ref goes with the tick (the latest); with a ref at once; idle at once"
    )
    func busyAnswersGoWithTheTick() async throws {
        let (clock, timers, h) = await busyRoom(maximum: .milliseconds(200))
        func hover(_ index: Int, ref: String? = nil) async { await h.send(conn(1), hoverUpdate(h, index, ref: ref)) }
        #expect(await h.dragBegin(conn(1), "d", [h.gc(1)]) != nil)
        // Idle: every dropUpdate answered at once.
        #expect(!timers.isBusy)
        await hover(0)
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).map(\.target.index) == [0])
        // Busy: stretch the tick (cursors keep the timers firing).
        await stretch(timers, rooms: [h], clock: clock, to: .milliseconds(200))
        #expect(timers.isBusy)
        _ = h.sink.take(conn(1))
        _ = h.sink.take(conn(2))
        await hover(1)
        await hover(2)
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).isEmpty, "busy: no answer before the tick")
        await hover(3, ref: "asked")
        #expect(
            h.sink.take(conn(1)).compactMap(\.proposal).map { [$0.target.index, $0.ref == "asked" ? 1 : 0] } == [
                [3, 1]
            ],
            "a dropUpdate with a ref is answered at once, and its answer replaces the waiting one")
        await hover(4)
        await hover(5)
        clock.advance(by: timers.tick(base: base))
        _ = await h.firedEvents()
        let answers = h.sink.take(conn(1)).compactMap(\.proposal)
        #expect(answers.map(\.target.index) == [5] && answers.first?.ref == nil, "one answer, the latest, at the tick")
        #expect(h.sink.take(conn(2)).compactMap(\.dragHover).map(\.target.index) == [5])
        // A drop before the tick: the drag ends, and no stale proposal follows it.
        await hover(6)
        let ack = await h.drop(conn(1), "d", opId: "o1", at: h.at(h.found, h.foundSection, 0))
        #expect(ack?.outcome.committed != nil)
        clock.advance(by: timers.tick(base: base))
        try await Task.sleep(for: .milliseconds(20))
        await h.room.process(h.room.takeQueuedEvents())
        #expect(h.sink.take(conn(1)).compactMap(\.proposal).isEmpty)
    }

    @Test("the process gauge reads CPU use over the CPUs the process may run on")
    func processGauge() {
        let gauge = ProcessLoadGauge()
        #expect(gauge.cpus >= 1)
        #expect(gauge.sample() == nil, "the first reading has nothing to compare with")
        // Burn some CPU: the share is positive (this thread ran), and bounded by the CPUs.
        var x: UInt64 = 1
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < .milliseconds(60) { x = x &* 6_364_136_223_846_793_005 &+ 1 }
        #expect(x != 0)
        let use = gauge.sample()
        #expect(use != nil)
        if let use { #expect(use > 0.05 && use < Double(gauge.cpus) + 0.5) }
    }
}

/// A room with members on connections 1 and 2 (operations waiting for `store`, if any), on
/// timers whose gauge reports the CPU fully used, so the tick stretches up to `maximum` as alarms
/// fire (see `stretch`).
private func busyRoom(
    maximum: Duration, store: ManualStore? = nil
) async -> (clock: ManualClock, timers: RoomTimers, h: RoomHarness) {
    let clock = ManualClock()
    let timers = busyTimers(clock, use: 1.0, maximum: maximum)
    let h = RoomHarness(clock: clock, store: store, timers: timers)
    await h.join(conn(1))
    await h.join(conn(2))
    return (clock, timers, h)
}

/// A `dropUpdate` of drag "d" over position `index` of the harness's found section.
private func hoverUpdate(_ h: RoomHarness, _ index: Int, ref: String?) -> ClientMessage {
    .dropUpdate(
        .init(ref: ref, session: "d", target: DragTarget(collection: h.found, section: h.foundSection, index: index)))
}

/// Timers on a manual clock whose gauge reports `use`, sampled at every firing, stretching up to
/// `maximum`.
private func busyTimers(_ clock: ManualClock, use: Double, maximum: Duration) -> RoomTimers {
    let gauge = ScriptedGauge()
    gauge.set(use)
    return RoomTimers(clock: clock, pacing: TickPacing(maximum: maximum, sampleEvery: .milliseconds(1)), gauge: gauge)
}

/// Keeps the rooms' timers firing (a cursor in each room every step) until their tick has
/// stretched to `maximum` (at most `steps` steps of `maximum`).
private func stretch(
    _ timers: RoomTimers, rooms: [RoomHarness], clock: ManualClock, to maximum: Duration, steps: Int = 20
) async {
    for _ in 0..<steps where timers.tick(base: .milliseconds(33)) < maximum {
        for h in rooms { await h.send(conn(1), .cursor(.init(x: 1, y: 2))) }
        clock.advance(by: maximum)
        for h in rooms { _ = await h.firedEvents() }
    }
}
