import CorkboardLoadKit

/// One process's lean-client loops over the measurement window: what ``RunShard`` carries so that
/// the processes of a split run can be added up.
struct LoopWindow: Codable, Sendable {
    /// The loops (lanes) counted.
    var loops: Int
    /// The window's length, in nanoseconds.
    var windowNanos: UInt64
    /// Their counts over the window, added up.
    var stats: LeanLoopStats

    /// The loops' change between the window's two samples; `nil` without loops to count (the
    /// libwebsockets client keeps no such counts).
    init?(from start: Window.Sample, to end: Window.Sample) {
        guard let first = start.loop, let last = end.loop, last.loops > 0, last.loops == first.loops, end.at > start.at
        else { return nil }
        loops = last.loops
        windowNanos = end.at - start.at
        stats = last.stats.since(first.stats)
    }
}

/// The lean loops' counts at one moment (``PeerHub/loopSnapshot()``), taken with a window sample.
struct LoopSnapshot: Sendable {
    var loops: Int
    var stats: LeanLoopStats
}

/// How busy the load tool's own event loops were over the window: the share of the window they
/// spent handling events rather than waiting for them, and how long their rounds took. A message
/// that reaches the tool waits for the round in progress, so near 100 % busy, or with long rounds,
/// the tool's own queueing is part of every latency it reports.
struct LoopUsage: Codable, Sendable {
    /// Event loops (lanes) over all processes.
    var loops: Int
    /// Time in rounds ÷ (window × loops): 1.0 is a loop that never waited.
    var busy: Double
    /// Rounds counted.
    var rounds: UInt64
    /// Round lengths, in milliseconds (bucket bounds, at most 12.5 % high).
    var roundP50Ms: Double
    var roundP99Ms: Double
    var roundMaxMs: Double
    /// Half of the busy time went to rounds longer than this (rounds weighted by their length):
    /// about what a message arriving while the loops are busy waits for.
    var busyTimeRoundP50Ms: Double
    /// Whether the loops were too busy for the latencies to be the server's alone (busier than
    /// ``saturatedAbove``). In the JSON, so that scripts read the verdict instead of deciding again.
    var saturated: Bool

    /// A loop busier than this is saturated: the report says so (the tool must never be what
    /// saturates; its latencies then include its own queueing).
    static let saturatedAbove = 0.8

    /// The windows of every process, added up; `nil` when none counted any loop.
    init?(_ windows: [LoopWindow]) {
        guard !windows.isEmpty else { return nil }
        loops = windows.map(\.loops).reduce(0, +)
        let capacity = windows.map { Double($0.windowNanos) * Double($0.loops) }.reduce(0, +)
        let stats = windows.dropFirst().reduce(windows[0].stats) { $0.adding($1.stats) }
        // Each end's counts are as of at most 10 ms before it was read (`loopStats`), so a loop
        // that never waited may read a hair over 1 over a short window.
        busy = capacity > 0 ? min(1, Double(stats.busyNanos) / capacity) : 0
        rounds = stats.rounds
        roundP50Ms = Double(stats.roundMicroseconds(atPercentile: 50)) / 1000
        roundP99Ms = Double(stats.roundMicroseconds(atPercentile: 99)) / 1000
        roundMaxMs = Double(stats.longestRoundMicroseconds) / 1000
        busyTimeRoundP50Ms = Double(stats.roundMicroseconds(atTimePercentile: 50)) / 1000
        saturated = busy > Self.saturatedAbove
    }
}
