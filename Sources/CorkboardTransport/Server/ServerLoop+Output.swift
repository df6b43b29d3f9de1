import CLibWebSockets
import Synchronization

/// Writing queued frames: at the wake, between reads, and in writeable callbacks, one batch per
/// socket write.
extension ShardContext {
    /// Socket reads (message pieces) between two looks for queued output.
    static let readsBetweenOutput = 32

    /// Writes the output queued since the last wake, between socket reads: under load the loop
    /// finds thousands of sockets readable at once and reaches the wake (`lws_cancel_service`,
    /// one more descriptor in the ready list) only after reading them all, so a committed
    /// operation's fan-out would wait behind a whole round of input. Each connection taken is
    /// written as the wake writes it (`writeNow`); the wake still comes and does the rest (closes,
    /// long queues, adoptions, HTTP responses). The connection being read (`reading`) is not
    /// written inside its own receive callback (lws 4.1.6 may drop a writeable request made
    /// there): it stays for the wake.
    func writeWaitingOutput(reading: ConnectionID?) {
        loop.readsSinceOutput = 0
        guard shard.outputWaiting.load(ordering: .acquiring) else { return }
        shard.outputWaiting.store(false, ordering: .relaxed)
        let capacity = loop.batchCapacity
        let ready = shard.outbox.withLock { $0.takeDirty(fittingIn: capacity, except: reading) }
        for id in ready {
            if let wsi = loop.wsiByID[id], writeNow(wsi, id) { shard.writesBetweenReads.add(1, ordering: .relaxed) }
        }
    }

    /// Writes a connection's queue at the wake that found it dirty, without waiting for a
    /// writeable callback.
    ///
    /// Asking lws for a writeable callback turns POLLOUT on and, once served, off again; on libuv
    /// each turn is `uv_poll_start`, which takes the socket out of epoll and puts it back: four
    /// `epoll_ctl` calls per socket write, a fifth of the server's CPU under fan-out. A socket lws
    /// holds no unsent bytes for almost always takes a batch at once, so it is written here. If the
    /// kernel takes only part, lws keeps the rest (at most one batch) and asks for POLLOUT itself,
    /// and until it has sent it, `lws_partial_buffered` sends this connection back to the
    /// writeable callback, which keeps the slow-consumer bound on our queue. Closes, and a queue
    /// longer than one batch, also go through the callback.
    ///
    /// - Returns: Whether a batch was written.
    @discardableResult
    func writeNow(_ wsi: OpaquePointer, _ id: ConnectionID) -> Bool {
        if loop.closing.contains(id) { return false }
        guard lws_partial_buffered(wsi) == 0 else {
            lws_callback_on_writable(wsi)
            return false
        }
        switch nextBatch(for: id) {
        case .idle:
            return false
        case .close:
            // Not consumed: the writeable callback finds the same close and starts the handshake.
            lws_callback_on_writable(wsi)
            return false
        case .write(let bytes, let more):
            guard writeBatch(wsi, bytes: bytes, more: more) else {
                Lws.dropSoon(wsi)
                return false
            }
            return true
        }
    }

    func writeable(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) -> Int32 {
        guard let id = connectionID(user), !loop.closing.contains(id) else { return 0 }
        switch nextBatch(for: id) {
        case .idle:
            return 0
        case .close(let code, let reason):
            loop.closeInfo[id] = (code, reason)
            loop.closing.insert(id)
            let answered = Lws.startClosingHandshake(
                wsi, code: code, reason: reason, buffer: loop.scratch + Lws.pre,
                seconds: configuration.slowConsumerKillAfter.wholeSecondsRoundedUp)
            return answered ? 0 : -1
        case .write(let bytes, let more):
            return writeBatch(wsi, bytes: bytes, more: more) ? 0 : -1
        }
    }

    /// What to do next for `id`: its next frames copied into the batch buffer (after `Lws.pre`
    /// bytes of headroom), its close, or nothing.
    private func nextBatch(for id: ConnectionID) -> Outbox.WriteAction {
        let scratch = loop.scratch + Lws.pre
        let capacity = loop.batchCapacity
        return shard.outbox.withLock { $0.nextWrite(for: id, into: scratch, capacity: capacity) }
    }

    /// Writes the first `bytes` of the batch buffer, then asks for a writeable callback when
    /// `more` is queued; `false` when the socket failed. A raw write: the frames were framed by
    /// us, and the ws role sends HTTP writes unchanged.
    private func writeBatch(_ wsi: OpaquePointer, bytes: Int, more: Bool) -> Bool {
        guard Lws.write(wsi, loop.scratch + Lws.pre, bytes, LWS_WRITE_HTTP) else { return false }
        if more { lws_callback_on_writable(wsi) }
        return true
    }
}
