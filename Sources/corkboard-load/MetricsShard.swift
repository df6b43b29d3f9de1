import Histogram
import Synchronization

/// What one thread of a run records: a lane's receiving (one per ``PeerLane``), or what the
/// drivers and checkers count (``LoadMetrics/shared``). Its mutex is taken by its own thread on
/// every frame and by a report once a second, so lanes never wait for each other; the run's
/// figures are the shards merged.
final class MetricsShard: Sendable {
    struct State {
        var histograms = LatencyHistograms()
        var tallies = LoadTallies()
        /// Measured operations sent by another process and seen here.
        var foreign: [String: (seen: Int, last: UInt64)] = [:]
        /// Each measured drop completed here, when the run traces them (`--drop-trace`).
        var drops: [DropTiming] = []
    }

    /// The most drops one shard keeps for `--drop-trace` (16 bytes each).
    static let dropTraceCap = 4_000_000

    let state = Mutex(State())
    /// Messages received by this shard's connections.
    let received = Atomic<Int>(0)

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

    /// Records what completing or seeing an operation produced.
    func record(_ outcome: LoadMetrics.Outcome) {
        state.withLock { state in
            if let ack = outcome.ack { state.histograms[.ack].recordNanos(ack) }
            if let each = outcome.eachPeer { state.histograms[.eachPeer].recordNanos(each) }
            if let every = outcome.everyPeer {
                state.histograms[.everyPeer].recordNanos(every)
                if let sent = outcome.tracedSent, state.drops.count < Self.dropTraceCap {
                    state.drops.append(DropTiming(sent: sent, everyPeer: every))
                }
            }
            state.tallies.add(outcome.tallies)
        }
    }
}
