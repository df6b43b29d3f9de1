import CLibWebSockets
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension ShardContext {
    /// During a shutdown, at each wake: counts this shard's connections that are not taking their
    /// close frame — output held by lws, or in the socket's send queue unacknowledged (a peer that
    /// stopped reading: its queue is full, so even the close cannot be written) — for
    /// ``WebSocketServer/shutdown``, which stops waiting for them once nothing else is left.
    ///
    /// A connection whose close is not written yet but whose socket has room is not counted: its
    /// close goes out as soon as this thread runs (on a busy machine that can take a while, and
    /// counting it would drop healthy peers before their close left). Each recount is numbered
    /// (`peerRecounts`), so the shutdown knows a count is fresh.
    func countPeersNotTakingClose() {
        var count = 0
        for wsi in loop.wsiByID.allValues
        where lws_partial_buffered(wsi) != 0 || Self.unacknowledgedBytes(lws_get_socket_fd(wsi)) > 0 {
            count += 1
        }
        shard.peersNotTakingClose.store(count, ordering: .relaxed)
        shard.peerRecounts.add(1, ordering: .releasing)
    }

    /// Bytes in a socket's send queue not yet acknowledged by the peer (0 when unknown).
    static func unacknowledgedBytes(_ fd: Int32) -> Int32 {
        var bytes: Int32 = 0
        #if canImport(Glibc)
        guard fd >= 0, ioctl(fd, UInt(TIOCOUTQ), &bytes) == 0 else { return 0 }
        #endif
        return bytes
    }
}
