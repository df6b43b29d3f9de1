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
