import CorkboardModel

/// The end-of-run comparison of a bot's replica with the server's snapshot.
///
/// Pure: it looks only at the values given, so tests can hand it replicas that differ.
enum ReplicaCheck {
    /// What the comparison found for one replica.
    struct Verdict: Hashable, Sendable {
        /// Ways the replica differs from the snapshot (empty when it matches).
        var divergences: [String] = []
        /// Broken invariants of the replica's board.
        var invariantViolations: [String] = []

        /// Whether the replica matches and is sound.
        var isClean: Bool { divergences.isEmpty && invariantViolations.isEmpty }
    }

    /// Compares a replica's confirmed board with a snapshot at the same seq.
    ///
    /// A replica diverges when it is at another seq, still has pending operations, had problems
    /// with its committed stream (an undecodable message, or a reset after it stopped applying),
    /// or its confirmed board differs from the snapshot's. Its board's invariants are checked too.
    /// - Parameters:
    ///   - name: The replica's owner, for the messages.
    ///   - replica: The replica, settled.
    ///   - streamProblems: `BoardState.streamProblems` of its connection.
    ///   - snapshot: The server's board from a fresh connection.
    /// - Complexity: O(n) in the number of items.
    static func compare(
        _ name: String, replica: ClientReplica, streamProblems: [String] = [], with snapshot: Snapshot
    ) -> Verdict {
        var verdict = Verdict()
        if replica.confirmedSeq != snapshot.seq {
            verdict.divergences.append(
                "\(name) is at seq \(replica.confirmedSeq), the snapshot at seq \(snapshot.seq)")
        }
        if !replica.pending.isEmpty {
            verdict.divergences.append(
                "\(name) still has \(replica.pending.count) unanswered operation(s): "
                    + replica.pending.prefix(3).map { "\($0.op.kind) \($0.opId)" }.joined(separator: ", "))
        }
        for problem in streamProblems.prefix(3) {
            verdict.divergences.append("\(name)'s committed stream had a problem: \(problem)")
        }
        if replica.confirmedSeq == snapshot.seq, replica.confirmed != snapshot.board {
            let details = differences(replica.confirmed, snapshot.board)
            verdict.divergences.append(
                "\(name)'s board differs from the snapshot at seq \(snapshot.seq): "
                    + (details.isEmpty ? "the boards are not equal" : details.joined(separator: "; ")))
        }
        verdict.invariantViolations = replica.confirmed.checkInvariants().map { "\(name): \($0)" }
        return verdict
    }

    /// The first differences between two boards (collections, sections, items), at most `limit`.
    ///
    /// - Complexity: O(n) in the number of items.
    static func differences(_ replica: Board, _ server: Board, limit: Int = 5) -> [String] {
        var found: [String] = []
        func note(_ text: String) { if found.count < limit { found.append(text) } }
        let mine = replica.collections
        let theirs = server.collections
        if mine.map(\.id) != theirs.map(\.id) {
            note("collections \(list(mine.map(\.id))) here, \(list(theirs.map(\.id))) on the server")
        }
        for collection in mine {
            guard let other = theirs.first(where: { $0.id == collection.id }) else { continue }
            if collection.title != other.title || collection.layout != other.layout
                || collection.accepts != other.accepts
            {
                note("collection \(collection.id) has other attributes on the server")
            }
            if collection.sections.map(\.id) != other.sections.map(\.id) {
                note(
                    "collection \(collection.id) has sections \(list(collection.sections.map(\.id))) here, "
                        + "\(list(other.sections.map(\.id))) on the server")
            }
            for section in collection.sections {
                guard let otherSection = other.sections.first(where: { $0.id == section.id }) else { continue }
                if section.items.map(\.id) != otherSection.items.map(\.id) {
                    note(
                        "section \(section.id) holds \(list(section.items.map(\.id))) here, "
                            + "\(list(otherSection.items.map(\.id))) on the server")
                } else if section.items != otherSection.items {
                    for (item, otherItem) in zip(section.items, otherSection.items) where item != otherItem {
                        note("item \(item.id) in section \(section.id) has other content or children on the server")
                    }
                } else if section.title != otherSection.title {
                    note("section \(section.id) has another title on the server")
                }
            }
        }
        return found
    }

    private static func list<T: CustomStringConvertible>(_ ids: [T]) -> String {
        let shown = ids.prefix(12).map(\.description).joined(separator: ", ")
        return "[\(shown)\(ids.count > 12 ? ", … \(ids.count - 12) more" : "")]"
    }
}
