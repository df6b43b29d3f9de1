import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// Waits until the room's alarms posted something, then handles it as one batch; returns it.
private func alarmsFired(_ h: RoomHarness, sourceLocation: SourceLocation = #_sourceLocation) async -> [RoomEvent] {
    var events: [RoomEvent] = []
    _ = await eventually("an alarm posts its event", sourceLocation: sourceLocation) {
        events += h.room.takeQueuedEvents()
        return !events.isEmpty
    }
    await h.room.process(events)
    return events
}

/// A room with `configuration`, joined by connections 1 and 2.
private func roomOfTwo(_ configuration: RoomConfiguration = RoomConfiguration()) async -> RoomHarness {
    let h = RoomHarness(configuration: configuration)
    await h.join(conn(1))
    await h.join(conn(2))
    return h
}

/// Lets the tick and the sweeps after the sends fire (a second of the clock at a time, three at
/// most) until one alarm at most remains: the deadline the test is about.
private func fireAllButTheLastAlarm(_ h: RoomHarness) async {
    for _ in 0..<3 where h.room.timers.pendingCount > 1 {
        h.clock.advance(by: .seconds(1))
        _ = await alarmsFired(h)
    }
}

/// `count` rooms (boards b0, b1, …) on one clock and one set of timers, each joined by connections 1 and 2.
private func roomsOfTwo(_ count: Int, clock: ManualClock, timers: RoomTimers) async -> [RoomHarness] {
    let registry = RoomRegistry()
    let rooms = (0..<count).map { RoomHarness(board: "b\($0)", clock: clock, registry: registry, timers: timers) }
    for h in rooms {
        await h.join(conn(1))
        await h.join(conn(2))
    }
    return rooms
}

private func isSweep(_ event: RoomEvent) -> Bool {
    if case .sweep = event { return true }
    return false
}

private func isTick(_ event: RoomEvent) -> Bool {
    if case .tick = event { return true }
    return false
}

@Suite("Room alarms: idle rooms hold none, busy rooms share aligned wakes")
struct RoomTimerTests {
    @Test("Ticks are aligned: every room asking during one period gets the same deadline, after now")
    func alignment() {
        let period = Duration.milliseconds(33)
        let now = BoardTime(secondsSince1970: 1_795_262_400.0105)
        let deadline = RoomTimers.aligned(after: now, period: period)
        #expect(now < deadline)
        #expect(now.duration(to: deadline) <= period)
        #expect(RoomTimers.aligned(after: now.advanced(by: .milliseconds(5)), period: period) == deadline)
        #expect(RoomTimers.aligned(after: deadline, period: period) == deadline.advanced(by: period))
    }

    @Test("Ticks are cut into phases an eighth of the base tick apart: rooms spread over the period, each stable")
    func ticksArePhased() {
        let base = Duration.milliseconds(33)
        let now = BoardTime(secondsSince1970: 1_795_262_400.0105)
        for (period, phases) in [(base, 8), (Duration.milliseconds(66), 16), (Duration.milliseconds(500), 64)] {
            // Each deadline is after now, within a period, and a multiple of the period plus its
            // phase; slots that far apart share it.
            var deadlines = Set<BoardTime>()
            for slot in 0..<UInt64(phases) {
                let deadline = RoomTimers.phased(after: now, period: period, base: base, slot: slot)
                #expect(now < deadline)
                #expect(now.duration(to: deadline) <= period)
                #expect(
                    RoomTimers.phased(after: deadline, period: period, base: base, slot: slot)
                        == deadline.advanced(by: period))
                #expect(
                    RoomTimers.phased(after: now, period: period, base: base, slot: slot + UInt64(phases)) == deadline)
                deadlines.insert(deadline)
            }
            #expect(deadlines.count == phases, "one wake per phase, many rooms per wake (\(period))")
            // Board ids spread over the phases.
            let slots = Set((0..<1000).map { RoomTimers.slot(of: "board-\($0)") % UInt64(phases) })
            #expect(slots.count == phases)
        }
        // No tick to cut (a zero base): every room at the aligned time, whatever its slot.
        for slot: UInt64 in [0, 1, 7, 12_345] {
            #expect(
                RoomTimers.phased(after: now, period: base, base: .zero, slot: slot)
                    == RoomTimers.aligned(after: now, period: base))
        }
        #expect(RoomTimers.slot(of: "b-1") == RoomTimers.slot(of: "b-1"))
    }

    @Test("A room whose members only watch holds no alarm once its one sweep ran: an idle board costs nothing")
    func idleRoomHoldsNoAlarm() async throws {
        let h = await roomOfTwo()
        // The tick announces the joins; a sweep follows what went out, to check that nobody fell
        // behind (R11). Then nothing waits for a time.
        #expect(h.room.timers.pendingCount == 2)
        var fired: [RoomEvent] = []
        for _ in 0..<3 where h.room.timers.pendingCount > 0 {
            h.clock.advance(by: .seconds(1))
            fired += await alarmsFired(h)
        }
        #expect(fired.contains(where: isTick) && fired.contains(where: isSweep))
        #expect(h.room.timers.pendingCount == 0, "nothing waits for a time: no tick, no sweep")
        h.clock.advance(by: .seconds(60))
        try await Task.sleep(for: .milliseconds(20))
        #expect(h.room.takeQueuedEvents().isEmpty, "an idle room gets no events at all")
    }

    @Test("Busy rooms share wake-ups: 40 rooms' cursors go out on one wake per phase, at most eight per tick")
    func alignedTicksShareWakes() async throws {
        let clock = ManualClock()
        let timers = RoomTimers(clock: clock)
        let rooms = await roomsOfTwo(40, clock: clock, timers: timers)
        for h in rooms {
            _ = h.sink.take(conn(2))
            await h.send(conn(1), .cursor(.init(x: 1, y: 2)))
        }
        let wakes = timers.wakeCount
        let now = clock.now
        let deadlines = rooms.map {
            RoomTimers.phased(after: now, period: .milliseconds(33), base: .milliseconds(33), slot: $0.room.tickSlot)
        }
        let phases = Set(deadlines).sorted()
        #expect(phases.count > 1 && phases.count <= RoomTimers.phasesPerTick, "\(phases.count) phases")
        // Phase by phase: the rooms of the phase tick on one wake, the others not yet.
        for phase in phases {
            clock.advance(by: clock.now.duration(to: phase))
            for (h, deadline) in zip(rooms, deadlines) where deadline == phase {
                let fired = await alarmsFired(h)
                #expect(fired.contains(where: isTick))
                #expect(h.sink.take(conn(2)).compactMap(\.cursor).count == 1)
            }
            for (h, deadline) in zip(rooms, deadlines) where deadline > phase {
                let early = h.room.takeQueuedEvents()
                #expect(!early.contains(where: isTick), "a later phase ticked early")
                await h.room.process(early)
                #expect(h.sink.take(conn(2)).compactMap(\.cursor).isEmpty)
            }
        }
        #expect(timers.wakeCount == wakes + phases.count, "one wake served every room of a phase")
    }

    @Test("Busy rooms sweep at their board's phase of the second, not all in the same instant")
    func sweepsArePhasedByBoard() async throws {
        let clock = ManualClock()
        let rooms = await roomsOfTwo(40, clock: clock, timers: RoomTimers(clock: clock))
        for h in rooms {
            #expect(await h.dragBegin(conn(1), "d1", [h.gc(1)]) != nil)
        }
        let now = clock.now
        var deadlines: Set<BoardTime> = []
        for h in rooms {
            let configuration = await h.room.configuration
            let next = try #require(await h.room.nextSweep(now: now), "a live drag needs sweeps (R9)")
            #expect(
                next
                    == RoomTimers.phased(
                        after: now, period: configuration.sweepInterval, base: configuration.tick,
                        slot: h.room.tickSlot))
            #expect(now < next && now.duration(to: next) <= configuration.sweepInterval)
            deadlines.insert(next)
        }
        // A thousand busy boards all sweeping at once stalled every drop read around that instant.
        #expect(deadlines.count >= 15, "40 boards sweep in many phases of the second: \(deadlines.count)")
    }

    @Test("R9: a quiet drag's lease ends on an alarm, without anyone posting a sweep")
    func quietDragEndsOnAlarm() async throws {
        let h = await roomOfTwo(RoomConfiguration(leaseQuietPeriod: .seconds(5)))
        #expect(await h.dragBegin(conn(1), "d1", [h.gc(1)]) != nil)
        _ = h.sink.take(conn(2))
        var ended = false
        for _ in 0..<8 where !ended {
            h.clock.advance(by: .seconds(1))
            _ = await alarmsFired(h)
            ended = h.sink.take(conn(2)).contains { $0.dragEnded?.reason == .expired }
        }
        #expect(ended)
        #expect(await h.room.liveDrags.isEmpty)
    }

    @Test("R12: a quiet edit lease ends on an alarm set for its quiet period, without anyone posting a sweep")
    func quietEditLeaseEndsOnAlarm() async throws {
        let h = await roomOfTwo(RoomConfiguration(editLeaseQuietPeriod: .seconds(120)))
        #expect(await h.editBegin(conn(1), h.gc(1)).contains { $0.editGranted != nil })
        // The tick and the sweeps after the sends, then only the lease's own deadline remains.
        await fireAllButTheLastAlarm(h)
        #expect(h.room.timers.pendingCount == 1, "one alarm: the edit lease's quiet period")
        _ = h.sink.take(conn(2))
        h.clock.advance(by: .seconds(120))
        var ended = false
        for _ in 0..<3 where !ended {
            _ = await alarmsFired(h)
            ended = h.sink.take(conn(2)).contains { $0.editEnded?.reason == .expired }
            h.clock.advance(by: .seconds(1))
        }
        #expect(ended)
        #expect(await h.room.editStates.isEmpty)
    }

    @Test("R8: a placeholder past its maximum age is deleted on an alarm set for exactly then")
    func placeholderExpiresOnAlarm() async throws {
        let h = await roomOfTwo(RoomConfiguration(placeholderMaximumAge: .seconds(300)))
        let created = h.clock.now.secondsSince1970
        let insert = BoardOperation.insertPlaceholder(
            .init(destination: h.at(h.inbox, h.inboxSection, 0), createdAt: created))
        #expect(await h.submit(conn(1), insert, opId: "p1")?.outcome.committed != nil)
        // The tick and the sweeps after the sends, then only the placeholder's own deadline remains.
        await fireAllButTheLastAlarm(h)
        #expect(h.room.timers.pendingCount == 1, "one alarm: the placeholder's maximum age")
        _ = h.sink.take(conn(2))
        h.clock.advance(by: .seconds(300))
        _ = await alarmsFired(h)
        let op = try #require(h.sink.take(conn(2)).compactMap(\.op).first)
        #expect(op.op.kind == "deletePlaceholder")
        #expect(await h.snapshot.board.placeholderCount == 0)
    }

    @Test("A room that went away gets nothing, and its alarms do not keep it alive")
    func alarmsDoNotKeepARoomAlive() async throws {
        let clock = ManualClock()
        let timers = RoomTimers(clock: clock)
        weak var released: Room?
        do {
            let room = Room(
                info: BoardInfo(id: "b", title: "B"), keys: testKeys,
                sequencer: Sequencer(board: try Board(collections: BoardTemplate.demo.collections(board: "b"))),
                sink: RecordingSink(), clock: clock, timers: timers, logger: quietLogger)
            let hello = ClientMessage.Hello(ref: "h", board: "b", key: "edit-key", name: "Ada", clientId: "c-1")
            await room.process([.join(conn(1), hello)])
            released = room
            #expect(timers.pendingCount == 2, "the tick announcing the join, and a sweep")
        }
        #expect(released == nil)
        clock.advance(by: .seconds(2))
        #expect(await eventually { timers.pendingCount == 0 })
    }
}
