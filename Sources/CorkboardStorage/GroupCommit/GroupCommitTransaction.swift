/// One transaction of appends, as a ``GroupCommitWriter`` hands it to its store
/// (``GroupCommitBackend/write(_:)``): the appends of a round that continue their boards' logs
/// and write something, in queue order.
///
/// The store checks the ``entries`` it must (a shared store: the lease epochs, moves given up),
/// refuses those that fail (``refuse(_:_:)``), then writes what ``admit()`` returns. The refusals
/// stand only if the transaction commits; if it throws, every append that went into it fails with
/// its error.
public struct GroupCommitTransaction<Rows> {
    /// An append the transaction may write.
    public struct Entry {
        /// Its place in the transaction, as ``GroupCommitTransaction/refuse(_:_:)`` names it.
        public let id: Int
        /// Its parts, one per board.
        public let parts: [BoardAppend]
        /// Its rows, as the store encoded them.
        public let rows: Rows
    }

    /// The appends in queue order, with their rows (`nil`: it could not be encoded and was refused).
    private let slots: [(parts: [BoardAppend], rows: Rows?)]
    /// The appends refused inside the transaction, by id.
    private(set) var refusals: [Int: StoreError] = [:]
    /// The ids of the appends ``admit()`` let in, in order.
    private(set) var admitted: [Int] = []

    /// A transaction of appends, in queue order; `rows` is `nil` for one that could not be encoded.
    init(_ slots: [(parts: [BoardAppend], rows: Rows?)]) {
        self.slots = slots
    }

    /// The appends that encoded, in queue order: what the store checks before it writes.
    public var entries: [Entry] {
        slots.enumerated().compactMap { id, slot in slot.rows.map { Entry(id: id, parts: slot.parts, rows: $0) } }
    }

    /// Refuses an entry: it is not written, and its parts complete with `error` once the
    /// transaction committed. The first refusal of an entry stands.
    public mutating func refuse(_ id: Int, _ error: StoreError) {
        if refusals[id] == nil { refusals[id] = error }
    }

    /// The entries to write, in queue order: every one not refused, except those behind a refused
    /// (or unencoded) append on one of their boards, which are refused too: written, they would
    /// leave a gap in that board's log. Call it once, after the store's checks.
    public mutating func admit() -> [Entry] {
        var broken = Set<String>()
        var entries: [Entry] = []
        for (id, slot) in slots.enumerated() {
            guard let rows = slot.rows else {
                broken.formUnion(slot.parts.map(\.board))
                continue
            }
            if refusals[id] == nil, let board = slot.parts.first(where: { broken.contains($0.board) })?.board {
                refusals[id] = StoreError(
                    .io, "Operations of \(board) follow operations that were not stored; they were not stored.")
            }
            if refusals[id] != nil {
                broken.formUnion(slot.parts.map(\.board))
                continue
            }
            entries.append(Entry(id: id, parts: slot.parts, rows: rows))
        }
        admitted = entries.map(\.id)
        return entries
    }
}
