/// Marks an item as a drop placeholder (R8): owned by one client until committed or deleted.
public struct PlaceholderInfo: Hashable, Codable, Sendable {
    /// The client id of the owner; only the owner commits it, the owner or the room deletes it.
    public var owner: String
    /// Server time (seconds) at which the placeholder was sequenced; chosen by the sequencer so
    /// every replica agrees.
    public var createdAt: Double

    /// Creates placeholder information.
    public init(owner: String, createdAt: Double) {
        self.owner = owner
        self.createdAt = createdAt
    }
}

/// The contract's placeholder clean-up limits (R8), for the room's sweeps.
public enum PlaceholderLimits {
    /// How long (seconds) a departed owner may take to resume before the room deletes its
    /// placeholders: 30 s.
    public static let ownerGracePeriod: Double = 30
    /// How long (seconds) a placeholder may stay uncommitted before the room deletes it: 5 min.
    public static let maximumAge: Double = 300
}
