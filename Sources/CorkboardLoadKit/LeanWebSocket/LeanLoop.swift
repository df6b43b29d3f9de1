import CLinuxShim
import Glibc
import Synchronization

/// The state of a ``LeanWebSocketClient``'s loop thread, touched by that thread only (after
/// ``open(delegate:)``): the epoll descriptor, the connections by slot, the one read buffer.
final class LeanLoop {
    let configuration: LeanClientConfiguration
    let wakeFD: Int32
    var epollFD: Int32 = -1
    var delegate: (any LeanClientDelegate)?
    var sockets: [LeanSocket?] = []
    var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    let maxEvents = 1024
    var events: UnsafeMutablePointer<epoll_event>?
    var keys = MaskKeys()
    var flushList: [LeanSocket] = []
    /// Sockets connecting, handshaking or closing: the ones with a deadline.
    var waiting = 0
    var closing = 0
    var addresses: [String: SocketAddress] = [:]
    var spareConnects: [LeanWebSocketClient.ConnectRequest] = []
    var spareDirty: [Int] = []
    var stopping = false
    var stopDeadline: UInt64 = 0

    static let wakeToken = UInt64.max
    /// How often the loop hands its ``LeanLoopStats`` to the client (ns): a copy of the counts
    /// at most 100 times a second, not one per round.
    static let publishInterval: UInt64 = 10_000_000

    init(configuration: LeanClientConfiguration, wakeFD: Int32) {
        self.configuration = configuration
        self.wakeFD = wakeFD
    }

    /// Creates the epoll descriptor and the buffers (on the caller's thread, before the loop runs).
    func open(delegate: any LeanClientDelegate) throws(LeanClientError) {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw LeanClientError("epoll_create1 failed: \(Self.describe(errno))") }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeToken
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else {
            throw LeanClientError("epoll_ctl of the wake eventfd failed: \(Self.describe(errno))")
        }
        self.delegate = delegate
        buffer = .allocate(byteCount: max(4096, configuration.readBufferBytes), alignment: 16)
        events = .allocate(capacity: maxEvents)
    }

    // MARK: The loop

    /// Runs until the client stops and every close is answered or timed out.
    func run(client: LeanWebSocketClient) {
        clinux_set_thread_name(String(decoding: configuration.threadName.utf8.prefix(15), as: UTF8.self))
        var nextSweep: UInt64 = 0
        var stats = LeanLoopStats()
        var published: UInt64 = 0
        defer { client.publish(stats) }
        while true {
            let timeout: Int32 = stopping ? 20 : waiting > 0 ? 100 : 1000
            let count = epoll_wait(epollFD, events, Int32(maxEvents), timeout)
            let woke = Monotonic.nanos()
            if count < 0 && errno != EINTR {
                endAll("epoll_wait failed: \(Self.describe(errno))")
                break
            }
            for i in 0..<Int(max(0, count)) {
                let event = events![i]
                if event.data.u64 == Self.wakeToken {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                    continue
                }
                guard let socket = sockets[Int(event.data.u64)] else { continue }
                handle(socket, event.events)
            }
            drain(client)
            flushQueued()
            let done = Monotonic.nanos()
            stats.record(roundNanos: done - woke)
            if done - published >= Self.publishInterval {
                client.publish(stats)
                published = done
            }
            if configuration.coalesceMicroseconds > 0 && count < 64 {
                let until = woke + UInt64(configuration.coalesceMicroseconds) * 1000
                let now = Monotonic.nanos()
                if until > now {
                    var pause = timespec(tv_sec: 0, tv_nsec: Int(until - now))
                    nanosleep(&pause, nil)
                }
            }
            if waiting > 0 || stopping {
                let now = Monotonic.nanos()
                if now >= nextSweep {
                    sweep(now)
                    nextSweep = now + 50_000_000
                }
                if stopping && (closing == 0 || now >= stopDeadline) { break }
            }
        }
        release()
    }

    func handle(_ socket: LeanSocket, _ events: UInt32) {
        switch socket.state {
        case .connecting:
            guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(socket.fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 && events & EPOLLERR.rawValue != 0 { error = ECONNREFUSED }
            guard error == 0 else {
                fail(socket, "could not connect to \(socket.url.hostHeader): \(Self.describe(error))")
                return
            }
            tcpConnected(socket)
        case .handshaking, .open, .closing:
            let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue
            if events & readable != 0 { readAll(socket) }
            if socket.state != .closed && events & EPOLLOUT.rawValue != 0 && socket.hasPendingWrite { flush(socket) }
        case .closed:
            break
        }
    }

    /// The TCP connection is up: send the upgrade request.
    func tcpConnected(_ socket: LeanSocket) {
        socket.state = .handshaking
        socket.out = socket.handshake.request(for: socket.url)
        socket.written = 0
        if !configuration.edgeTriggered { modify(socket, write: false) }
        flush(socket)
    }

    // MARK: Helpers

    struct SocketAddress {
        var storage: sockaddr_storage
        var length: socklen_t
        var family: Int32
    }

    /// The address of `url`'s host and port (resolved once per host and port).
    func resolve(_ url: LeanURL) -> SocketAddress? {
        if let known = addresses[url.hostHeader] { return known }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(url.host, String(url.port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var address = SocketAddress(
            storage: sockaddr_storage(), length: first.pointee.ai_addrlen, family: first.pointee.ai_family)
        withUnsafeMutableBytes(of: &address.storage) { target in
            target.copyMemory(
                from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        addresses[url.hostHeader] = address
        return address
    }

    static func describe(_ error: Int32) -> String { String(cString: strerror(error)) }
}

extension Duration {
    /// Whole nanoseconds (0 for a negative duration).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
