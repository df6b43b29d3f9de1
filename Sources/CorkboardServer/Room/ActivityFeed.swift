public import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import DequeModule

/// The bounds of a board's activity feed (R18): the room keeps at most `entries` entries and
/// `bytes` bytes of them (their JSON), dropping the oldest first; the store keeps the same ones.
public struct ActivityFeedLimits: Sendable, Equatable {
    /// The most entries kept. Default `ActivityLimits.defaultEntries` (1,000).
    public var entries: Int
    /// The most bytes of entries kept. Default `ActivityLimits.defaultBytes` (512 KiB).
    public var bytes: Int

    /// Creates bounds.
    public init(entries: Int = ActivityLimits.defaultEntries, bytes: Int = ActivityLimits.defaultBytes) {
        self.entries = entries
        self.bytes = bytes
    }
}

/// A board's activity feed in its room (issue 43): the newest entries, encoded once, bounded by
/// count and bytes; who listens for new ones; and the entries not yet handed to the store.
///
/// A value the room's state owns: it makes an entry for each committed operation
/// (`ActivityNames`), answers pages from memory (the store keeps no more than the room does, so a
/// page never waits for the store), and sends each new entry once, encoded once, to the members
/// that asked for it live: a board nobody watches pays nothing per broadcast.
struct ActivityFeed {
    /// One kept entry: its seq, the cards it concerns (for a card's own page) and its JSON.
    struct Kept {
        var seq: Int
        var items: [ItemID]
        var json: [UInt8]
    }

    let limits: ActivityFeedLimits
    /// Whether the room has a store to hand new entries to.
    let stores: Bool
    /// The names of the board's collections and sections as people last saw them.
    private(set) var names: ActivityNames
    /// The kept entries, oldest first, and their bytes.
    private(set) var kept: Deque<Kept> = []
    private(set) var bytes = 0
    /// The connections that hear of new entries, in the order they asked.
    private(set) var listeners: [ConnectionHandle] = []
    /// Entries made since the last write was taken, and the oldest seq still kept if it moved.
    private var unstored: [ActivityRecords.Record] = []
    private var keepFromMoved = false

    /// A feed for `board` holding the stored entries (oldest first) within `limits`; with
    /// `stores`, new entries wait for `takeWrite`. `actor` hears the name of each entry's actor,
    /// oldest first (the room remembers the board's people: `KnownNames`).
    init(
        board: Board, stored: [ActivityRecords.Record], limits: ActivityFeedLimits, stores: Bool,
        actor: (String) -> Void = { _ in }
    ) {
        self.limits = limits
        self.stores = stores
        names = ActivityNames(board: board)
        for record in stored {
            guard let entry = ActivityCoding.entry(record.json) else { continue }
            actor(entry.actor)
            keep(Kept(seq: record.seq, items: entry.items, json: record.json))
        }
        // Entries dropped here (tighter limits than the store's) go from the store with the next write.
    }

    /// Notes a committed operation: its entry, if it makes one, is kept, queued for the store and
    /// returned encoded as the live message for the listeners (`nil`: no entry or nobody listens).
    mutating func note(
        _ committed: CommittedOperation, on board: Board, by actor: ActivityNames.Actor, at: Int
    ) -> EncodedMessage? {
        guard let entry = names.entry(for: committed, on: board, by: actor, at: at) else { return nil }
        let json = ActivityCoding.record(entry)
        keep(Kept(seq: entry.seq, items: entry.items, json: json))
        if stores { unstored.append(ActivityRecords.Record(seq: entry.seq, json: json)) }
        return listeners.isEmpty ? nil : ActivityCoding.live(json)
    }

    /// Keeps an entry, dropping the oldest while the feed is over its bounds (always keeping the
    /// newest one).
    private mutating func keep(_ entry: Kept) {
        kept.append(entry)
        bytes += entry.json.count
        while kept.count > 1, kept.count > limits.entries || bytes > limits.bytes {
            bytes -= kept.removeFirst().json.count
            keepFromMoved = true
        }
    }

    /// What the store writes with the batch's operations: the new entries, and the oldest seq
    /// kept when older ones were dropped.
    mutating func takeWrite() -> ActivityRecords {
        defer {
            unstored = []
            keepFromMoved = false
        }
        return ActivityRecords(added: unstored, keepFrom: keepFromMoved ? kept.first?.seq : nil)
    }

    /// A page, newest first: entries up to seq `durable` (an operation still waiting for the
    /// store is not news yet) and before seq `before` (all without it), about `item` when given,
    /// at most `limit`; `more` when older ones match too.
    ///
    /// - Complexity: O(kept entries) at worst (a card's page scans past other cards' entries).
    func page(durable: Int, before: Int?, item: ItemID?, limit: Int) -> (entries: [[UInt8]], more: Bool) {
        var entries: [[UInt8]] = []
        var index = kept.endIndex
        while index > kept.startIndex {
            index -= 1
            let entry = kept[index]
            if entry.seq > durable { continue }
            if let before, entry.seq >= before { continue }
            if let item, !entry.items.contains(item) { continue }
            guard entries.count < limit else { return (entries, true) }
            entries.append(entry.json)
        }
        return (entries, false)
    }

    /// Starts or stops sending `handle` new entries.
    mutating func listen(_ handle: ConnectionHandle, _ live: Bool) {
        listeners.removeAll { $0 == handle }
        if live { listeners.append(handle) }
    }

    /// Forgets a connection that left.
    mutating func forget(_ handle: ConnectionHandle) {
        guard !listeners.isEmpty else { return }
        listeners.removeAll { $0 == handle }
    }

    /// The room rolled its board back to seq `head` (a failed store write): entries of the
    /// operations it undid never happened, and the names are the board's again.
    mutating func rollBack(to head: Int, board: Board) {
        while let last = kept.last, last.seq > head {
            bytes -= kept.removeLast().json.count
        }
        unstored.removeAll { $0.seq > head }
        names = ActivityNames(board: board)
    }
}
