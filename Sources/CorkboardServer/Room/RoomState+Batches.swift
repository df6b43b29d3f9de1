import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Logging

/// What leaves the room: a batch's outputs, at once or once the store committed its operations
/// (`Durability` decides), store completions, the rollback after a failure, tasks waiting for a
/// durable seq, and snapshots handed to the store.
extension Room {
    /// Ends the current batch: hands its operations to the store and sends (or holds) its outputs.
    func flush() {
        if let part = endBatch() { store?.append(atomically: [part]) }
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
    func endBatch() -> BoardAppend? {
        let ended = durability.endBatch(outbox.take())
        var undoChanges: UndoHistory.Changes = []
        if store != nil {
            if case .store = ended {
                undoChanges = undo.history.takeChanges()
            } else if !undo.history.rewritePending {
                undoChanges = undo.history.takeChanges()
            }
        }
        switch ended {
        case .perform(let outputs):
            perform(outputs)
        case .held:
            break
        case .store(let upTo, let operations):
            // The inbox, not the room: a weak reference to the room would give it a side table
            // and every retain of it the slow path (`RoomTimers`); a stopped room's inbox takes nothing.
            return BoardAppend(board: info.id, operations: operations, epoch: epoch, undo: undoChanges) {
                [inbox] error in
                inbox.post(.durable(upTo, error))
            }
        }
        if let store, !undoChanges.isEmpty {
            // Nothing waits for it; a failed write makes the room write the histories whole with
            // its next operations.
            store.append(
                atomically: [
                    BoardAppend(board: info.id, operations: [], epoch: epoch, undo: undoChanges) { [inbox] error in
                        if error != nil { _ = inbox.post(.undoWriteFailed) }
                    }
                ])
        }
        return nil
    }

    /// Performs outputs in order.
    func perform(_ outputs: [RoomOutput]) {
        for output in outputs {
            if output.isCommittedOperation { batchSentCommitted = true }
            switch output {
            case .send(let message, let handles, _):
                sink.send(message, to: handles)
                sentSinceSweep = true
            case .sendTimed(let message, let handles, let since):
                let metrics = configuration.metrics
                sink.send(message, to: handles) { metrics.recordDropBroadcast(since: since) }
                sentSinceSweep = true
            case .close(let handle, let code, let reason, let discarding):
                // Only the slow-client closes (R11: too much unsent, a stalled transfer) drop the backlog.
                if discarding { configuration.metrics.countSlowClientClose() }
                sink.close(handle, code: code, reason: reason, discardingPending: discarding)
            case .startTransfer(let handle): startTransfer(handle)
            }
        }
    }

    /// Tells the registry the board's size when it changed (for `/healthz`).
    func reportSize() {
        let bytes = sequencer.board.estimatedSnapshotBytes
        guard bytes != reportedSnapshotBytes else { return }
        reportedSnapshotBytes = bytes
        registry.sizes.report(info.id, bytes: bytes)
    }

    /// The store committed (or failed) the transaction holding operations up to `seq`.
    func stored(upTo seq: Int, error: StoreError?) {
        let logger = self.logger
        let completion = durability.completed(upTo: seq, failed: error != nil) { operation, replayError in
            logger.critical(
                "a stored operation does not apply to the durable board",
                metadata: ["seq": "\(operation.seq)", "error": "\(replayError)"])
        }
        switch completion {
        case .ignored:
            return
        case .durable(let outputs, let waiters):
            perform(outputs)
            for waiter in waiters { waiter.resume(returning: nil) }
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
    private func rollBack(_ error: StoreError, failedUpTo: Int) {
        flush()  // the current batch was sequenced on top of the failed one: it goes too
        logger.error(
            "storing operations failed; the board returns to its last durable seq",
            metadata: ["durableSeq": "\(durableHead)", "head": "\(sequencer.head)", "error": "\(error)"])
        let rolledBack = sequencer.head - durableHead
        let rollBack = durability.rollBack(failedUpTo: failedUpTo, rejection: .storeFailed(error)) {
            members[$0] != nil
        }
        if rolledBack > 0 { configuration.metrics.countRejected(.storeFailed, by: rolledBack) }
        sequencer.rewind(to: rollBack.durable)
        outbox.append(contentsOf: rollBack.outputs)
        // Undo entries of operations the rollback undid never happened (R13); the store missed
        // the changes of the failed transaction, so the next one writes the histories whole.
        undo.history.forget(after: sequencer.head)
        undo.history.rewriteAll()
        undo.notifyAll(members, outbox: &outbox)
        flush()
        for waiter in rollBack.waiters { waiter.resume(returning: error) }
    }

    /// Waits until the operation with `seq` is durable; returns the store's error if storing it
    /// failed. Returns at once without a store.
    func durability(of seq: Int) async -> StoreError? {
        guard durability.isPending(seq) else { return nil }
        return await withCheckedContinuation { durability.wait(for: seq, $0) }
    }

    /// Hands the store a snapshot of the durable board when it is `interval` or more operations
    /// past the last one, or `snapshotBytes` of operations; the store compacts the log behind it,
    /// keeping no more of it than the resume log holds (R18: a resume the room cannot serve from
    /// memory gets a snapshot anyway, and a restart then loads a short log).
    func saveSnapshotIfDue(every interval: Int) {
        guard let store,
            let snapshot = durability.snapshotDue(every: interval, orBytes: configuration.snapshotBytes)
        else { return }
        store.saveSnapshot(
            board: info.id, snapshot: snapshot, retainingLog: retainedLog(behind: snapshot.seq), epoch: epoch)
    }

    /// How many operations up to `seq` the store keeps behind a snapshot at `seq`: those the
    /// resume log still holds, at most `logRetention`.
    func retainedLog(behind seq: Int) -> Int {
        guard let first = sequencer.firstLoggedSeq else { return 0 }
        return min(configuration.sequencer.logRetention, max(0, seq - first + 1))
    }
}
