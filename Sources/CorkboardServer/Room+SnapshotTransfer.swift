import CorkboardModel
import CorkboardProtocol

/// Catching a member up (R10, R14): operations when the room holds few enough of them, else the
/// board, inline when small, in `snapshotPart` messages under flow control when large.
extension Room {
    /// How a member gets the board.
    enum BoardDelivery {
        /// In the `welcome` or `synced` itself.
        case inline(Snapshot)
        /// In parts announced by `snapshotParts`.
        case parts(SnapshotEncoding)
    }

    /// The seq up to which the board can no longer be rolled back (everything without a store).
    var durableHead: Int { store == nil ? sequencer.head : durable.head }

    /// Whether a member missing operations worth `bytes` (encoded) should get the board instead:
    /// when they pass the slow-client bound and the board is smaller, or when they would come near
    /// the slow-client close (R11).
    func prefersBoard(overOperationsOf bytes: Int) -> Bool {
        guard bytes > configuration.slowClientBytes else { return false }
        return sequencer.board.estimatedSnapshotBytes < bytes || bytes > configuration.slowClientCloseBytes / 2
    }

    /// The board at head, inline or in parts by its estimated size.
    func boardDelivery() -> BoardDelivery {
        if sequencer.board.estimatedSnapshotBytes <= configuration.inlineSnapshotBytes {
            return .inline(sequencer.snapshot)
        }
        return .parts(snapshotEncoding())
    }

    /// The board at head in parts, encoded once per seq: an encoding made at a durable seq (which
    /// no store failure can roll back) is shared by every member that needs that seq.
    func snapshotEncoding() -> SnapshotEncoding {
        if let shared = transfers.shared, shared.seq == sequencer.head { return shared }
        let encoding = SnapshotEncoding(sequencer.snapshot, partBytes: configuration.snapshotPartBytes)
        if encoding.seq <= durableHead { transfers.shared = encoding }
        logger.debug(
            "snapshot encoded in parts",
            metadata: ["seq": "\(encoding.seq)", "parts": "\(encoding.parts.count)", "bytes": "\(encoding.bytes)"])
        return encoding
    }

    /// Queues the message announcing a member's parts, then the start of their transfer.
    func announce(_ message: EncodedMessage, parts: SnapshotEncoding?, to handle: ConnectionHandle, now: Double) {
        outbox.append(.send(message, [handle]))
        guard let parts else { return }
        transfers.begin(handle, parts, now: now)
        outbox.append(.startTransfer(handle))
    }

    /// Answers `sync`: the operations after `lastSeq`, or the board.
    func sync(_ sync: ClientMessage.Sync, from handle: ConnectionHandle, now: Double) {
        transfers.cancel(handle)
        var synced = ServerMessage.Synced(
            ref: sync.ref, head: sequencer.head, snapshot: nil, ops: sequencer.operations(after: sync.lastSeq))
        var encoded = WireCodec.encode(.synced(synced))
        var parts: SnapshotEncoding?
        if synced.ops == nil || prefersBoard(overOperationsOf: encoded.bytes.count) {
            synced.ops = nil
            switch boardDelivery() {
            case .inline(let snapshot): synced.snapshot = snapshot
            case .parts(let encoding):
                synced.snapshotParts = encoding.descriptor
                parts = encoding
            }
            encoded = WireCodec.encode(.synced(synced))
        }
        announce(encoded, parts: parts, to: handle, now: now)
    }

    /// The announcement went out: the first parts follow at once, the rest as the member reads.
    func startTransfer(_ handle: ConnectionHandle) {
        guard let seq = transfers.seq(of: handle) else { return }
        guard members[handle] != nil, seq <= durableHead else {
            // The member left, or a store failure rolled the board back past the snapshot (its
            // connection was closed for that).
            transfers.cancel(handle)
            return
        }
        let parts = transfers.start(
            handle, now: clock.now(), window: configuration.snapshotWindowBytes,
            pendingBytes: sink.pendingBytes(of: handle))
        for part in parts { sink.send(part, to: handle) }
    }

    /// Sends each transfer the parts that fit its window; closes members whose transfer stalled,
    /// as slow clients (R11).
    func pumpTransfers(now: Double) {
        guard !transfers.isEmpty else { return }
        let sink = self.sink
        let step = transfers.pump(
            now: now, window: configuration.snapshotWindowBytes, stallTimeout: configuration.snapshotStallTimeout,
            pendingBytes: { sink.pendingBytes(of: $0) })
        for (part, handle) in step.sends { sink.send(part, to: handle) }
        for handle in step.stalled {
            guard let member = members[handle]?.member else { continue }
            logger.notice(
                "closing a member whose snapshot transfer stalled",
                metadata: ["member": "\(member.id)", "pendingBytes": "\(sink.pendingBytes(of: handle))"])
            leave(handle, now: now)
            closeConnection(
                handle, code: CloseCode.policyViolation,
                reason: "too slow to keep up; reconnect with your last seq to resume", discardingPending: true)
        }
    }

    func scheduleTransfersIfNeeded() {
        guard !transfers.isEmpty, !transfers.timerScheduled else { return }
        transfers.timerScheduled = true
        Task { [weak self, interval = configuration.snapshotPumpInterval] in
            try? await Task.sleep(for: interval)
            self?.post(.transfer)
        }
    }

    /// Tells the registry the board's size when it changed (for `/healthz`).
    func reportSize() {
        let bytes = sequencer.board.estimatedSnapshotBytes
        guard bytes != reportedSnapshotBytes else { return }
        reportedSnapshotBytes = bytes
        registry.sizes.report(info.id, bytes: bytes)
    }
}
