/// Keeping the history in a store (R13, R18: undo survives a restart and a failover).
///
/// A store keeps one row per entry: the client, the stack, the seq of the committed operation the
/// entry belongs to (unique within a client's history: each committed operation gives at most one
/// entry) and its recipe. While `tracksChanges` is set, the history notes which clients changed;
/// `takeChanges()` hands the room, once per batch, each changed client's entries now (their seqs)
/// and the entries it got since, and the room writes them in the transaction of the batch's
/// operations. The store then holds exactly what the history holds: what the history forgot
/// (popped, past its bounds, a forgotten client) is deleted with the next change of that client.
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

    /// What changed in one client's history since the last `takeChanges()`: a store adds `added`
    /// and deletes the client's other entries whose seqs are not in `kept`.
    public struct Change: Hashable, Sendable {
        /// The client.
        public var clientId: String
        /// The seqs of every entry the client's history holds now, both stacks; empty when it
        /// holds none (or the history forgot the client).
        public var kept: [Int]
        /// The entries among `kept` the store does not have yet.
        public var added: [StoredEntry]

        /// Creates a change.
        public init(clientId: String, kept: [Int], added: [StoredEntry]) {
            self.clientId = clientId
            self.kept = kept
            self.added = added
        }
    }

    /// The clients whose history changed since the last call, in client-id order; nothing while
    /// `tracksChanges` is off.
    ///
    /// - Complexity: O(entries of the changed clients).
    public mutating func takeChanges() -> [Change] {
        guard !changed.isEmpty else { return [] }
        defer { changed.removeAll(keepingCapacity: true) }
        return changed.keys.sorted().map { id in
            let client = clients[id]
            let kept = (client?.undo.entries.map(\.seq) ?? []) + (client?.redo.entries.map(\.seq) ?? [])
            let live = Set(kept)
            // The newest entry per seq: a rollback may have forgotten an entry whose seq came back.
            var added: [Int: StoredEntry] = [:]
            for entry in changed[id]! where live.contains(entry.seq) { added[entry.seq] = entry }
            return Change(clientId: id, kept: kept, added: added.values.sorted { $0.seq < $1.seq })
        }
    }

    /// Puts back the entries a store kept (a room loading its board): each client's stacks in seq
    /// order, within the history's bounds. The clients whose newest entries are oldest go first
    /// past `Configuration.clients`; a client cut to the bounds is noted as changed, so the store
    /// drops the rest with the next write.
    ///
    /// - Complexity: O(n log n) in the entries.
    public mutating func restore(_ entries: [StoredEntry]) {
        var byClient: [String: [StoredEntry]] = [:]
        for entry in entries { byClient[entry.clientId, default: []].append(entry) }
        let newest = byClient.mapValues { $0.map(\.seq).max() ?? 0 }
        for id in byClient.keys.sorted(by: { (newest[$0]!, $0) < (newest[$1]!, $1) }) {
            var client = Client()
            let list = byClient[id]!.sorted { $0.seq < $1.seq }
            for stored in list {
                let entry = Entry(seq: stored.seq, recipe: stored.recipe, bytes: stored.recipe.heldBytes)
                switch stored.stack {
                case .undo: _ = client.undo.push(entry, configuration)
                case .redo: _ = client.redo.push(entry, configuration)
                }
            }
            touch(id)
            change(id) {
                $0.undo = client.undo
                $0.redo = client.redo
            }
            if client.undo.entries.count + client.redo.entries.count < list.count { noteChange(id) }
        }
    }

    /// Notes that a client's history changed, and the entry it got (if any).
    mutating func noteChange(_ clientId: String, added: StoredEntry? = nil) {
        guard tracksChanges else { return }
        if let added {
            changed[clientId, default: []].append(added)
        } else if changed[clientId] == nil {
            changed[clientId] = []
        }
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
