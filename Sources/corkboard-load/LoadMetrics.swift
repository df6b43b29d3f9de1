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

/// Everything a load run counts and times, shared by the threads that send and receive.
///
/// Operations are tracked by opId from the moment they are sent: the sender's `ack` gives the ack
/// latency and the outcome; each peer's `op` counts one delivery and, for the last expected peer,
/// the every-peer latency. Hovers are tracked by drag session and a per-session hover number that
/// the dragger puts in `target.index`. Only what is sent while the window is open counts.
final class LoadMetrics: Sendable {
    /// How an operation was answered.
    enum Answer {
        case committed
        case rejected
    }

    struct TrackedOp {
        var sent: UInt64
        var expected: Int
        var seen = 0
        var measured: Bool
        var answer: Answer?
    }

    struct HoverTrack {
        var started: UInt64
        var member: String
        var sent: [UInt64] = []
    }

    struct State {
        var measuring = false
        var histograms: [LatencyKind: Histogram<UInt64>] = Dictionary(
            uniqueKeysWithValues: LatencyKind.allCases.map { ($0, LoadMetrics.makeHistogram()) })
        var ops: [String: TrackedOp] = [:]
        var hovers: [String: HoverTrack] = [:]
        /// Measured operations answered committed, and rejected.
        var committed = 0
        var rejected = 0
        /// Deliveries of measured committed operations that should have arrived, and that did.
        var expectedDeliveries = 0
        var deliveries = 0
        /// Peers that received a rejected operation, or an operation twice.
        var unexpectedDeliveries = 0
        var hoversSent = 0
        var hoversSeen = 0
        /// Hover messages that named a hover number never sent, or another member.
        var hoverMismatches = 0
        var errors = 0
        var errorSamples: [String] = []
        var refusedGrants = 0
        /// The first few rejection codes seen.
        var rejectionCodes: [String] = []
        var seqGaps = 0
        var gapSamples: [String] = []
    }

    let state = Mutex(State())
    /// Every message received by every connection of the run (read at the window's edges).
    let received = Atomic<Int>(0)
    /// Transport disconnects and failed connects of joined or joining connections.
    let disconnects = Atomic<Int>(0)
    let disconnectSamples = Mutex<[String]>([])

    static func makeHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    }

    /// Opens (or closes) the measurement window: only what is sent while it is open counts.
    func setMeasuring(_ on: Bool) { state.withLock { $0.measuring = on } }

    /// Tracks an operation about to be sent, expecting its `op` at `expectedPeers` peers.
    func registerOp(_ opId: String, expectedPeers: Int, at now: UInt64) {
        state.withLock { state in
            state.ops[opId] = TrackedOp(sent: now, expected: expectedPeers, measured: state.measuring)
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
            guard var op = state.ops[opId] else { return }
            op.seen += 1
            if op.measured {
                state.histograms[.eachPeer]?.recordNanos(now &- op.sent)
                if op.seen == op.expected { state.histograms[.everyPeer]?.recordNanos(now &- op.sent) }
            }
            state.ops[opId] = op
            finishIfComplete(opId, op, &state)
        }
    }

    private func finishIfComplete(_ opId: String, _ op: TrackedOp, _ state: inout State) {
        guard let answer = op.answer else { return }
        switch answer {
        case .committed:
            guard op.seen >= op.expected else { return }
            if op.measured {
                state.committed += 1
                state.expectedDeliveries += op.expected
                state.deliveries += op.expected
                state.unexpectedDeliveries += op.seen - op.expected
            }
        case .rejected:
            if op.measured {
                state.rejected += 1
                state.unexpectedDeliveries += op.seen
            }
        }
        state.ops[opId] = nil
    }

    /// Operations sent and not yet complete (unanswered, or committed and not seen by every peer).
    var outstandingOps: Int { state.withLock { $0.ops.count } }

    /// Outstanding operations sent in the window.
    var outstandingMeasuredOps: Int { state.withLock { $0.ops.values.reduce(0) { $0 + ($1.measured ? 1 : 0) } } }

    /// A dragger sends hover number `number` of `session` (`number` == the hovers sent before).
    func registerHover(session: String, member: String, number: Int, at now: UInt64) {
        state.withLock { state in
            if state.hovers[session] == nil { state.hovers[session] = HoverTrack(started: now, member: member) }
            state.hovers[session]?.sent.append(now)
            if state.measuring { state.hoversSent += 1 }
        }
    }

    /// A peer got `dragHover` (or the dragger its `proposal`, `peer` false) for hover `number`.
    func hoverSeen(session: String, member: String?, number: Int, peer: Bool, at now: UInt64) {
        state.withLock { state in
            guard let track = state.hovers[session], number >= 0, number < track.sent.count,
                member == nil || member == track.member
            else {
                state.hoverMismatches += 1
                return
            }
            guard state.measuring else { return }
            if peer {
                state.hoversSeen += 1
                state.histograms[.proposalPeers]?.recordNanos(now &- track.sent[number])
            } else {
                state.histograms[.proposalAnswer]?.recordNanos(now &- track.sent[number])
            }
        }
    }

    /// Forgets hover timings of drags that began before `cutoff` (they ended long ago).
    func pruneHovers(startedBefore cutoff: UInt64) {
        state.withLock { state in state.hovers = state.hovers.filter { $0.value.started >= cutoff } }
    }

    func error(_ text: String) {
        state.withLock { state in
            state.errors += 1
            if state.errorSamples.count < 5 { state.errorSamples.append(text) }
        }
    }

    func rejection(_ code: String) {
        state.withLock { state in
            if state.rejectionCodes.count < 5, !state.rejectionCodes.contains(code) {
                state.rejectionCodes.append(code)
            }
        }
    }

    func refusedGrant() { state.withLock { $0.refusedGrants += 1 } }

    func seqGap(_ text: String) {
        state.withLock { state in
            state.seqGaps += 1
            if state.gapSamples.count < 5 { state.gapSamples.append(text) }
        }
    }

    func disconnected(_ text: String) {
        disconnects.add(1, ordering: .relaxed)
        disconnectSamples.withLock { if $0.count < 5 { $0.append(text) } }
    }

    /// Committed and rejected operations answered so far in the window (for the progress line).
    var answered: (committed: Int, rejected: Int) { state.withLock { ($0.committed, $0.rejected) } }

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

    /// Counts what is still outstanding (call after the drain) into the delivery totals.
    func settleLosses() -> Losses {
        state.withLock { state in
            var losses = Losses()
            for (opId, op) in state.ops where op.measured {
                switch op.answer {
                case .committed:
                    state.committed += 1
                    state.expectedDeliveries += op.expected
                    state.deliveries += min(op.seen, op.expected)
                    losses.incompleteOps += 1
                    losses.missingDeliveries += op.expected - min(op.seen, op.expected)
                    if losses.samples.count < 5 {
                        losses.samples.append("\(opId): seen by \(op.seen) of \(op.expected)")
                    }
                case .rejected:
                    state.rejected += 1
                case nil:
                    losses.unanswered += 1
                    if losses.samples.count < 5 { losses.samples.append("\(opId): no ack") }
                }
            }
            state.ops = state.ops.filter { !$0.value.measured }
            return losses
        }
    }
}

extension Histogram<UInt64> {
    /// Records a latency given in nanoseconds, in microseconds.
    mutating func recordNanos(_ nanos: UInt64) {
        _ = record(Swift.max(1, Swift.min(nanos / 1000, highestTrackableValue)))
    }
}
