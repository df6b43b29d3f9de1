import Histogram

/// What one process of a run measured, to be merged with the other processes' (a run split with
/// `--processes`) or reported alone.
///
/// Timestamps are `CLOCK_MONOTONIC` nanoseconds, which every process on the machine shares, so a
/// send stamped in one process is timed against a receipt in another.
struct RunShard: Codable, Sendable {
    /// An operation this process sent: when, on which board, its answer, and what this process's
    /// own peers saw of it.
    struct SentOp: Codable, Sendable {
        var opId: String
        var sent: UInt64
        var board: Int
        /// `committed`, `rejected`, or nil when unanswered.
        var answer: String?
        var seen: Int
        var lastSeen: UInt64
    }

    /// An operation sent by another process and seen by this one's peers.
    struct SeenOp: Codable, Sendable {
        var opId: String
        var seen: Int
        var lastSeen: UInt64
    }

    /// One light peer's last seq (the end-of-run agreement check).
    struct PeerSeq: Codable, Sendable {
        var peer: Int
        var board: Int
        var lastSeq: Int
        var joined: Bool
    }

    /// Latencies recorded here (`everyPeer` is computed when shards merge, unless the process ran
    /// alone and completed its operations itself).
    var histograms: [String: Histogram<UInt64>] = [:]
    /// Measured operations sent here, not yet complete when the shard was taken.
    var sentOps: [SentOp] = []
    /// Measured operations sent elsewhere and seen here (multi-process runs).
    var seenOps: [SeenOp] = []
    /// Counts of the measured work this process did (operations it completed itself, in
    /// single-process runs; hovers, errors, gaps).
    var tallies = LoadTallies()
    var disconnects = 0
    var disconnectSamples: [String] = []
    /// Messages received by this process's connections inside the window.
    var received = 0
    /// Light peers requested, joined and failed here, and those joined per board.
    var peers = 0
    var joined = 0
    var failed = 0
    var joinedByBoard: [Int] = []
    var peerSeqs: [PeerSeq] = []
    var connectSeconds = 0.0
    /// The WebSocket client the light peers ran on (`lean` or `lws`).
    var client: String?
    /// This process's CPU and memory over the window.
    var usage: ProcessUsage?
    /// This process's lean-client loops over the window (`nil` on the libwebsockets client).
    var loop: LoopWindow?
}

extension LoadMetrics {
    /// This process's shard of a finished window: what the metrics measured, with the peers this
    /// process was asked for and how many joined or failed, who joined each board, every peer's last
    /// seq, and the messages received, the CPU used and the loops' counts between the window's two
    /// samples.
    func shard(
        peers: Int, joined: Int, failed: Int, boards: Int, hub: PeerHub, roster: Roster,
        window: (start: Window.Sample, close: Window.Sample), connectSeconds: Double
    ) -> RunShard {
        var shard = self.shard()
        shard.peers = peers
        shard.joined = joined
        shard.failed = failed
        shard.joinedByBoard = (0..<boards).map { roster.members($0) }
        shard.peerSeqs = hub.lastSeqs
        shard.received = window.close.received - window.start.received
        shard.connectSeconds = connectSeconds
        shard.client = hub.client
        shard.usage = ProcessUsage(from: window.start.me, to: window.close.me)
        shard.loop = LoopWindow(from: window.start, to: window.close)
        return shard
    }
}

/// The shards of a run merged: the numbers a report shows.
struct RunTotals {
    var histograms: [LatencyKind: Histogram<UInt64>]
    var committed: Int
    var rejected: Int
    var expectedDeliveries: Int
    var deliveries: Int
    var unexpectedDeliveries: Int
    var losses: LoadMetrics.Losses
    var shards: [RunShard]

    /// Merges the shards: operations still open in some shard are completed with every shard's
    /// receipts; an operation is expected at every other peer joined to its board in the run.
    init(_ shards: [RunShard]) {
        self.shards = shards
        var histograms = Dictionary(
            uniqueKeysWithValues: LatencyKind.allCases.map { ($0, LoadMetrics.makeHistogram()) })
        for shard in shards {
            for (name, histogram) in shard.histograms {
                if let kind = LatencyKind(rawValue: name) { histograms[kind]?.add(histogram) }
            }
        }
        let tallies = LoadTallies(adding: shards.map(\.tallies))
        committed = tallies.committed
        rejected = tallies.rejected
        expectedDeliveries = tallies.expectedDeliveries
        deliveries = tallies.deliveries
        unexpectedDeliveries = tallies.unexpectedDeliveries
        var joinedByBoard: [Int] = []
        for shard in shards {
            if joinedByBoard.count < shard.joinedByBoard.count {
                joinedByBoard += Array(repeating: 0, count: shard.joinedByBoard.count - joinedByBoard.count)
            }
            for (board, joined) in shard.joinedByBoard.enumerated() { joinedByBoard[board] += joined }
        }
        var remote: [String: (seen: Int, last: UInt64)] = [:]
        for shard in shards {
            for op in shard.seenOps {
                let known = remote[op.opId] ?? (0, 0)
                remote[op.opId] = (known.seen + op.seen, max(known.last, op.lastSeen))
            }
        }
        var losses = LoadMetrics.Losses()
        for shard in shards {
            for op in shard.sentOps {
                let other = remote[op.opId] ?? (0, 0)
                let seen = op.seen + other.seen
                let expected = max(0, (op.board < joinedByBoard.count ? joinedByBoard[op.board] : 0) - 1)
                switch op.answer {
                case "committed":
                    committed += 1
                    expectedDeliveries += expected
                    deliveries += min(seen, expected)
                    unexpectedDeliveries += max(0, seen - expected)
                    if seen >= expected {
                        histograms[.everyPeer]?.recordNanos(max(op.lastSeen, other.last) &- op.sent)
                    } else {
                        losses.incompleteOps += 1
                        losses.missingDeliveries += expected - seen
                        if losses.samples.count < 5 {
                            losses.samples.append("\(op.opId): seen by \(seen) of \(expected)")
                        }
                    }
                case "rejected":
                    rejected += 1
                    unexpectedDeliveries += seen
                default:
                    losses.unanswered += 1
                    if losses.samples.count < 5 { losses.samples.append("\(op.opId): no ack") }
                }
            }
        }
        self.histograms = histograms
        self.losses = losses
    }
}
