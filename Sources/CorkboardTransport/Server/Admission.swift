import CLibWebSockets
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A socket the accepting shard took from the listener, on its way to the shard that serves it.
struct AcceptedSocket: Sendable {
    /// The connected, non-blocking descriptor.
    let fd: Int32
    /// The peer's address as text (``ListeningSocket/addressText(_:)``).
    let address: String
}

/// What a shard remembers of a socket it adopted, until libwebsockets destroys it.
struct AdmittedSocket {
    /// The peer's address, the key of its pending count in ``ConnectionLimits``.
    let address: String
    /// The client's address its WebSocket counts for, once upgraded: the peer's, or behind a
    /// trusted proxy the one it forwarded.
    var client: String?
    /// Whether its upgrade was admitted (it counts as a WebSocket, no longer as pending).
    var upgraded = false
    /// Evicted as the oldest pending socket of its thread: closing, never upgraded.
    var evicted = false
    /// Its descriptor, while the frame guard (`CFrameGuard`) checks it.
    var guardedDescriptor: Int32?
    /// Where its timed reads leave their wait, while the server times reads (``ReadTiming``).
    var readTimer: ReadTiming.Timer?
}

/// The request-head limit: libwebsockets keeps each request's head in one buffer of
/// ``ServerConfiguration/maxRequestHeaderBytes`` and, with per-header limits, cuts a header at
/// its limit instead of failing the whole request. A header that reached its limit is then
/// answered 431 (the URL: 414), where libwebsockets alone would close the connection without a
/// word.
enum RequestHeaderLimit {
    /// The longest single header (or URL): three quarters of the head, leaving room for the rest.
    static func perHeader(_ maxHead: Int) -> Int { maxHead * 3 / 4 }

    /// The per-token table libwebsockets reads at context creation (freed with the loop).
    static func tokenLimits(_ maxHead: Int) -> UnsafeMutablePointer<lws_token_limits> {
        let limits = UnsafeMutablePointer<lws_token_limits>.allocate(capacity: 1)
        limits.initialize(to: lws_token_limits())
        let limit = UInt16(clamping: perHeader(maxHead))
        withUnsafeMutableBytes(of: &limits.pointee.token_limit) { raw in
            for i in 0..<raw.count / 2 { raw.storeBytes(of: limit, toByteOffset: i * 2, as: UInt16.self) }
        }
        return limits
    }

    /// The status for a request whose URL (414) or some header (431) reached the per-header
    /// limit, or `nil` when every header is whole.
    static func refusal(_ wsi: OpaquePointer, maxHead: Int) -> (status: Int, message: String)? {
        let limit = Int32(perHeader(maxHead))
        for token in [WSI_TOKEN_GET_URI, WSI_TOKEN_POST_URI, WSI_TOKEN_HEAD_URI, WSI_TOKEN_HTTP_URI_ARGS]
        where lws_hdr_total_length(wsi, token) >= limit {
            return (414, "the URL is longer than \(limit) bytes; shorten it")
        }
        for raw in 0..<WSI_TOKEN_COUNT.rawValue where lws_hdr_total_length(wsi, lws_token_indexes(raw)) >= limit {
            return (
                431,
                "a request header is longer than \(limit) bytes (the whole head may have \(maxHead)); "
                    + "send smaller headers, for example fewer cookies"
            )
        }
        return nil
    }
}

extension ShardContext {
    /// The listener is readable: accept every waiting connection and hand each to a shard (this
    /// one included), round robin. A socket from an address over its pending cap, or any while
    /// shutting down, is closed at once.
    ///
    /// At the open-file limit `accept` fails and the connection stays queued, which would make
    /// the listener readable forever (a busy loop): the reserve descriptor is closed to accept
    /// it, the connection is closed, and the reserve taken again.
    func acceptWaiting() {
        guard let listener = loop.listener else { return }
        while true {
            guard let socket = listener.accept() else {
                let failure = errno
                if failure == EAGAIN || failure == EWOULDBLOCK { return }
                if failure == EINTR || failure == ECONNABORTED { continue }
                logAcceptFailure(failure)
                guard failure == EMFILE || failure == ENFILE, shedWithReserve(listener) else { return }
                continue
            }
            if loop.shuttingDown {
                close(socket.fd)
                continue
            }
            guard server.limits.withLock({ $0.admitSocket(from: socket.address) }) else {
                logger.debug("refused a connection over the pending cap", metadata: ["remote": "\(socket.address)"])
                close(socket.fd)
                continue
            }
            let target = server.nextShard()
            if target === shard {
                adopt(socket.fd, address: socket.address)
            } else {
                target.enqueue { $0.adopt(socket) }
            }
        }
    }

    /// Accepts one connection with the reserve descriptor's slot and closes it; `false` when no
    /// reserve is held or the accept still failed.
    private func shedWithReserve(_ listener: ListeningSocket) -> Bool {
        guard loop.reserveDescriptor >= 0 else { return false }
        close(loop.reserveDescriptor)
        let shed = listener.accept()
        if let shed { close(shed.fd) }
        loop.reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        server.limits.withLock { $0.countOpenFileRefusal() }
        return shed != nil
    }

    /// Says that accepting failed at most once a second, not per wake.
    private func logAcceptFailure(_ failure: Int32) {
        let now = ContinuousClock.now
        if loop.lastAcceptErrorLog.map({ now - $0 > .seconds(1) }) ?? true {
            loop.lastAcceptErrorLog = now
            logger.error(
                "accepting a connection failed; raise the open-file limit if this says too many open files",
                metadata: ["error": "\(String(cString: strerror(failure)))"])
        }
    }

    /// Makes an accepted socket a connection of this shard (HTTP first, TLS when configured).
    func adopt(_ fd: Int32, address: String) {
        guard let vhost = loop.vhost, !loop.shuttingDown else {
            close(fd)
            server.limits.withLock { $0.closed(address: address, wasWebSocket: false) }
            return
        }
        // On failure lws has closed the socket already.
        guard let wsi = clws_adopt_socket(vhost, fd) else {
            server.limits.withLock { $0.closed(address: address, wasWebSocket: false) }
            return
        }
        let timer = readTimer(for: fd)
        loop.sockets[wsi] = AdmittedSocket(address: address, readTimer: timer)
        guardSocket(fd, wsi, timedBy: timer)
        for victim in loop.pending.add(wsi) { evict(victim) }
    }

    /// Closes a pending socket evicted by a newer one over the thread's cap
    /// (``ServerConfiguration/maxPendingConnectionsPerThread``), at the loop's next pass; its
    /// request buffer then goes to whoever waits for one.
    private func evict(_ wsi: OpaquePointer) {
        loop.sockets[wsi]?.evicted = true
        Lws.dropSoon(wsi)
        server.limits.withLock { $0.countEviction() }
        if let address = loop.sockets[wsi]?.address {
            logger.debug(
                "evicted the oldest pending connection over the thread's cap", metadata: ["remote": "\(address)"])
        }
    }

    /// `LWS_CALLBACK_WSI_DESTROY`: the socket is gone; give back its place in the caps.
    func forgetSocket(_ wsi: OpaquePointer) {
        guard let socket = loop.sockets.removeValue(forKey: wsi) else { return }
        socket.readTimer?.free()
        loop.pending.remove(wsi)
        let counted = socket.upgraded ? socket.client ?? socket.address : socket.address
        server.limits.withLock { $0.closed(address: counted, wasWebSocket: socket.upgraded) }
    }

    /// Counts an upgrade against the connection caps: `nil` when admitted, else the refusal.
    func admitUpgrade(_ wsi: OpaquePointer) -> ConnectionLimits.Refusal? {
        guard let socket = loop.sockets[wsi] else { return nil }
        if socket.upgraded { return nil }
        if socket.evicted { return .evicted }
        let client = clientAddress(wsi)
        if let refusal = server.limits.withLock({ $0.admitUpgrade(from: socket.address, client: client) }) {
            return refusal
        }
        loop.sockets[wsi]?.upgraded = true
        loop.sockets[wsi]?.client = client
        loop.pending.remove(wsi)
        return nil
    }
}
