import Glibc
import Histogram
import Synchronization

/// The one clock of a load run: `CLOCK_MONOTONIC` in nanoseconds. Senders stamp a message with
/// it before sending and receivers read it when the message is handled, in the same process.
enum Monotonic {
    /// Nanoseconds since an arbitrary fixed point.
    static func nanos() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// The latencies a load run records, each in its own HDR histogram.
enum LatencyKind: String, CaseIterable, Codable, Sendable {
    /// A drop (or storm `submit`) sent → its `ack` received by the sender.
    case ack
    /// A drop sent → its `op` received by the last of the board's other members (every peer).
    case everyPeer
    /// A drop sent → its `op` received by one peer (one sample per peer).
    case eachPeer
    /// A `dropUpdate` sent → the peers' `dragHover` showing it (one sample per peer).
    case proposalPeers
    /// A `dropUpdate` sent → the dragger's own `proposal` answer.
    case proposalAnswer

    /// The label in the table.
    var label: String {
        switch self {
        case .ack: "op sent → ack"
        case .everyPeer: "drop → every peer"
        case .eachPeer: "drop → each peer"
        case .proposalPeers: "proposal → peers"
        case .proposalAnswer: "dropUpdate → proposal"
        }
    }
}

/// Percentiles of one latency histogram, in milliseconds.
struct LatencySummary: Codable, Sendable {
    var count: UInt64
    var p50: Double
    var p90: Double
    var p99: Double
    var p999: Double
    var max: Double

    init(_ histogram: Histogram<UInt64>) {
        count = histogram.totalCount
        func ms(_ micros: UInt64) -> Double { Double(micros) / 1000 }
        p50 = count == 0 ? 0 : ms(histogram.valueAtPercentile(50))
        p90 = count == 0 ? 0 : ms(histogram.valueAtPercentile(90))
        p99 = count == 0 ? 0 : ms(histogram.valueAtPercentile(99))
        p999 = count == 0 ? 0 : ms(histogram.valueAtPercentile(99.9))
        max = count == 0 ? 0 : ms(histogram.max)
    }
}

/// The ids a run's senders make carry the times receivers need, so a receipt in any process of a
/// run (they share `CLOCK_MONOTONIC`) can be timed: an opId ends in `t<sent ns>`, a drag session
/// in `t<drag start ns>h<hover interval ns>` (hover n is due at start + n × interval).
enum Stamp {
    /// `prefix` + `t<nanos>`.
    static func op(_ prefix: String, sent: UInt64) -> String { "\(prefix)t\(sent)" }

    /// `prefix` + `t<start>h<interval>`.
    static func session(_ prefix: String, start: UInt64, hoverInterval: UInt64) -> String {
        "\(prefix)t\(start)h\(hoverInterval)"
    }

    /// The send time in an opId made by ``op(_:sent:)``.
    static func sent(_ opId: String) -> UInt64? {
        guard let t = opId.lastIndex(of: "t") else { return nil }
        return UInt64(opId[opId.index(after: t)...])
    }

    /// When hover `number` of a session made by ``session(_:start:hoverInterval:)`` was due.
    static func hoverDue(_ session: String, number: Int) -> UInt64? {
        guard number >= 0, let t = session.lastIndex(of: "t"), let h = session.lastIndex(of: "h"), t < h,
            let start = UInt64(session[session.index(after: t)..<h]),
            let interval = UInt64(session[session.index(after: h)...])
        else { return nil }
        return start &+ UInt64(number) &* interval
    }
}

/// Everything a load run counts and times, shared by the threads that send and receive.
///
/// Only what is sent inside the measurement window counts: operations by their send time (in
/// their opId), hovers by the time they were due (in their session id), so every process of a run
/// split with `--processes` counts the same operations. A process running alone completes its
/// operations as it goes (the sender's `ack` and every peer's `op`); a process of a split run
/// exports what it sent and saw in a ``RunShard`` and the merge completes them.
final class LoadMetrics: Sendable {
    /// How an operation was answered.
    enum Answer {
        case committed
        case rejected
    }

    struct TrackedOp {
        var sent: UInt64
        var board: Int
        var expected: Int
        var seen = 0
        var lastSeen: UInt64 = 0
        var measured: Bool
        var answer: Answer?
    }

    struct HoverTrack {
        var started: UInt64
        var member: String
        var sent = 0
    }

    struct State {
        /// The measurement window in monotonic nanoseconds, `[start, end)`; nil until it opens.
        var window: (start: UInt64, end: UInt64)?
        var histograms: [LatencyKind: Histogram<UInt64>] = Dictionary(
            uniqueKeysWithValues: LatencyKind.allCases.map { ($0, LoadMetrics.makeHistogram()) })
        /// Operations sent here, until complete (alone) or until the end (split runs).
        var ops: [String: TrackedOp] = [:]
        /// Measured operations sent by another process and seen here.
        var foreign: [String: (seen: Int, last: UInt64)] = [:]
        /// Drag sessions started here.
        var hovers: [String: HoverTrack] = [:]
        /// Counts of the measured work done here.
        var tallies = LoadTallies()

        func isMeasured(_ time: UInt64) -> Bool {
            guard let window else { return false }
            return time >= window.start && time < window.end
        }
    }

    let state = Mutex(State())
    /// Whether this process completes its operations itself (it runs alone), or leaves that to the
    /// merge of a split run's shards.
    let completesLocally: Bool
    /// Every message received by every connection of the run (read at the window's edges).
    let received = Atomic<Int>(0)
    /// Transport disconnects and failed connects of joined or joining connections.
    let disconnects = Atomic<Int>(0)
    let disconnectSamples = Mutex<[String]>([])

    init(completesLocally: Bool = true) { self.completesLocally = completesLocally }

    static func makeHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    }

    /// Opens the measurement window now, until ``closeWindow()``.
    func openWindow() { state.withLock { $0.window = (Monotonic.nanos(), .max) } }

    /// Closes the window now.
    func closeWindow() {
        state.withLock { state in
            if let start = state.window?.start { state.window = (start, Monotonic.nanos()) }
        }
    }

    /// Sets the window to `[start, end)` (a split run's processes all use the coordinator's).
    func setWindow(start: UInt64, end: UInt64) { state.withLock { $0.window = (start, end) } }

    /// Tracks an operation about to be sent at `sent` (its opId's stamp) on `board`, expecting
    /// its `op` at `expectedPeers` peers of this process.
    func registerOp(_ opId: String, board: Int, expectedPeers: Int, sent: UInt64) {
        state.withLock { state in
            state.ops[opId] = TrackedOp(
                sent: sent, board: board, expected: expectedPeers, measured: state.isMeasured(sent))
        }
    }

    /// The sender got the `ack` of `opId`.
    func acked(_ opId: String, committed: Bool, at now: UInt64) {
        state.withLock { state in
            guard var op = state.ops[opId], op.answer == nil else { return }
            op.answer = committed ? .committed : .rejected
            if op.measured { state.histograms[.ack]?.recordNanos(now &- op.sent) }
            state.ops[opId] = op
            finishIfComplete(opId, op, &state)
        }
    }

    /// A peer got the `op` of `opId`.
    func seen(_ opId: String, at now: UInt64) {
        state.withLock { state in
            if var op = state.ops[opId] {
                op.seen += 1
                op.lastSeen = max(op.lastSeen, now)
                if op.measured {
                    state.histograms[.eachPeer]?.recordNanos(now &- op.sent)
                    if completesLocally, op.seen == op.expected {
                        state.histograms[.everyPeer]?.recordNanos(now &- op.sent)
                    }
                }
                state.ops[opId] = op
                finishIfComplete(opId, op, &state)
            } else if let sent = Stamp.sent(opId), state.isMeasured(sent) {
                state.histograms[.eachPeer]?.recordNanos(now &- sent)
                if !completesLocally {
                    let known = state.foreign[opId] ?? (0, 0)
                    state.foreign[opId] = (known.seen + 1, max(known.last, now))
                }
            }
        }
    }

    private func finishIfComplete(_ opId: String, _ op: TrackedOp, _ state: inout State) {
        guard completesLocally, let answer = op.answer else { return }
        switch answer {
        case .committed:
            guard op.seen >= op.expected else { return }
            if op.measured {
                state.tallies.committed += 1
                state.tallies.expectedDeliveries += op.expected
                state.tallies.deliveries += op.expected
                state.tallies.unexpectedDeliveries += op.seen - op.expected
            }
        case .rejected:
            if op.measured {
                state.tallies.rejected += 1
                state.tallies.unexpectedDeliveries += op.seen
            }
        }
        state.ops[opId] = nil
    }

    /// Operations sent and not yet complete (unanswered, or, alone, committed and not seen by
    /// every peer).
    var outstandingOps: Int { state.withLock { $0.ops.count } }

    /// Outstanding operations sent in the window: unanswered ones, and (alone) committed ones some
    /// peer has not seen yet.
    var outstandingMeasuredOps: Int {
        state.withLock { state in
            state.ops.values.reduce(0) { count, op in
                count + (op.measured && (op.answer == nil || completesLocally) ? 1 : 0)
            }
        }
    }

    /// Operations sent and not answered yet, measured or not.
    var unansweredOps: Int { state.withLock { $0.ops.values.reduce(0) { $0 + ($1.answer == nil ? 1 : 0) } } }

    /// A dragger sends hover number `number` of `session` (`number` == the hovers sent before).
    func registerHover(session: String, member: String, number: Int, at now: UInt64) {
        state.withLock { state in
            if state.hovers[session] == nil { state.hovers[session] = HoverTrack(started: now, member: member) }
            state.hovers[session]?.sent = number + 1
            if state.isMeasured(Stamp.hoverDue(session, number: number) ?? now) { state.tallies.hoversSent += 1 }
        }
    }

    /// A peer got `dragHover` (or the dragger its `proposal`, `peer` false) for hover `number`.
    func hoverSeen(session: String, member: String?, number: Int, peer: Bool, at now: UInt64) {
        state.withLock { state in
            // A hover is never sent before it is due; one of this process's drags is also checked
            // against what it sent and who sent it.
            guard let due = Stamp.hoverDue(session, number: number), due <= now else {
                state.tallies.hoverMismatches += 1
                return
            }
            if let track = state.hovers[session], number >= track.sent || (member != nil && member != track.member) {
                state.tallies.hoverMismatches += 1
                return
            }
            guard state.isMeasured(due) else { return }
            if peer {
                state.tallies.hoversSeen += 1
                state.histograms[.proposalPeers]?.recordNanos(now &- due)
            } else {
                state.histograms[.proposalAnswer]?.recordNanos(now &- due)
            }
        }
    }

    /// Forgets hover timings of drags that began before `cutoff` (they ended long ago).
    func pruneHovers(startedBefore cutoff: UInt64) {
        state.withLock { state in state.hovers = state.hovers.filter { $0.value.started >= cutoff } }
    }

    func error(_ text: String) {
        state.withLock { state in
            state.tallies.errors += 1
            if state.tallies.errorSamples.count < 5 { state.tallies.errorSamples.append(text) }
        }
    }

    func rejection(_ code: String) {
        state.withLock { state in
            if state.tallies.rejectionCodes.count < 5, !state.tallies.rejectionCodes.contains(code) {
                state.tallies.rejectionCodes.append(code)
            }
        }
    }

    func refusedGrant() { state.withLock { $0.tallies.refusedGrants += 1 } }

    func seqGap(_ text: String) {
        state.withLock { state in
            state.tallies.seqGaps += 1
            if state.tallies.gapSamples.count < 5 { state.tallies.gapSamples.append(text) }
        }
    }

    func disconnected(_ text: String) {
        disconnects.add(1, ordering: .relaxed)
        disconnectSamples.withLock { if $0.count < 5 { $0.append(text) } }
    }

    /// Where delivery of committed operations stands (a soak's running ratio).
    struct DeliveryStatus {
        /// Measured operations completed: committed (and seen by every peer) or rejected.
        var committed = 0
        var rejected = 0
        /// Peer deliveries of the completed committed operations (expected = delivered for those).
        var deliveries = 0
        /// Measured operations sent before the cutoff and still not complete: unanswered, or
        /// committed and missing some peer.
        var lateOps = 0
        /// Peer deliveries those late operations still miss (an unanswered one counts its
        /// expected peers).
        var lateMissing = 0
    }

    /// Completed totals so far, and the measured operations sent before `cutoff` still incomplete.
    func deliveryStatus(sentBefore cutoff: UInt64) -> DeliveryStatus {
        state.withLock { state in
            var status = DeliveryStatus(
                committed: state.tallies.committed, rejected: state.tallies.rejected,
                deliveries: state.tallies.deliveries)
            for op in state.ops.values where op.measured && op.sent < cutoff && op.answer != .rejected {
                status.lateOps += 1
                status.lateMissing += max(0, op.expected - op.seen)
            }
            return status
        }
    }

    /// Committed and rejected operations answered so far in the window (for the progress line).
    var answered: (committed: Int, rejected: Int) { state.withLock { ($0.tallies.committed, $0.tallies.rejected) } }

    /// The percentiles of one latency so far.
    func summary(_ kind: LatencyKind) -> LatencySummary {
        state.withLock { LatencySummary($0.histograms[kind] ?? LoadMetrics.makeHistogram()) }
    }

    /// What the tracked operations still missing at the end amount to.
    struct Losses {
        /// Committed measured operations some peer never got.
        var incompleteOps = 0
        /// Deliveries missing from those.
        var missingDeliveries = 0
        /// Measured operations never answered.
        var unanswered = 0
        var samples: [String] = []
    }

    /// What this process measured, for the report or the merge of a split run: the completed
    /// totals, and the measured operations still open.
    func shard() -> RunShard {
        state.withLock { state in
            var shard = RunShard()
            for (kind, histogram) in state.histograms { shard.histograms[kind.rawValue] = histogram }
            shard.sentOps = state.ops.filter(\.value.measured).map { opId, op in
                RunShard.SentOp(
                    opId: opId, sent: op.sent, board: op.board,
                    answer: op.answer.map { $0 == .committed ? "committed" : "rejected" }, seen: op.seen,
                    lastSeen: op.lastSeen)
            }
            shard.seenOps = state.foreign.map {
                RunShard.SeenOp(opId: $0.key, seen: $0.value.seen, lastSeen: $0.value.last)
            }
            shard.tallies = state.tallies
            shard.disconnects = disconnects.load(ordering: .relaxed)
            shard.disconnectSamples = disconnectSamples.withLock { $0 }
            return shard
        }
    }
}

extension Histogram<UInt64> {
    /// Records a latency given in nanoseconds, in microseconds.
    mutating func recordNanos(_ nanos: UInt64) {
        _ = record(Swift.max(1, Swift.min(nanos / 1000, highestTrackableValue)))
    }
}
