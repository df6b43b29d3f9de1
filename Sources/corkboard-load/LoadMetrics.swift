import CorkboardLoadKit
import Histogram
import Synchronization

/// Everything a load run counts and times, shared by the threads that send and receive.
///
/// Only what is sent inside the measurement window counts: operations by their send time (in
/// their opId), hovers by the time they were due (in their session id), so every process of a run
/// split with `--processes` counts the same operations. A process running alone completes its
/// operations as it goes (the sender's `ack` and every peer's `op`); a process of a split run
/// exports what it sent and saw in a ``RunShard`` and the merge completes them.
///
/// Nothing on the path of a received frame takes a lock another lane takes per frame: histograms
/// and tallies are per lane (``MetricsShard``), the window is two atomics, operations live in 64
/// stripes keyed by ``IdHash`` of their opId (a lane locks one stripe per `op` or `ack`), and
/// drags' hover counts are atomics per peer (``HoverLedger``).
final class LoadMetrics: Sendable {
    /// How an operation was answered.
    enum Answer {
        case committed
        case rejected
    }

    struct TrackedOp {
        var opId: String
        var sent: UInt64
        var board: Int
        var expected: Int
        var seen = 0
        var lastSeen: UInt64 = 0
        var measured: Bool
        var answer: Answer?
    }

    /// Operations by the hash of their opId.
    final class OpStripe: Sendable {
        let ops = Mutex<[UInt64: TrackedOp]>([:])
    }

    /// What receiving an `ack` or `op` produced, recorded in the receiving lane's shard.
    struct Outcome {
        var ack: UInt64?
        var eachPeer: UInt64?
        var everyPeer: UInt64?
        /// The drop's send time, with `everyPeer`, when the run traces drops.
        var tracedSent: UInt64?
        var tallies = LoadTallies()
    }

    /// Whether this process completes its operations itself (it runs alone), or leaves that to the
    /// merge of a split run's shards.
    let completesLocally: Bool
    /// Whether each measured drop's send time and latency are kept (`--drop-trace`).
    let tracesDrops: Bool
    /// The measurement window in monotonic nanoseconds, `[start, end)`; start 0 until it opens.
    private let windowStart = Atomic<UInt64>(0)
    private let windowEnd = Atomic<UInt64>(.max)
    private let stripes: [OpStripe] = (0..<64).map { _ in OpStripe() }
    /// The hovers each dragging peer sent.
    let hovers: HoverLedger
    private let shards = Mutex<[MetricsShard]>([])
    /// What the drivers count (hovers sent) and the checkers receive.
    let shared: MetricsShard
    /// Transport disconnects and failed connects of joined or joining connections.
    let disconnects = Atomic<Int>(0)
    let disconnectSamples = Mutex<[String]>([])

    /// Metrics for a run of `peers` light peers in all (their global numbers are below it).
    init(completesLocally: Bool = true, peers: Int, tracesDrops: Bool = false) {
        self.completesLocally = completesLocally
        self.tracesDrops = tracesDrops
        hovers = HoverLedger(peers: peers)
        shared = MetricsShard()
        shards.withLock { $0.append(shared) }
    }

    static func makeHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    }

    /// A shard for one more thread.
    func makeShard() -> MetricsShard {
        let shard = MetricsShard()
        shards.withLock { $0.append(shard) }
        return shard
    }

    private var allShards: [MetricsShard] { shards.withLock { $0 } }

    // MARK: The window

    /// Opens the measurement window now, until ``closeWindow()``.
    func openWindow() { setWindow(start: Monotonic.nanos(), end: .max) }

    /// Closes the window now.
    func closeWindow() {
        if windowStart.load(ordering: .relaxed) != 0 { windowEnd.store(Monotonic.nanos(), ordering: .relaxed) }
    }

    /// Sets the window to `[start, end)` (a split run's processes all use the coordinator's).
    func setWindow(start: UInt64, end: UInt64) {
        windowEnd.store(end, ordering: .relaxed)
        windowStart.store(max(1, start), ordering: .relaxed)
    }

    func isMeasured(_ time: UInt64) -> Bool {
        let start = windowStart.load(ordering: .relaxed)
        return start != 0 && time >= start && time < windowEnd.load(ordering: .relaxed)
    }

    // MARK: Sending

    /// Tracks an operation about to be sent at `sent` (its opId's stamp) on `board`, expecting
    /// its `op` at `expectedPeers` peers of this process.
    func registerOp(_ opId: String, board: Int, expectedPeers: Int, sent: UInt64) {
        let key = IdHash.of(opId)
        let op = TrackedOp(opId: opId, sent: sent, board: board, expected: expectedPeers, measured: isMeasured(sent))
        stripe(key).ops.withLock { $0[key] = op }
    }

    /// A dragger sends hover `number` (the hovers it sent before) of its drag `drag`, due at `due`.
    func hoverSent(peer: Int, drag: Int, number: Int, member: UInt64, due: UInt64) {
        hovers.sent(peer: peer, drag: drag, number: number, member: member)
        if isMeasured(due) { shared.state.withLock { $0.tallies.hoversSent += 1 } }
    }

    // MARK: Receiving (a lane's thread, into its shard)

    private func stripe(_ key: UInt64) -> OpStripe { stripes[Int(key & 63)] }

    /// The sender got the `ack` of `opId`.
    func acked(_ opId: UnsafeRawBufferPointer, committed: Bool, at now: UInt64, in shard: MetricsShard) {
        let key = IdHash.of(opId)
        let outcome = stripe(key).ops.withLock { ops -> Outcome? in
            guard var op = ops[key], op.answer == nil else { return nil }
            var outcome = Outcome()
            op.answer = committed ? .committed : .rejected
            if op.measured { outcome.ack = now &- op.sent }
            ops[key] = op
            finishIfComplete(key, op, &ops, &outcome)
            return outcome
        }
        if let outcome { shard.record(outcome) }
    }

    /// A peer got the `op` of `opId`.
    func seen(_ opId: UnsafeRawBufferPointer, at now: UInt64, in shard: MetricsShard) {
        let key = IdHash.of(opId)
        let local = stripe(key).ops.withLock { ops -> Outcome? in
            guard var op = ops[key] else { return nil }
            var outcome = Outcome()
            op.seen += 1
            op.lastSeen = max(op.lastSeen, now)
            if op.measured {
                outcome.eachPeer = now &- op.sent
                if completesLocally, op.seen == op.expected {
                    outcome.everyPeer = now &- op.sent
                    if tracesDrops { outcome.tracedSent = op.sent }
                }
            }
            ops[key] = op
            finishIfComplete(key, op, &ops, &outcome)
            return outcome
        }
        if let local {
            shard.record(local)
            return
        }
        // Sent by another process (or seen again after it completed here).
        guard let sent = Stamp.sent(opId), isMeasured(sent) else { return }
        shard.state.withLock { state in
            state.histograms[.eachPeer].recordNanos(now &- sent)
            if !completesLocally {
                let id = String(decoding: opId, as: UTF8.self)
                let known = state.foreign[id] ?? (0, 0)
                state.foreign[id] = (known.seen + 1, max(known.last, now))
            }
        }
    }

    private func finishIfComplete(
        _ key: UInt64, _ op: TrackedOp, _ ops: inout [UInt64: TrackedOp], _ outcome: inout Outcome
    ) {
        guard completesLocally, let answer = op.answer else { return }
        switch answer {
        case .committed:
            guard op.seen >= op.expected else { return }
            if op.measured {
                outcome.tallies.committed += 1
                outcome.tallies.expectedDeliveries += op.expected
                outcome.tallies.deliveries += op.expected
                outcome.tallies.unexpectedDeliveries += op.seen - op.expected
            }
        case .rejected:
            if op.measured {
                outcome.tallies.rejected += 1
                outcome.tallies.unexpectedDeliveries += op.seen
            }
        }
        ops[key] = nil
    }

    /// A peer got `dragHover` (or the dragger its `proposal`, `peer` false) for hover `number` of
    /// `session` (the id's bytes); `member` is the ``IdHash`` of the member it names.
    func hoverSeen(
        session: UnsafeRawBufferPointer, member: UInt64?, number: Int, peer: Bool, at now: UInt64,
        in shard: MetricsShard
    ) {
        // A hover is never sent before it is due; one of this process's drags is also checked
        // against what it sent and who sent it.
        guard let stamp = Stamp.session(session), let due = stamp.due(number), due <= now,
            !hovers.mismatch(stamp, number: number, member: member)
        else {
            shard.state.withLock { $0.tallies.hoverMismatches += 1 }
            return
        }
        guard isMeasured(due) else { return }
        shard.state.withLock { state in
            if peer {
                state.tallies.hoversSeen += 1
                state.histograms[.proposalPeers].recordNanos(now &- due)
            } else {
                state.histograms[.proposalAnswer].recordNanos(now &- due)
            }
        }
    }

    func disconnected(_ text: String) {
        disconnects.add(1, ordering: .relaxed)
        disconnectSamples.withLock { if $0.count < 5 { $0.append(text) } }
    }

    // MARK: Reading (the run's task)

    /// Messages received by every connection of the run so far.
    var received: Int { allShards.reduce(0) { $0 + $1.received.load(ordering: .relaxed) } }

    /// Every shard's tallies added up.
    var tallies: LoadTallies {
        var total = LoadTallies()
        for shard in allShards { total.add(shard.state.withLock { $0.tallies }) }
        return total
    }

    private func countOps(_ include: (TrackedOp) -> Bool) -> Int {
        stripes.reduce(0) { count, stripe in
            count + stripe.ops.withLock { $0.values.reduce(0) { $0 + (include($1) ? 1 : 0) } }
        }
    }

    /// Operations sent and not yet complete (unanswered, or, alone, committed and not seen by
    /// every peer).
    var outstandingOps: Int { countOps { _ in true } }

    /// Outstanding operations sent in the window: unanswered ones, and (alone) committed ones some
    /// peer has not seen yet.
    var outstandingMeasuredOps: Int { countOps { $0.measured && ($0.answer == nil || completesLocally) } }

    /// Operations sent and not answered yet, measured or not.
    var unansweredOps: Int { countOps { $0.answer == nil } }

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
    ///
    /// The totals are read before the operations: one that completes in between is missing from
    /// both (a moment's undercount), never counted late and delivered at once.
    func deliveryStatus(sentBefore cutoff: UInt64) -> DeliveryStatus {
        let tallies = self.tallies
        var status = DeliveryStatus(
            committed: tallies.committed, rejected: tallies.rejected, deliveries: tallies.deliveries)
        for stripe in stripes {
            stripe.ops.withLock { ops in
                for op in ops.values where op.measured && op.sent < cutoff && op.answer != .rejected {
                    status.lateOps += 1
                    status.lateMissing += max(0, op.expected - op.seen)
                }
            }
        }
        return status
    }

    /// Committed and rejected operations answered so far in the window (for the progress line).
    var answered: (committed: Int, rejected: Int) {
        let tallies = self.tallies
        return (tallies.committed, tallies.rejected)
    }

    /// The percentiles of one latency so far.
    func summary(_ kind: LatencyKind) -> LatencySummary { LatencySummary(histogram(kind)) }

    /// Every traced drop of the run, by send time (empty unless `tracesDrops`).
    func tracedDrops() -> [DropTiming] {
        allShards.flatMap { shard in shard.state.withLock { $0.drops } }.sorted { $0.sent < $1.sent }
    }

    private func histogram(_ kind: LatencyKind) -> Histogram<UInt64> {
        var merged = LoadMetrics.makeHistogram()
        for shard in allShards { shard.state.withLock { merged.add($0.histograms[kind]) } }
        return merged
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
        var shard = RunShard()
        var foreign: [String: (seen: Int, last: UInt64)] = [:]
        for kind in LatencyKind.allCases { shard.histograms[kind.rawValue] = histogram(kind) }
        for part in allShards {
            part.state.withLock { state in
                shard.tallies.add(state.tallies)
                for (opId, seen) in state.foreign {
                    let known = foreign[opId] ?? (0, 0)
                    foreign[opId] = (known.seen + seen.seen, max(known.last, seen.last))
                }
            }
        }
        for stripe in stripes {
            stripe.ops.withLock { ops in
                for op in ops.values where op.measured {
                    shard.sentOps.append(
                        RunShard.SentOp(
                            opId: op.opId, sent: op.sent, board: op.board,
                            answer: op.answer.map { $0 == .committed ? "committed" : "rejected" }, seen: op.seen,
                            lastSeen: op.lastSeen))
                }
            }
        }
        shard.seenOps = foreign.map { RunShard.SeenOp(opId: $0.key, seen: $0.value.seen, lastSeen: $0.value.last) }
        shard.disconnects = disconnects.load(ordering: .relaxed)
        shard.disconnectSamples = disconnectSamples.withLock { $0 }
        return shard
    }
}

/// One measured drop for `--drop-trace`: when it was sent and how long until its last peer had it
/// (monotonic nanoseconds).
struct DropTiming: Sendable {
    var sent: UInt64
    var everyPeer: UInt64
}
