import CorkboardJSON
import CorkboardLoadKit
import CorkboardModel
import Foundation
import Synchronization

/// The JSON of the few client messages a load run sends many of, written directly (the ids are
/// the run's own or the server's, and are escaped all the same).
enum Wire {
    /// A JSON string literal, through the project's one escaper.
    static func string(_ s: String) -> String { JSONString.quoted(s) }

    static func place(_ collection: CollectionID, _ section: SectionID, index: Int) -> String {
        #"{"collection":\#(string(collection.rawValue)),"section":\#(string(section.rawValue)),"index":\#(index),"intent":"insertAtDestinationIndexPath"}"#
    }

    static func dragBegin(session: String, item: ItemID) -> [UInt8] {
        Array(#"{"type":"dragBegin","session":\#(string(session)),"items":[\#(string(item.rawValue))]}"#.utf8)
    }

    static func dropUpdate(session: String, target: String) -> [UInt8] {
        Array(#"{"type":"dropUpdate","session":\#(string(session)),"target":\#(target)}"#.utf8)
    }

    /// The bytes of a `dropUpdate` before its target: `{"type":"dropUpdate","session":…,"target":`.
    static func dropUpdateHead(session: String) -> [UInt8] {
        Array(#"{"type":"dropUpdate","session":\#(string(session)),"target":"#.utf8)
    }

    /// The bytes of a place before its index: `{"collection":…,"section":…,"index":`.
    static func placeHead(_ collection: CollectionID, _ section: SectionID) -> [UInt8] {
        Array(#"{"collection":\#(string(collection.rawValue)),"section":\#(string(section.rawValue)),"index":"#.utf8)
    }

    /// What follows a place's index, and closes a `dropUpdate`.
    static let dropUpdateTail = Array(#","intent":"insertAtDestinationIndexPath"}}"#.utf8)

    /// A `dropUpdate` from its pieces (the same bytes as ``dropUpdate(session:target:)`` with
    /// ``place(_:_:index:)``, without building strings: a dragger sends one per hover).
    static func dropUpdate(head: [UInt8], place: [UInt8], index: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(head.count + place.count + dropUpdateTail.count + 20)
        bytes += head
        bytes += place
        bytes += String(index).utf8
        bytes += dropUpdateTail
        return bytes
    }

    static func drop(session: String, opId: String, base: Int, destination: String) -> [UInt8] {
        Array(
            #"{"type":"drop","session":\#(string(session)),"opId":\#(string(opId)),"base":\#(base),"destination":\#(destination)}"#
                .utf8)
    }

    static func dragEnd(session: String) -> [UInt8] {
        Array(#"{"type":"dragEnd","session":\#(string(session))}"#.utf8)
    }

    static func move(opId: String, base: Int, item: ItemID, destination: String) -> [UInt8] {
        Array(
            #"{"type":"submit","opId":\#(string(opId)),"base":\#(base),"op":{"kind":"move","items":[\#(string(item.rawValue))],"destination":\#(destination)}}"#
                .utf8)
    }
}

/// Something that sends load until stopped.
protocol LoadDriver: Sendable {
    /// Stops sending (drags in flight are cancelled with `dragEnd`); returns when the driver is idle.
    func stop() async
}

/// Drives draggers: each begins a drag of one of its items, hovers at a fixed rate for the drag's
/// duration (the hover number in `target.index`), drops at a random place, and begins again when
/// its cycle comes round. Open loop: nothing waits for an answer, so a slow server cannot slow the
/// offered load down (no coordinated omission).
final class DragDriver: LoadDriver, @unchecked Sendable {
    // Everything below `stopping` is touched only by the driver thread.
    struct Dragger {
        var peer: Int
        var board: Int
        var items: [ItemID]
        var cursor = 0
        var session: String?
        /// The session's `dropUpdate` bytes before the target.
        var updateHead: [UInt8] = []
        var hover = 0
        var dragStart: UInt64 = 0
        var drags = 0
    }

    struct Timing {
        var hoverInterval: UInt64
        var dragDuration: UInt64
        var cycle: UInt64
    }

    private let context: LoadContext
    /// ``Wire/placeHead(_:_:)`` of every section, by board.
    private let placeHeads: [[[UInt8]]]
    private let timing: Timing
    private var draggers: [Dragger]
    private var heap = TimerHeap()
    private var random: SplitMix64
    private let thread = DriverThread()

    /// Drives `draggers` (peers of `context`) with `timing`; its random choices start from the
    /// run's seed.
    init(_ context: LoadContext, draggers: [Dragger], timing: Timing) {
        self.context = context
        placeHeads = context.boards.map { $0.sections.map { Wire.placeHead($0.collection, $0.section) } }
        self.draggers = draggers
        self.timing = timing
        self.random = SplitMix64(seed: context.seed)
    }

    /// Starts the driver thread; draggers start at random offsets within one cycle.
    func start() {
        let now = Monotonic.nanos()
        for index in draggers.indices {
            heap.push(now + UInt64.random(in: 0..<max(1, timing.cycle), using: &random), index)
        }
        thread.start { [self] in
            self.loop()
        }
    }

    func stop() async {
        await thread.stop()
    }

    /// The driver sleeps at least this long (ns) between rounds of due steps: at 10,000 clients a
    /// step is due every 16 µs, and one wake per step (the driver's, then the connections' loop
    /// thread's for the queued frame) spent the tool's core on context switches when both share
    /// one core. 250 µs batches at most a few dozen steps per wake. A drop is stamped
    /// when it is built and a hover is timed from when it was due, so the pause never shortens a
    /// measured latency (a hover sent late counts its lateness).
    static let shortestPause: UInt64 = 250_000

    private func loop() {
        while !thread.isStopping {
            let now = Monotonic.nanos()
            while let (time, index) = heap.peek, time <= now {
                heap.pop()
                heap.push(step(index, now: now), index)
            }
            let wake = max(min(heap.peek?.time ?? now + 5_000_000, now + 5_000_000), now + Self.shortestPause)
            DriverThread.sleep(from: now, until: wake)
        }
        for dragger in draggers {
            if let session = dragger.session { context.hub.send(dragger.peer) { _ in Wire.dragEnd(session: session) } }
        }
    }

    /// Does the dragger's next action; returns when its following one is due.
    private func step(_ index: Int, now: UInt64) -> UInt64 {
        var dragger = draggers[index]
        defer { draggers[index] = dragger }
        let plan = context.boards[dragger.board]
        guard let session = dragger.session else {
            // Begin a drag of the dragger's next item.
            guard !dragger.items.isEmpty else { return now + timing.cycle }
            let item = dragger.items[dragger.cursor % dragger.items.count]
            dragger.cursor += 1
            dragger.drags += 1
            let session = Stamp.session(
                peer: dragger.peer, drag: dragger.drags, start: now, hoverInterval: timing.hoverInterval)
            let sent = context.hub.send(dragger.peer) { _ in Wire.dragBegin(session: session, item: item) }
            guard sent else { return now + timing.cycle }
            dragger.session = session
            dragger.updateHead = Wire.dropUpdateHead(session: session)
            dragger.hover = 0
            dragger.dragStart = now
            return now
        }
        let hoverDue = dragger.dragStart + UInt64(dragger.hover) * timing.hoverInterval
        if dragger.hover > 0 && hoverDue >= dragger.dragStart + timing.dragDuration || timing.hoverInterval == 0 {
            // Drop somewhere random.
            let place = plan.sections[Int.random(in: 0..<plan.sections.count, using: &random)]
            let index = Int.random(in: 0...max(0, plan.itemsPerSection), using: &random)
            context.sendMeasured(from: dragger.peer, board: dragger.board, tag: "p\(dragger.peer)d\(dragger.drags)") {
                joined, opId in
                Wire.drop(
                    session: session, opId: opId, base: joined.lastSeq,
                    destination: Wire.place(place.collection, place.section, index: index))
            }
            dragger.session = nil
            return max(now, dragger.dragStart + timing.cycle)
        }
        // Hover: the hover number goes in target.index so peers can time it.
        let number = dragger.hover
        let section = (number / 10) % plan.sections.count
        let (peer, drag, head, place) = (
            dragger.peer, dragger.drags, dragger.updateHead, placeHeads[dragger.board][section]
        )
        let metrics = context.metrics
        context.hub.send(peer) { joined in
            metrics.hoverSent(peer: peer, drag: drag, number: number, member: joined.member, due: hoverDue)
            let bytes = Wire.dropUpdate(head: head, place: place, index: number)
            assert(
                bytes
                    == Wire.dropUpdate(
                        session: session,
                        target: Wire.place(
                            plan.sections[section].collection, plan.sections[section].section, index: number)))
            return bytes
        }
        dragger.hover += 1
        return max(now, dragger.dragStart + UInt64(dragger.hover) * timing.hoverInterval)
    }
}

/// Drives storm movers: each keeps `window` single-item `move`s in flight and sends the next as
/// soon as one is acknowledged (closed loop, on the client's service thread).
final class StormDriver: LoadDriver, AckListener, Sendable {
    private let context: LoadContext
    private let peerBoards: [Int: Int]
    private let random: Mutex<SplitMix64>
    private let counter = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)

    /// Drives the `movers` (peer → board) of `context`; its random choices start from the run's seed.
    init(_ context: LoadContext, movers: [Int: Int]) {
        self.context = context
        self.peerBoards = movers
        self.random = Mutex(SplitMix64(seed: context.seed))
    }

    func start(window: Int) {
        context.hub.acks.listener.withLock { $0 = self }
        for peer in peerBoards.keys.sorted() {
            for _ in 0..<window { sendMove(peer) }
        }
    }

    func stop() async {
        stopping.store(true, ordering: .relaxed)
        context.hub.acks.listener.withLock { $0 = nil }
    }

    func acked(peer: Int, committed: Bool) {
        guard !stopping.load(ordering: .relaxed) else { return }
        sendMove(peer)
    }

    private func sendMove(_ peer: Int) {
        guard let board = peerBoards[peer] else { return }
        guard let move = random.withLock({ RandomMove(on: context.boards[board], using: &$0) }) else { return }
        let number = counter.add(1, ordering: .relaxed).newValue
        move.send(from: peer, tag: "p\(peer)m\(number)", board: board, in: context)
    }
}

/// A binary min-heap of (due time, dragger index).
struct TimerHeap {
    private var entries: [(time: UInt64, index: Int)] = []

    var peek: (time: UInt64, index: Int)? { entries.first }

    mutating func push(_ time: UInt64, _ index: Int) {
        entries.append((time, index))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].time < entries[parent].time else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() {
        guard !entries.isEmpty else { return }
        entries.swapAt(0, entries.count - 1)
        entries.removeLast()
        var parent = 0
        while true {
            let left = parent * 2 + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].time < entries[smallest].time { smallest = left }
            if right < entries.count, entries[right].time < entries[smallest].time { smallest = right }
            guard smallest != parent else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
