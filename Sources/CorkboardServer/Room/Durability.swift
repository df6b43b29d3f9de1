import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import DequeModule

/// Who submitted a committed operation, to be told if storing it fails.
struct OperationSender {
    var handle: ConnectionHandle
    var ref: String?
    var opId: String
}

/// Durability (with a store): an operation is acknowledged and broadcast only after the
/// transaction holding it committed.
///
/// Each batch of events becomes one append; the store groups appends that arrive while it is
/// committing (group commit). A batch's outputs go out in batch order, so a batch without
/// operations waits behind earlier ones. If the store fails, the room returns to the last durable
/// state: every batch still waiting is dropped, its outputs pass through their `RollbackPolicy`,
/// the failed operations' senders are refused `store-failed`, and nothing of them is broadcast.
///
/// A value: it decides, the room performs (sends, hands appends to the store).
struct Durability {
    /// A batch's outputs waiting for the store.
    struct PendingBatch {
        /// The last seq of the batch's operations; `nil` for a batch without operations, which
        /// only waits for the batches before it.
        var upTo: Int?
        var operations: [CommittedOperation]
        var senders: [OperationSender]
        var outputs: [RoomOutput]
    }

    /// What ending a batch asks of the room.
    enum BatchEnd {
        /// Nothing waits for the store: perform these now.
        case perform([RoomOutput])
        /// Hand these operations (up to `upTo`) to the store, with the records encoded when they
        /// were announced (one per operation, or none if one could not be encoded); the outputs
        /// wait for them.
        case store(upTo: Int, operations: [CommittedOperation], records: [[UInt8]])
        /// The outputs wait behind earlier batches.
        case held
    }

    /// What a store completion asks of the room.
    enum Completion {
        /// A completion of an append a rollback dropped, or of an unknown seq: nothing to do.
        case ignored
        /// The batches up to the seq are durable: perform their outputs.
        case durable(outputs: [RoomOutput])
        /// The transaction failed: the room must roll back (`rollBack`).
        case failed
    }

    /// What a rollback asks of the room.
    struct RollBack {
        /// The board to return to, at the last durable seq (`Sequencer.rewind(to:)`).
        var durable: Snapshot
        /// The dropped batches' outputs after their policy, and the refusals of their senders.
        var outputs: [RoomOutput]
    }

    /// Whether the room has a store; without one everything is durable at once and this part
    /// does nothing.
    let isEnabled: Bool
    /// The board as of the last operation the store confirmed (only with a store).
    ///
    /// Only the board: the room's sequencer keeps the resume log and the resend memory, and a
    /// rollback rewinds them to this seq. (A whole second sequencer would remember every operation
    /// twice: about 1 KB more per retained operation, and a dictionary insert per stored one.)
    private(set) var durable: Snapshot
    /// Operations committed in the batch being handled, and who to tell if storing them fails.
    private var batchOperations: [CommittedOperation] = []
    private var batchSenders: [OperationSender] = []
    /// The store's records of `batchOperations`, as `announce` encoded them, kept while every
    /// operation of the batch has one; a batch with fewer goes without, and the store encodes
    /// (and refuses) it itself.
    private var batchRecords: [[UInt8]] = []
    /// Batches waiting for the store, oldest first.
    private var pending: Deque<PendingBatch> = []
    /// Appends dropped by a rollback whose completions have not arrived yet; they are ignored
    /// (the store completes a board's appends in order, so they come before any later append's).
    private var staleCompletions = 0
    /// Tasks waiting until a seq is durable (drops across boards).
    /// The seq of the last snapshot handed to the store.
    private(set) var lastSnapshotSeq: Int
    /// The bytes (`CommittedOperation.estimatedBytes`) of the durable operations since that
    /// snapshot: a snapshot is also due by them (R18), so the stored log behind the latest
    /// snapshot stays small however big the operations are.
    private(set) var bytesSinceSnapshot = 0

    /// Durability for a room whose board starts at `sequencer` (stored), or none without a store.
    init(sequencer: Sequencer, hasStore: Bool) {
        isEnabled = hasStore
        durable = hasStore ? sequencer.snapshot : Snapshot(seq: 0, board: Board())
        lastSnapshotSeq = sequencer.head
    }

    /// The head the store confirmed; `nil` without a store (then everything is durable).
    var durableHead: Int? { isEnabled ? durable.seq : nil }

    /// Notes an operation committed in the current batch, the record the store writes for it
    /// (`WireCodec.CommitEncoding.record`), and who to refuse if storing it fails.
    mutating func record(_ committed: CommittedOperation, encoded record: [UInt8]?, sender: OperationSender?) {
        guard isEnabled else { return }
        if let record, batchRecords.count == batchOperations.count { batchRecords.append(record) }
        batchOperations.append(committed)
        if let sender { batchSenders.append(sender) }
    }

    /// Answers a resent operation with its first outcome: a durable (or rejected) outcome as an
    /// ordinary reply, so a failure of a batch pending before it cannot swallow it; an outcome
    /// still being stored once it is durable, refused like the first sender's if storing it fails.
    mutating func answerResend(
        _ first: Outcome, opId: String, ref: String?, to handle: ConnectionHandle, outbox: inout RoomOutbox
    ) {
        let ack = WireCodec.encode(.ack(ServerMessage.Ack(ref: ref, opId: opId, outcome: first)))
        guard isEnabled, let committed = first.committed, committed.seq > durable.seq else {
            outbox.send(ack, to: [handle])
            return
        }
        batchSenders.append(OperationSender(handle: handle, ref: ref, opId: opId))
        outbox.send(ack, to: [handle], onRollback: .discard)
    }

    /// Ends the current batch with its outputs: they go out now, or wait for the batch's
    /// operations (which the room hands to the store), or wait behind earlier batches.
    mutating func endBatch(_ outputs: [RoomOutput]) -> BatchEnd {
        guard isEnabled else { return .perform(outputs) }
        let operations = batchOperations
        let senders = batchSenders
        let records = batchRecords.count == operations.count ? batchRecords : []
        batchOperations.removeAll(keepingCapacity: true)
        batchSenders.removeAll(keepingCapacity: true)
        batchRecords = []
        if let upTo = operations.last?.seq {
            pending.append(PendingBatch(upTo: upTo, operations: operations, senders: senders, outputs: outputs))
            return .store(upTo: upTo, operations: operations, records: records)
        } else if pending.isEmpty {
            return .perform(outputs)
        } else if !outputs.isEmpty || !senders.isEmpty {
            pending.append(PendingBatch(upTo: nil, operations: [], senders: senders, outputs: outputs))
        }
        return .held
    }

    /// The store committed (`failed == false`) or failed the transaction holding operations up
    /// to `seq`. On success the durable board applies the batches up to it; `replayFailed` hears
    /// of any operation that does not apply (a bug: it is logged).
    mutating func completed(
        upTo seq: Int, failed: Bool, replayFailed: (CommittedOperation, any Error) -> Void
    ) -> Completion {
        if staleCompletions > 0 {
            // An append dropped by a rollback: its seqs may since have been reused by new batches.
            staleCompletions -= 1
            return .ignored
        }
        guard pending.contains(where: { $0.upTo == seq }) else { return .ignored }  // dropped by a rollback
        if failed { return .failed }
        var outputs: [RoomOutput] = []
        while let batch = pending.first {
            if let upTo = batch.upTo {
                guard upTo <= seq else { break }
                for operation in batch.operations {
                    bytesSinceSnapshot += operation.estimatedBytes
                    do {
                        try durable.apply(operation)
                    } catch {
                        replayFailed(operation, error)
                    }
                }
            }
            pending.removeFirst()
            outputs += batch.outputs
        }
        return .durable(outputs: outputs)
    }

    /// Returns to the last durable state after the transaction holding `failedUpTo` failed.
    ///
    /// Every pending batch is dropped (the room ended its current batch first: it was sequenced on
    /// top of the failed one). Their outputs pass through their `RollbackPolicy`, and each of
    /// their senders still connected (`isMember`) gets `ack` rejected with `rejection`.
    mutating func rollBack(
        failedUpTo: Int, rejection: Rejection, isMember: (ConnectionHandle) -> Bool
    ) -> RollBack {
        let dropped = pending
        pending.removeAll()
        // Every dropped append but the failed one still has its completion to come.
        staleCompletions += dropped.filter { $0.upTo != nil && $0.upTo != failedUpTo }.count
        var outputs: [RoomOutput] = []
        for batch in dropped {
            for output in batch.outputs where !output.isCommittedOperation {
                switch output {
                case .send(_, let handles, .closeRecipients):
                    for handle in handles {
                        outputs.append(
                            .close(
                                handle, code: CloseCode.internalError, reason: "storage failed; reconnect",
                                discardingPending: false))
                    }
                default:
                    outputs.append(output)
                }
            }
            for sender in batch.senders where isMember(sender.handle) {
                let ack = ServerMessage.Ack(ref: sender.ref, opId: sender.opId, outcome: .rejected(rejection))
                outputs.append(.send(WireCodec.encode(.ack(ack)), [sender.handle], .keep))
            }
        }
        return RollBack(durable: durable, outputs: outputs)
    }

    /// Forgets every batch waiting for the store (the room stops: another node has the board).
    mutating func abandon() {
        staleCompletions += pending.filter { $0.upTo != nil }.count
        pending.removeAll()
        batchOperations.removeAll()
        batchSenders.removeAll()
        batchRecords = []
    }

    /// Whether the operation with `seq` still waits for the store.
    func isPending(_ seq: Int) -> Bool { isEnabled && durable.seq < seq }

    /// A snapshot of the durable board when it is `interval` or more operations past the last one
    /// handed to the store, or `bytes` or more of operations (which then compacts the log behind
    /// it); `nil` when not due.
    mutating func snapshotDue(every interval: Int, orBytes bytes: Int = .max) -> Snapshot? {
        let ops = durable.seq - lastSnapshotSeq
        guard isEnabled, ops >= interval || (ops > 0 && bytesSinceSnapshot >= bytes) else { return nil }
        lastSnapshotSeq = durable.seq
        bytesSinceSnapshot = 0
        return durable
    }
}

extension Rejection {
    /// The rejection for an operation whose storage failed.
    static func storeFailed(_ error: StoreError) -> Rejection {
        Rejection(
            .storeFailed, "The server could not save this change (\(error.message)); nothing changed. Try again later.")
    }
}
