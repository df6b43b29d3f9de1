/// The counts one process keeps of a run's measured work, kept by ``LoadMetrics`` and carried as
/// they are in its ``RunShard``.
struct LoadTallies: Codable, Sendable {
    /// Measured operations completed here, and their deliveries.
    var committed = 0
    var rejected = 0
    var expectedDeliveries = 0
    var deliveries = 0
    /// Peers that received a rejected operation, or an operation twice.
    var unexpectedDeliveries = 0
    var hoversSent = 0
    var hoversSeen = 0
    /// Hover messages for a hover not yet due, another member, or one never sent.
    var hoverMismatches = 0
    var errors = 0
    var errorSamples: [String] = []
    var refusedGrants = 0
    /// The first few rejection codes seen.
    var rejectionCodes: [String] = []
    var seqGaps = 0
    var gapSamples: [String] = []
}

extension LoadTallies {
    /// The counts of several threads (or processes) added up.
    init(adding all: [LoadTallies]) {
        self.init()
        for tallies in all { add(tallies) }
    }

    /// Adds another thread's (or process's) counts; the samples keep the first five.
    mutating func add(_ other: LoadTallies) {
        committed += other.committed
        rejected += other.rejected
        expectedDeliveries += other.expectedDeliveries
        deliveries += other.deliveries
        unexpectedDeliveries += other.unexpectedDeliveries
        hoversSent += other.hoversSent
        hoversSeen += other.hoversSeen
        hoverMismatches += other.hoverMismatches
        errors += other.errors
        errorSamples = Array((errorSamples + other.errorSamples).prefix(5))
        refusedGrants += other.refusedGrants
        for code in other.rejectionCodes where rejectionCodes.count < 5 && !rejectionCodes.contains(code) {
            rejectionCodes.append(code)
        }
        seqGaps += other.seqGaps
        gapSamples = Array((gapSamples + other.gapSamples).prefix(5))
    }
}
