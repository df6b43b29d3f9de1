/// A client's copy of a board: the confirmed state from the committed stream, plus its own pending
/// operations applied optimistically on top.
///
/// The Swift bots and load tool use it, and the browser client mirrors its logic:
/// - `submitLocal(_:opId:)` makes an envelope on the confirmed seq, applies it to `view` at once
///   and keeps it pending until the server answers;
/// - `applyCommitted(_:)` applies the next committed operation to `confirmed`; if it is one of ours
///   it leaves `pending`; the remaining pending operations are re-applied on the new confirmed
///   board (rebase). A pending operation that no longer applies locally stays pending (the server
///   decides) but is not shown in `view`;
/// - `acknowledge(opId:outcome:)` handles the server's direct answer (drops rejected operations, and
///   operations the server says were committed at or before `confirmedSeq`);
/// - `reset(board:seq:)` installs a snapshot after a resume (R10); `pending` is what to resend.
public struct ClientReplica: Sendable {
    /// Thrown when the committed stream does not fit this replica.
    public struct StreamError: Error, Hashable, CustomStringConvertible {
        /// What went wrong and what to do.
        public var description: String
    }

    /// This client's id, used in envelopes and derived ids.
    public let clientId: String
    /// The board as of `confirmedSeq`, identical to the server's at that seq.
    public private(set) var confirmed: Board
    /// The last seq applied to `confirmed`.
    public private(set) var confirmedSeq: Int
    /// This client's operations not yet seen committed, in submission order.
    public private(set) var pending: [ClientOperation] = []
    private var shown: [Bool] = []
    private var optimistic: Board?

    /// Creates a replica from a board at a seq.
    public init(clientId: String, board: Board = Board(), seq: Int = 0) {
        self.clientId = clientId
        self.confirmed = board
        self.confirmedSeq = seq
    }

    /// What the user sees: `confirmed` with the pending operations that still apply on top.
    public var view: Board { optimistic ?? confirmed }

    /// Makes an operation on the current confirmed seq, applies it optimistically, and returns the
    /// envelope to send.
    ///
    /// If the operation does not apply locally it is still returned and kept pending: the server
    /// is the judge.
    /// - Complexity: one apply on `view`; the first pending operation also copies the board, O(n).
    public mutating func submitLocal(_ op: BoardOperation, opId: String) -> ClientOperation {
        let envelope = ClientOperation(opId: opId, clientId: clientId, base: confirmedSeq, op: op)
        pending.append(envelope)
        if optimistic == nil { optimistic = confirmed }
        // Mutating the optional in place keeps later submissions O(apply), not O(board).
        let applied = (try? optimistic!.apply(op, clientId: clientId, opId: opId)) != nil
        shown.append(applied)
        return envelope
    }

    /// Applies the next committed operation.
    ///
    /// Operations at or below `confirmedSeq` are ignored (a duplicate delivery) and return `false`.
    /// - Throws: `StreamError` on a gap in seqs or when the operation does not apply (the replica
    ///   diverged; reset it from a snapshot).
    /// - Complexity: the apply cost; plus O(n + pending applies) to rebase when other pending
    ///   operations are outstanding and this is not the oldest of them, committed as shown.
    @discardableResult
    public mutating func applyCommitted(_ committed: CommittedOperation) throws(StreamError) -> Bool {
        guard committed.seq > confirmedSeq else { return false }
        guard committed.seq == confirmedSeq + 1 else {
            throw StreamError(
                description: "Expected seq \(confirmedSeq + 1) but got \(committed.seq); resume from seq "
                    + "\(confirmedSeq) to fetch the missing operations.")
        }
        do {
            try confirmed.apply(committed)
        } catch {
            throw StreamError(
                description: "Committed seq \(committed.seq) does not apply here (\(error)); the replica "
                    + "diverged, reset it from a snapshot.")
        }
        confirmedSeq = committed.seq
        let mine = committed.clientId == clientId ? pending.firstIndex { $0.opId == committed.opId } : nil
        if pending.isEmpty {
            optimistic = nil
        } else if mine == 0, shown[0], pending[0].op == committed.op {
            // The server applied our oldest operation on exactly the board we applied it on.
            pending.removeFirst()
            shown.removeFirst()
            if pending.isEmpty { optimistic = nil }
        } else {
            if let mine { remove(at: mine) }
            rebase()
        }
        return true
    }

    /// Handles the server's direct answer to one of our operations.
    ///
    /// A rejection drops it; a commit at or below `confirmedSeq` (a resend answered from the
    /// server's memory after a snapshot reset) drops it too. A later commit waits for the stream.
    /// - Complexity: O(n) for the rebase when something was dropped.
    public mutating func acknowledge(opId: String, outcome: Outcome) {
        switch outcome {
        case .rejected: reject(opId: opId)
        case .committed(let c) where c.seq <= confirmedSeq: reject(opId: opId)
        case .committed: break
        }
    }

    /// Drops a pending operation (the server rejected it) and rebases the rest.
    ///
    /// - Complexity: O(n + pending applies).
    public mutating func reject(opId: String) {
        guard let index = pending.firstIndex(where: { $0.opId == opId }) else { return }
        remove(at: index)
        rebase()
    }

    /// Installs a snapshot (R10 resume when the room no longer held the operations), keeping
    /// pending operations for resending.
    ///
    /// - Complexity: O(n + pending applies).
    public mutating func reset(board: Board, seq: Int) {
        confirmed = board
        confirmedSeq = seq
        // A pending operation may have been made on a seq the server no longer has (a server that
        // lost its memory); it is now made on the snapshot.
        for index in pending.indices where pending[index].base > seq { pending[index].base = seq }
        rebase()
    }

    private mutating func remove(at index: Int) {
        pending.remove(at: index)
        shown.remove(at: index)
    }

    private mutating func rebase() {
        guard !pending.isEmpty else {
            optimistic = nil
            return
        }
        var board = confirmed
        for (index, envelope) in pending.enumerated() {
            shown[index] = (try? board.apply(envelope.op, clientId: clientId, opId: envelope.opId)) != nil
        }
        optimistic = board
    }
}
