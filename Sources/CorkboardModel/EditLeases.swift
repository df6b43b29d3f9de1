/// Edit leases (R12): who is editing which item's content, so nobody else changes it meanwhile.
///
/// A pure value, like `LeaseTable` for drags; the room feeds it `editBegin` / `editEnd` and its
/// clock readings. One client holds an item's lease at a time; `begin` by its holder refreshes it.
/// The lease ends at save (the holder's `updateItem` commits), cancel (`end(item:)`), disconnect
/// (`end(member:)`), when the item leaves the board, or after a quiet period without a refresh
/// (`expire(now:quietPeriod:)`, default 60 s). While it lasts, the sequencer refuses `locked` any
/// other client's operation that would change or delete the item.
public struct EditLeaseTable: Hashable, Sendable {
    /// One item being edited.
    public struct Lease: Hashable, Codable, Sendable {
        /// The item.
        public var item: ItemID
        /// The client that edits; only its operations may change or delete the item.
        public var client: String
        /// The member (connection) that edits, as peers know it.
        public var member: String
        /// The editor's display name ("Ada is editing").
        public var holder: String
        /// The last time (seconds) the editor began or refreshed the lease.
        public var lastActivity: Double

        /// Creates a lease.
        public init(item: ItemID, client: String, member: String, holder: String, lastActivity: Double) {
            self.item = item
            self.client = client
            self.member = member
            self.holder = holder
            self.lastActivity = lastActivity
        }
    }

    /// The answer to `begin`.
    public enum Grant: Hashable, Sendable {
        /// The lease is the member's, new (`true`) or refreshed (`false`).
        case granted(isNew: Bool)
        /// The member's lease moved here from another item, which it no longer edits.
        case moved(from: ItemID)
        /// Refused: another client edits it (`locked`), it does not exist (`gone`), or it is a
        /// placeholder (`forbidden`).
        case refused(Rejection)
    }

    /// The default quiet period after which an editor who neither saved nor refreshed loses the
    /// lease: 60 seconds.
    public static let defaultQuietPeriod: Double = 60

    /// Live leases by item.
    public private(set) var leases: [ItemID: Lease] = [:]

    /// An empty table.
    public init() {}

    /// Whether nobody edits anything.
    public var isEmpty: Bool { leases.isEmpty }

    /// The lease on an item, if any.
    ///
    /// - Complexity: O(1).
    public func lease(of item: ItemID) -> Lease? { leases[item] }

    /// The item a member edits, if any (a member edits one item at a time).
    ///
    /// - Complexity: O(leases).
    public func item(editedBy member: String) -> ItemID? {
        leases.values.first { $0.member == member }?.item
    }

    /// The oldest `lastActivity` among the leases (the first that can expire), or `nil` when
    /// nobody edits: the room asks for a sweep alarm at it plus the quiet period.
    ///
    /// - Complexity: O(leases).
    public var earliestActivity: Double? { leases.values.lazy.map(\.lastActivity).min() }

    /// Every lease, sorted by item.
    public var sorted: [Lease] { leases.values.sorted { $0.item < $1.item } }

    /// Takes or refreshes the lease on `item` for a member (`editBegin`).
    ///
    /// Refused `locked` when another client edits it, naming them; `gone` when the item is not on
    /// the board; `forbidden` for a placeholder. A member editing another item moves its lease here.
    ///
    /// - Complexity: O(leases).
    public mutating func begin(
        item: ItemID, client: String, member: String, holder: String, on board: Board, now: Double
    ) -> Grant {
        guard board.contains(item) else {
            return .refused(
                Rejection(
                    .gone, "That card was deleted, so it cannot be edited.", field: "item", item: item))
        }
        if board.isPlaceholder(item) {
            return .refused(
                Rejection(
                    .forbidden, "\(board.quotedName(of: item)) is still loading; edit it once it has arrived.",
                    field: "item", item: item))
        }
        if let lease = leases[item], lease.client != client {
            return .refused(
                Rejection(
                    .locked,
                    "\(lease.holder) is editing \(board.quotedName(of: item)); wait until they save, then try again.",
                    field: "item", item: item))
        }
        let isNew = leases[item]?.member != member
        var previous: ItemID? = nil
        if let other = self.item(editedBy: member), other != item {
            leases[other] = nil
            previous = other
        }
        leases[item] = Lease(item: item, client: client, member: member, holder: holder, lastActivity: now)
        if let previous { return .moved(from: previous) }
        return .granted(isNew: isNew)
    }

    /// Ends the lease on `item` when `member` holds it (`editEnd`, or its save); returns whether it did.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public mutating func end(item: ItemID, member: String) -> Bool {
        guard leases[item]?.member == member else { return false }
        leases[item] = nil
        return true
    }

    /// Ends the lease on `item`, whoever holds it, and returns it.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public mutating func end(item: ItemID) -> Lease? { leases.removeValue(forKey: item) }

    /// Ends a member's leases (it disconnected) and returns them, sorted by item.
    ///
    /// - Complexity: O(leases).
    @discardableResult
    public mutating func end(member: String) -> [Lease] {
        let ended = sorted.filter { $0.member == member }
        for lease in ended { leases[lease.item] = nil }
        return ended
    }

    /// Ends the leases quiet for longer than `quietPeriod` and returns them, sorted by item.
    ///
    /// - Complexity: O(leases).
    @discardableResult
    public mutating func expire(now: Double, quietPeriod: Double = EditLeaseTable.defaultQuietPeriod) -> [Lease] {
        let ended = sorted.filter { now - $0.lastActivity > quietPeriod }
        for lease in ended { leases[lease.item] = nil }
        return ended
    }

    /// Ends the leases on items no longer on the board and returns them, sorted by item.
    ///
    /// - Complexity: O(leases).
    @discardableResult
    public mutating func endVanished(on board: Board) -> [Lease] {
        let ended = sorted.filter { !board.contains($0.item) }
        for lease in ended { leases[lease.item] = nil }
        return ended
    }
}
