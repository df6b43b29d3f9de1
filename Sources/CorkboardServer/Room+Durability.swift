import CorkboardModel
import CorkboardProtocol

/// Something a batch produced, performed in order once the batch's operations are durable.
enum RoomOutput {
    /// Send a message; `committed` marks acks and broadcasts of a committed operation (dropped if
    /// storing it fails).
    case send(EncodedMessage, [ConnectionHandle], committed: Bool = false)
    /// Close a connection (at once, dropping what it has not read, when `discardingPending`).
    case close(ConnectionHandle, code: Int, reason: String, discardingPending: Bool)
    /// Start sending a member its snapshot parts: the `welcome` or `synced` announcing them went
    /// out just before (R14).
    case startTransfer(ConnectionHandle)
}

/// Who submitted a committed operation, to be told if storing it fails.
struct OperationSender {
    var handle: ConnectionHandle
    var ref: String?
    var opId: String
}

/// A batch's outputs waiting for the store.
struct PendingBatch {
    /// The last seq of the batch's operations; `nil` for a batch without operations, which only
    /// waits for the batches before it.
    var upTo: Int?
    var operations: [CommittedOperation]
    var senders: [OperationSender]
    var outputs: [RoomOutput]
}

/// Durability: with a store, an operation is acknowledged and broadcast only after the
/// transaction holding it committed. Each batch of events becomes one append; the store groups
/// appends that arrive while it is committing (group commit). Outputs go out in batch order, so a
/// batch without operations waits behind earlier ones. If the store fails, the room returns to the
/// last durable state: the failed operations' senders get `store-failed` and nothing of them is
/// broadcast.
extension Room {
    /// Notes an operation committed in the current batch.
    func recordCommit(_ committed: CommittedOperation, sender: OperationSender?) {
        guard store != nil else { return }
        batchOperations.append(committed)
        if let sender { batchSenders.append(sender) }
    }

    /// Ends the current batch: hands its operations to the store and sends (or holds) its outputs.
    func flush() {
        if let part = endBatch() { store?.append(atomically: [part]) }
    }

    /// Ends the current batch like `flush()`, but returns its operations as this board's part of
    /// an append instead of handing them to the store: a move between boards queues both boards'
    /// parts as one atomic append (R14), before either room sequences anything else.
    ///
    /// - Returns: `nil` when the batch committed nothing or the room has no store.
    func endBatch() -> BoardAppend? {
        let outputs = outbox
        outbox.removeAll(keepingCapacity: true)
        guard store != nil else {
            perform(outputs)
            return nil
        }
        let operations = batchOperations
        let senders = batchSenders
        batchOperations.removeAll(keepingCapacity: true)
        batchSenders.removeAll(keepingCapacity: true)
        if let upTo = operations.last?.seq {
            pendingBatches.append(PendingBatch(upTo: upTo, operations: operations, senders: senders, outputs: outputs))
            return BoardAppend(board: info.id, operations: operations) { [weak self] error in
                self?.post(.durable(upTo, error))
            }
        } else if pendingBatches.isEmpty {
            perform(outputs)
        } else if !outputs.isEmpty || !senders.isEmpty {
            pendingBatches.append(PendingBatch(upTo: nil, operations: [], senders: senders, outputs: outputs))
        }
        return nil
    }

    func perform(_ outputs: [RoomOutput]) {
        for output in outputs {
            switch output {
            case .send(let message, let handles, _): sink.send(message, to: handles)
            case .close(let handle, let code, let reason, let discarding):
                sink.close(handle, code: code, reason: reason, discardingPending: discarding)
            case .startTransfer(let handle): startTransfer(handle)
            }
        }
    }

    /// The store committed (or failed) the transaction holding operations up to `seq`.
    func stored(upTo seq: Int, error: StoreError?) {
        if staleStoreCompletions > 0 {
            // An append dropped by a rollback: its seqs may since have been reused by new batches.
            staleStoreCompletions -= 1
            return
        }
        guard pendingBatches.contains(where: { $0.upTo == seq }) else { return }  // dropped by a rollback
        if let error {
            rollBack(error, failedUpTo: seq)
            return
        }
        while let batch = pendingBatches.first {
            if let upTo = batch.upTo {
                guard upTo <= seq else { break }
                for operation in batch.operations {
                    do {
                        try durable.replay(operation)
                    } catch {
                        logger.critical(
                            "a stored operation does not replay on the durable copy",
                            metadata: ["seq": "\(operation.seq)", "error": "\(error)"])
                    }
                }
            }
            pendingBatches.removeFirst()
            perform(batch.outputs)
        }
        resumeWaiters()
        saveSnapshotIfBehind(by: configuration.snapshotInterval)
    }

    /// Answers a resent operation with its first outcome. A durable (or rejected) outcome is sent
    /// as an ordinary reply, so a failure of a batch pending before it cannot swallow it; an
    /// outcome still being stored is sent once it is durable, and if storing it fails the resender
    /// is refused like the first sender.
    func answerResend(_ first: Outcome, opId: String, ref: String?, to handle: ConnectionHandle) {
        let ack = WireCodec.encode(.ack(ServerMessage.Ack(ref: ref, opId: opId, outcome: first)))
        guard store != nil, let committed = first.committed, committed.seq > durable.head else {
            outbox.append(.send(ack, [handle]))
            return
        }
        batchSenders.append(OperationSender(handle: handle, ref: ref, opId: opId))
        outbox.append(.send(ack, [handle], committed: true))
    }

    /// Returns to the last durable state after a failed transaction.
    private func rollBack(_ error: StoreError, failedUpTo: Int) {
        flush()  // the current batch was sequenced on top of the failed one: it goes too
        logger.error(
            "storing operations failed; the board returns to its last durable seq",
            metadata: ["durableSeq": "\(durable.head)", "head": "\(sequencer.head)", "error": "\(error)"])
        let leases = sequencer.leases
        sequencer = durable
        sequencer.leases = leases
        let rejection = storeFailed(error)
        let dropped = pendingBatches
        pendingBatches.removeAll()
        // Every dropped append but the failed one still has its completion to come.
        staleStoreCompletions += dropped.filter { $0.upTo != nil && $0.upTo != failedUpTo }.count
        for batch in dropped {
            for output in batch.outputs {
                switch output {
                case .send(_, _, committed: true):
                    continue
                case .send(let message, let handles, _) where message.type == "welcome" || message.type == "synced":
                    // Built from state that is now rolled back: make the client start over.
                    for handle in handles {
                        sink.close(handle, code: CloseCode.internalError, reason: "storage failed; reconnect")
                    }
                default:
                    perform([output])
                }
            }
            for sender in batch.senders where members[sender.handle] != nil {
                sink.send(
                    WireCodec.encode(
                        .ack(ServerMessage.Ack(ref: sender.ref, opId: sender.opId, outcome: .rejected(rejection)))),
                    to: sender.handle)
            }
        }
        resumeWaiters(failing: error)
    }

    /// Waits until the operation with `seq` is durable; returns the store's error if storing it
    /// failed. Returns at once without a store.
    func durability(of seq: Int) async -> StoreError? {
        guard store != nil, durable.head < seq else { return nil }
        return await withCheckedContinuation { continuation in
            durabilityWaiters.append((seq, continuation))
        }
    }

    private func resumeWaiters(failing error: StoreError? = nil) {
        let ready = durabilityWaiters.filter { error != nil || $0.seq <= durable.head }
        durabilityWaiters.removeAll { error != nil || $0.seq <= durable.head }
        for waiter in ready { waiter.continuation.resume(returning: error) }
    }

    /// Hands the store a snapshot of the durable board when it is `interval` or more operations
    /// past the last one; the store compacts the log behind it.
    func saveSnapshotIfBehind(by interval: Int) {
        guard let store, durable.head - lastSnapshotSeq >= interval else { return }
        store.saveSnapshot(
            board: info.id, snapshot: durable.snapshot, retainingLog: configuration.sequencer.logRetention)
        lastSnapshotSeq = durable.head
    }

    /// The rejection for an operation whose storage failed.
    func storeFailed(_ error: StoreError) -> Rejection {
        Rejection(
            .storeFailed, "The server could not save this change (\(error.message)); nothing changed. Try again later.")
    }
}

extension ServerMessage {
    /// Whether this is an `op` broadcast or the `ack` of a committed operation.
    var isCommittedOperation: Bool {
        switch self {
        case .op: true
        case .ack(let ack): ack.outcome.committed != nil
        default: false
        }
    }
}
