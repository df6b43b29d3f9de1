import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Logging

/// What leaves the room: a batch's outputs, at once or once the store committed its operations
/// (`Durability` decides), store completions, the rollback after a failure, what waits for a
/// durable seq, and snapshots handed to the store; all as `RoomAction`s the actor performs.
extension RoomState {
    /// Ends the current batch: hands its operations to the store and sends (or holds) its outputs.
    mutating func flush() {
        if let part = endBatch() { actions.append(.store(part)) }
    }

    /// Ends the current batch like `flush()`, but returns its operations as this board's part of
    /// an append instead of handing them to the store: a move between boards queues both boards'
    /// parts as one atomic append (R14), before either room sequences anything else.
    ///
    /// The undo histories that changed in the batch (R13) go with its operations, in the same
    /// transaction; a batch that changed them without committing anything (a refused undo, a
    /// forgotten client) hands them to the store on their own, behind the appends before them.
    /// After a failed write the histories go whole (`UndoHistory.rewriteAll()`) with the next
    /// operations the room stores; until then a batch without operations keeps its changes.
    ///
    /// - Returns: `nil` when the batch committed nothing or the room has no store.
    mutating func endBatch() -> StoreWrite? {
        let ended = durability.endBatch(outbox.take())
        var undoChanges: UndoHistory.Changes = []
        if hasStore {
            if case .store = ended {
                undoChanges = undo.history.takeChanges()
            } else if !undo.history.rewritePending {
                undoChanges = undo.history.takeChanges()
            }
        }
        switch ended {
        case .perform(let outputs):
            send(outputs)
        case .held:
            break
        case .store(let upTo, let operations, let records):
            return StoreWrite(
                operations: operations, records: records, undo: undoChanges, upTo: upTo, activity: activity.takeWrite())
        }
        if hasStore, !undoChanges.isEmpty {
            // Nothing waits for it; a failed write makes the room write the histories whole with
            // its next operations.
            actions.append(.store(StoreWrite(operations: [], records: [], undo: undoChanges, upTo: nil)))
        }
        return nil
    }

    /// A committed operation's one way out (commit and announce once): encodes it once
    /// (`WireCodec.encodeCommit`) into its `op` for every member but the sender, the sender's `ack`
    /// and the record the store writes, and notes it for the store with who to refuse if storing
    /// it fails. An operation of the room itself, or one half of a move between boards, has no
    /// sender: every member gets its `op`. A drop's `op` is timed from `timedFrom` until it
    /// reached every peer (`corkboard_drop_broadcast_seconds`).
    mutating func announce(
        _ committed: CommittedOperation, to sender: OperationSender? = nil, timedFrom: ContinuousClock.Instant? = nil
    ) {
        let encoded = WireCodec.encodeCommit(committed, sender: sender.map { ($0.ref, $0.opId) })
        durability.record(committed, encoded: encoded.record, sender: sender)
        noteActivity(committed)
        let peers = members.handles(except: sender?.handle)
        if let timedFrom, !peers.isEmpty {
            outbox.sendTimed(encoded.op, to: peers, since: timedFrom)
        } else if !peers.isEmpty {
            outbox.send(encoded.op, to: peers, onRollback: .discard)
        }
        if let sender, let ack = encoded.ack { outbox.send(ack, to: [sender.handle], onRollback: .discard) }
    }

    /// Hands outputs to the actor, in order, noting what the tick and the sweep need to know:
    /// whether a committed operation went out, and whether anything did.
    mutating func send(_ outputs: [RoomOutput]) {
        guard !outputs.isEmpty else { return }
        for output in outputs {
            switch output {
            case .send(_, _, let policy):
                sentSinceSweep = true
                if policy == .discard { batchSentCommitted = true }
            case .sendTimed:
                sentSinceSweep = true
                batchSentCommitted = true
            case .close, .startTransfer:
                break
            }
        }
        actions.append(.outputs(outputs))
    }

    /// Tells the registry the board's size when it changed (for `/healthz`).
    mutating func reportSize() {
        let bytes = sequencer.board.estimatedSnapshotBytes
        guard bytes != reportedSnapshotBytes else { return }
        reportedSnapshotBytes = bytes
        actions.append(.reportSize(bytes))
    }

    /// The store committed (or failed) the transaction holding operations up to `seq`.
    mutating func stored(upTo seq: Int, error: StoreError?) {
        let logger = self.logger
        let completion = durability.completed(upTo: seq, failed: error != nil) { operation, replayError in
            logger.critical(
                "a stored operation does not apply to the durable board",
                metadata: ["seq": "\(operation.seq)", "error": "\(replayError)"])
        }
        switch completion {
        case .ignored:
            return
        case .durable(let outputs):
            send(outputs)
            settleAfterDurable(upTo: durableHead, error: nil)
            saveSnapshotIfDue(every: configuration.snapshotInterval)
        case .failed where error?.kind == .fenced:
            // Another node holds the board now (or the database is ahead of this copy): nothing of
            // the pending batches was stored; members resume where the board is now.
            relinquish(
                RoomHandoff(url: nil, reason: "this server no longer sequences the board; reconnect and resume"))
        case .failed:
            rollBack(error ?? StoreError(.io, "The store failed."), failedUpTo: seq)
        }
    }

    /// Returns to the last durable state after a failed transaction: what the dropped batches
    /// still send (by their `RollbackPolicy`) and the refusals of their senders go out through
    /// the outbox, at once, as nothing waits for the store any more.
    private mutating func rollBack(_ error: StoreError, failedUpTo: Int) {
        flush()  // the current batch was sequenced on top of the failed one: it goes too
        logger.error(
            "storing operations failed; the board returns to its last durable seq",
            metadata: ["durableSeq": "\(durableHead)", "head": "\(sequencer.head)", "error": "\(error)"])
        let rolledBack = sequencer.head - durableHead
        let rollBack = durability.rollBack(failedUpTo: failedUpTo, rejection: .storeFailed(error)) {
            [members] in members[$0] != nil
        }
        if rolledBack > 0 { countRejected(.storeFailed, by: rolledBack) }
        sequencer.rewind(to: rollBack.durable)
        outbox.append(contentsOf: rollBack.outputs)
        // Undo entries of operations the rollback undid never happened (R13); the store missed
        // the changes of the failed transaction, so the next one writes the histories whole.
        undo.history.forget(after: sequencer.head)
        activity.rollBack(to: sequencer.head, board: sequencer.board)
        undo.history.rewriteAll()
        undo.notifyAll(members, outbox: &outbox)
        flush()
        // What waited for the dropped batches learns they are gone.
        settleAfterDurable(upTo: nil, error: error)
    }

    /// Hands the store a snapshot of the durable board when it is `interval` or more operations
    /// past the last one, or `snapshotBytes` of operations; the store compacts the log behind it,
    /// keeping no more of it than the resume log holds (R18: a resume the room cannot serve from
    /// memory gets a snapshot anyway, and a restart then loads a short log).
    mutating func saveSnapshotIfDue(every interval: Int) {
        guard hasStore, let snapshot = durability.snapshotDue(every: interval, orBytes: configuration.snapshotBytes)
        else { return }
        actions.append(.saveSnapshot(snapshot, retainingLog: retainedLog(behind: snapshot.seq)))
    }

    /// How many operations up to `seq` the store keeps behind a snapshot at `seq`: those the
    /// resume log still holds, at most `logRetention`.
    func retainedLog(behind seq: Int) -> Int {
        guard let first = sequencer.firstLoggedSeq else { return 0 }
        return min(configuration.sequencer.logRetention, max(0, seq - first + 1))
    }
}
