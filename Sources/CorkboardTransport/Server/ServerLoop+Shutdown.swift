import CLibWebSockets
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension ShardContext {
    /// During a shutdown, at each wake: counts this shard's connections that are not taking their
    /// close frame — not written yet, held by lws, or written but still in the socket's send
    /// queue, unacknowledged (a peer that stopped reading) — for ``WebSocketServer/shutdown``,
    /// which stops waiting for them once nothing else is left.
    func countPeersNotTakingClose() {
        var count = 0
        for id in loop.wsiByID.keys {
            guard let wsi = loop.wsiByID[id] else { continue }
            if !loop.closing.contains(id) || lws_partial_buffered(wsi) != 0
                || Self.unacknowledgedBytes(lws_get_socket_fd(wsi)) > 0
            {
                count += 1
            }
        }
        shard.peersNotTakingClose.store(count, ordering: .relaxed)
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
