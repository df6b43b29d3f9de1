import Histogram

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

    /// The kind's place in ``LatencyHistograms``.
    var index: Int {
        switch self {
        case .ack: 0
        case .everyPeer: 1
        case .eachPeer: 2
        case .proposalPeers: 3
        case .proposalAnswer: 4
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

/// One histogram per ``LatencyKind``, in an array (no hashing on the path of a received frame).
struct LatencyHistograms {
    private var all = LatencyKind.allCases.map { _ in LoadMetrics.makeHistogram() }

    subscript(kind: LatencyKind) -> Histogram<UInt64> {
        get { all[kind.index] }
        _modify { yield &all[kind.index] }
    }
}

extension Histogram<UInt64> {
    /// Records a latency given in nanoseconds, in microseconds.
    mutating func recordNanos(_ nanos: UInt64) {
        _ = record(Swift.max(1, Swift.min(nanos / 1000, highestTrackableValue)))
    }
}
