/// Keeping the history in a store (R13, R18: undo survives a restart and a failover).
///
/// A store keeps one row per entry: the client, the stack, the seq of the committed operation the
/// entry belongs to (unique within a client's history: each committed operation gives at most one
/// entry) and its recipe. While `tracksChanges` is set, the history notes, as they happen, the
/// entries each client got and the seqs of those it dropped (popped, past its bounds, rolled back,
/// or the whole client forgotten); `takeChanges()` hands them to the room once per batch as a
/// delta, and the room writes it in the transaction of the batch's operations. The store then
/// holds exactly what the history holds, and a batch costs the store only what it changed: no
/// list of the entries kept, and deletes only for entries that went. After a write that failed
/// (`rewriteAll()`), the next changes replace the board's rows with the whole history.
extension UndoHistory {
    /// One entry of a client's history as a store keeps it.
    public struct StoredEntry: Hashable, Sendable {
        /// The client whose history it is in.
        public var clientId: String
        /// The stack it is on.
        public var stack: Direction
        /// The seq of the committed operation it reverses.
        public var seq: Int
        /// How to reverse it.
        public var recipe: UndoRecipe

        /// Creates an entry.
        public init(clientId: String, stack: Direction, seq: Int, recipe: UndoRecipe) {
            self.clientId = clientId
            self.stack = stack
            self.seq = seq
            self.recipe = recipe
        }
    }

    /// What changed in one client's history since the last `takeChanges()`. A store applies it
    /// in this order: with `removesAll`, delete every row of the client; delete the rows of
    /// `removed`; insert (or replace) `added`.
    public struct Change: Hashable, Sendable {
        /// The client.
        public var clientId: String
        /// Whether every stored entry of the client goes first (the history forgot the client).
        public var removesAll: Bool
        /// The seqs of entries the history dropped, ascending; none of them is in `added`.
        public var removed: [Int]
        /// The entries the history got and still holds, in seq order.
        public var added: [StoredEntry]

        /// Creates a change.
        public init(clientId: String, removesAll: Bool = false, removed: [Int] = [], added: [StoredEntry] = []) {
            self.clientId = clientId
            self.removesAll = removesAll
            self.removed = removed
            self.added = added
        }
    }

    /// What changed in a board's histories since the last `takeChanges()`: what a store writes in
    /// the transaction of the batch's operations.
    public struct Changes: Hashable, Sendable, ExpressibleByArrayLiteral {
        /// Whether every stored entry of the board goes first: `clients` then lists the whole
        /// history (after a write that failed, whose delta the store never got).
        public var replacesAll: Bool
        /// The clients whose history changed, in client-id order.
        public var clients: [Change]

        /// Creates changes.
        public init(replacesAll: Bool = false, clients: [Change] = []) {
            self.replacesAll = replacesAll
            self.clients = clients
        }

        /// Changes of these clients.
        public init(arrayLiteral clients: Change...) {
            self.init(clients: clients)
        }

        /// Whether there is nothing to write.
        public var isEmpty: Bool { !replacesAll && clients.isEmpty }

        /// How many entries they add.
        public var addedCount: Int { clients.reduce(0) { $0 + $1.added.count } }
    }

    /// One client's delta while it builds up (`UndoHistory.changed`): a batch changes a few
    /// entries of a client, so plain arrays, searched from the end, beat hashing.
    struct Pending: Sendable {
        var removesAll = false
        /// Seqs dropped, none of them in `added`.
        var removed: [Int] = []
        /// Entries got, in the order they came, none of their seqs in `removed`.
        var added: [StoredEntry] = []
    }

    /// The changes since the last call; nothing while `tracksChanges` is off.
    ///
    /// - Complexity: O(entries added and removed since the last call), or O(entries) after
    ///   `rewriteAll()`.
    public mutating func takeChanges() -> Changes {
        if rewritePending {
            rewritePending = false
            changed.removeAll(keepingCapacity: true)
            return Changes(
                replacesAll: true,
                clients: clients.keys.sorted().map { id in
                    let client = clients[id]!
                    let entries =
                        client.undo.entries.map {
                            StoredEntry(clientId: id, stack: .undo, seq: $0.seq, recipe: $0.recipe)
                        }
                        + client.redo.entries.map {
                            StoredEntry(clientId: id, stack: .redo, seq: $0.seq, recipe: $0.recipe)
                        }
                    return Change(clientId: id, added: entries.sorted { $0.seq < $1.seq })
                })
        }
        guard !changed.isEmpty else { return [] }
        defer { changed.removeAll(keepingCapacity: true) }
        return Changes(
            clients: changed.keys.sorted().map { id in
                let pending = changed[id]!
                return Change(
                    clientId: id, removesAll: pending.removesAll, removed: pending.removed.sorted(),
                    added: pending.added.sorted { $0.seq < $1.seq })
            })
    }

    /// Makes the next `takeChanges()` replace every stored entry of the board with the whole
    /// history: a write of changes failed, so the store may lack some of them (a room calls it
    /// after its store failed). Nothing while `tracksChanges` is off.
    public mutating func rewriteAll() {
        guard tracksChanges else { return }
        rewritePending = true
    }

    /// Puts back the entries a store kept (a room loading its board): each client's stacks in seq
    /// order, within the history's bounds. The clients whose newest entries are oldest go first
    /// past `Configuration.clients`; the entries cut to the bounds are noted as removed, so the
    /// store drops them with the next write.
    ///
    /// - Complexity: O(n log n) in the entries.
    public mutating func restore(_ entries: [StoredEntry]) {
        var byClient: [String: [StoredEntry]] = [:]
        for entry in entries { byClient[entry.clientId, default: []].append(entry) }
        let newest = byClient.mapValues { $0.map(\.seq).max() ?? 0 }
        for id in byClient.keys.sorted(by: { (newest[$0]!, $0) < (newest[$1]!, $1) }) {
            var client = Client()
            var dropped: [Int] = []
            let list = byClient[id]!.sorted { $0.seq < $1.seq }
            for stored in list {
                let entry = Entry(seq: stored.seq, recipe: stored.recipe, bytes: stored.recipe.heldBytes)
                switch stored.stack {
                case .undo: client.undo.push(entry, configuration, dropped: &dropped)
                case .redo: client.redo.push(entry, configuration, dropped: &dropped)
                }
            }
            touch(id)
            change(id) {
                $0.undo = client.undo
                $0.redo = client.redo
            }
            for seq in dropped { noteRemoved(seq, of: id) }
        }
    }

    /// Notes an entry a client's history got.
    mutating func noteAdded(_ entry: StoredEntry) {
        guard tracksChanges else { return }
        changed[entry.clientId, default: Pending()].note(added: entry)
    }

    /// Notes that a client's history dropped its entry of `seq`.
    mutating func noteRemoved(_ seq: Int, of clientId: String) {
        guard tracksChanges else { return }
        changed[clientId, default: Pending()].note(removed: seq)
    }

    /// Notes that the history forgot a client: every row of it goes.
    mutating func noteForgotten(_ clientId: String) {
        guard tracksChanges else { return }
        changed[clientId] = Pending(removesAll: true)
    }
}

extension UndoHistory {
    /// Whether the history keeps anything of a client (a room then asks its resume token, R13).
    public func holds(_ clientId: String) -> Bool { clients[clientId] != nil }
}

extension UndoHistory {
    /// The first answer of an `undo` resent after the room that answered it stopped (a restart, a
    /// failover), when the answers it remembered went with it: the sequencer still remembers the
    /// committed operation under the client's opId (its log), and the entry that commit put on the
    /// client's redo stack is still there, so that operation was this undo (only an undo puts
    /// entries there). `nil` otherwise, and always for a `redo`: its entry goes on the undo stack,
    /// where the client's own operations go too, so it would not tell a resend from an opId used
    /// again.
    ///
    /// - Complexity: O(entries of the client's redo stack).
    func answerLost(_ direction: Direction, clientId: String, opId: String, sequencer: Sequencer) -> Outcome? {
        guard direction == .undo, let first = sequencer.outcome(clientId: clientId, opId: opId),
            let committed = first.committed, let client = clients[clientId]
        else { return nil }
        return client.redo.entries.contains { $0.seq == committed.seq } ? first : nil
    }
}

extension UndoHistory.Pending {
    /// An entry got: it replaces one of its seq got before (a seq back after a rollback), and
    /// its seq is no longer among those dropped.
    mutating func note(added entry: UndoHistory.StoredEntry) {
        if let index = removed.lastIndex(of: entry.seq) { removed.remove(at: index) }
        if let index = added.lastIndex(where: { $0.seq == entry.seq }) {
            added[index] = entry
        } else {
            added.append(entry)
        }
    }

    /// An entry dropped: one got in the same batch is simply not written (the store may still
    /// hold one of that seq from before, so its row goes too).
    mutating func note(removed seq: Int) {
        if let index = added.lastIndex(where: { $0.seq == seq }) { added.remove(at: index) }
        if !removed.contains(seq) { removed.append(seq) }
    }
}
