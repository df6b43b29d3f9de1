/// Drag leases (R9): which live drag session holds which items.
///
/// A pure value; the room feeds it `dragBegin` / `dragAdd` / `dragUpdate` / `dragEnd` and its
/// clock readings. `dragBegin` and `dragAdd` lease items to a session; an item held by another
/// live session is refused, naming the holder; placeholders are never leased. A lease ends at
/// drop or cancel (`end(session:)`), when its client disconnects (`end(client:)`), or after a
/// quiet period with no activity from its session (`expire(now:quietPeriod:)`, default 15 s).
public struct LeaseTable: Hashable, Sendable {
    /// One live drag session.
    public struct Lease: Hashable, Codable, Sendable {
        /// The drag session id.
        public var session: String
        /// The client that drags.
        public var client: String
        /// The name shown to others ("held by …").
        public var holder: String
        /// The leased items in drag order.
        public var items: [ItemID]
        /// The last time (seconds) the session showed activity.
        public var lastActivity: Double
    }

    /// An item a drag could not lease, and why.
    public struct Refusal: Hashable, Codable, Sendable {
        /// The item.
        public var item: ItemID
        /// `locked` (held by another session), `gone` (no such item), `forbidden` (a placeholder) or
        /// `not-found` (no such session for `add`).
        public var code: RejectCode
        /// A sentence naming the holder when there is one.
        public var message: String

        /// Creates a refusal.
        public init(item: ItemID, code: RejectCode, message: String) {
            self.item = item
            self.code = code
            self.message = message
        }
    }

    /// The answer to `begin` or `add`.
    public struct Grant: Hashable, Codable, Sendable {
        /// Items now leased to the session, in drag order.
        public var granted: [ItemID] = []
        /// Items refused.
        public var refused: [Refusal] = []

        /// Creates a grant.
        public init(granted: [ItemID] = [], refused: [Refusal] = []) {
            self.granted = granted
            self.refused = refused
        }
    }

    /// The default quiet period after which a silent session's leases end: 15 seconds.
    public static let defaultQuietPeriod: Double = 15

    /// Live sessions by id.
    public private(set) var sessions: [String: Lease] = [:]
    private var sessionOfItem: [ItemID: String] = [:]

    /// An empty table.
    public init() {}

    /// Whether no item is leased.
    public var isEmpty: Bool { sessionOfItem.isEmpty }

    /// The lease holding an item, if any.
    ///
    /// - Complexity: O(1).
    public func lease(of item: ItemID) -> Lease? {
        sessionOfItem[item].flatMap { sessions[$0] }
    }

    /// The display name of whoever drags the item now, if anyone ("held by …").
    ///
    /// - Complexity: O(1).
    public func holder(of item: ItemID) -> String? { lease(of: item)?.holder }

    /// Every leased item with its session id.
    public var leasedItems: [ItemID: String] { sessionOfItem }

    /// Starts a drag session leasing `items` (`dragBegin`).
    ///
    /// Beginning a session id that is already live adds to it.
    /// - Complexity: O(k) for k items.
    public mutating func begin(
        session: String, client: String, holder: String, items: [ItemID], on board: Board, now: Double
    ) -> Grant {
        if sessions[session] == nil {
            sessions[session] = Lease(session: session, client: client, holder: holder, items: [], lastActivity: now)
        }
        return add(session: session, items: items, on: board, now: now)
    }

    /// Adds items to a live drag (`dragAdd`).
    ///
    /// - Complexity: O(k · m) for k new items and m already leased to the session.
    public mutating func add(session: String, items: [ItemID], on board: Board, now: Double) -> Grant {
        var grant = Grant()
        guard var lease = sessions[session] else {
            grant.refused = items.map {
                Refusal(
                    item: $0, code: .notFound, message: "Drag session \(session) is not live; begin a new drag.")
            }
            return grant
        }
        lease.lastActivity = now
        for item in items {
            if let other = sessionOfItem[item], other != session {
                let holder = sessions[other]?.holder ?? other
                grant.refused.append(
                    Refusal(
                        item: item, code: .locked,
                        message: "\(item) is being dragged by \(holder); wait for them to drop it."))
            } else if let refusal = LeaseTable.refusal(dragging: item, on: board) {
                grant.refused.append(refusal)
            } else {
                if sessionOfItem[item] == nil {
                    sessionOfItem[item] = session
                    lease.items.append(item)
                }
                grant.granted.append(item)
            }
        }
        sessions[session] = lease
        return grant
    }

    /// Why an item cannot be dragged at all, whoever holds what: `gone` (no such item) or
    /// `forbidden` (a placeholder); `nil` when it can. Drags that lease nothing (viewers' copies)
    /// apply the same test.
    ///
    /// - Complexity: O(1).
    public static func refusal(dragging item: ItemID, on board: Board) -> Refusal? {
        if !board.contains(item) {
            return Refusal(item: item, code: .gone, message: "\(item) was deleted; it cannot be dragged.")
        }
        if board.isPlaceholder(item) {
            return Refusal(
                item: item, code: .forbidden,
                message: "\(item) is a placeholder and cannot be dragged until its owner commits it.")
        }
        return nil
    }

    /// Records activity from a session (`dragUpdate`), postponing its expiry.
    ///
    /// - Complexity: O(1).
    public mutating func touch(session: String, now: Double) {
        sessions[session]?.lastActivity = now
    }

    /// Ends a session (drop, cancel) and returns the items it released.
    ///
    /// - Complexity: O(k) for its k items.
    @discardableResult
    public mutating func end(session: String) -> [ItemID] {
        guard let lease = sessions.removeValue(forKey: session) else { return [] }
        for item in lease.items where sessionOfItem[item] == session { sessionOfItem[item] = nil }
        return lease.items
    }

    /// Ends every session of a client (disconnect) and returns their ids.
    ///
    /// - Complexity: O(sessions).
    @discardableResult
    public mutating func end(client: String) -> [String] {
        let ids = sessions.values.filter { $0.client == client }.map(\.session).sorted()
        for id in ids { end(session: id) }
        return ids
    }

    /// Ends sessions silent for longer than `quietPeriod` and returns their ids, sorted.
    ///
    /// - Complexity: O(sessions).
    @discardableResult
    public mutating func expire(now: Double, quietPeriod: Double = LeaseTable.defaultQuietPeriod) -> [String] {
        let ids = sessions.values.filter { now - $0.lastActivity > quietPeriod }.map(\.session).sorted()
        for id in ids { end(session: id) }
        return ids
    }
}
