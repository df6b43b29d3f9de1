import CLinuxShim
import Glibc
import Synchronization

/// One connection, as the loop thread keeps it.
final class LeanSocket {
    enum State {
        case connecting
        case handshaking
        case open
        /// A close frame was sent (ours, or our answer to the server's); waiting for the end.
        case closing
        case closed
    }

    let slot: Int
    let url: LeanURL
    let handshake: ClientHandshake
    var fd: Int32 = -1
    var state = State.connecting
    /// The server's answer to the upgrade, until its head is complete.
    var answer: [UInt8] = []
    var reader: ServerFrameReader
    /// Bytes to write, of which `written` are gone.
    var out: [UInt8] = []
    var written = 0
    /// Frames queued before the connection opened.
    var held: [UInt8] = []
    /// Level-triggered mode: `EPOLLOUT` is in the registered events.
    var writeArmed = false
    var inFlushList = false
    /// When connecting or closing gives up (monotonic nanoseconds).
    var deadline: UInt64 = 0
    /// The delegate heard how it ended.
    var reported = false
    /// The close code this side sent, reported if the server never answers.
    var sentCloseCode: UInt16?

    init(slot: Int, url: LeanURL, subprotocol: String?, maxMessageBytes: Int) {
        self.slot = slot
        self.url = url
        handshake = ClientHandshake(key: ClientHandshake.randomKey(), subprotocol: subprotocol)
        reader = ServerFrameReader(maxMessageBytes: maxMessageBytes)
    }

    var hasPendingWrite: Bool { written < out.count }

    var id: LeanConnectionID { LeanConnectionID(slot: slot) }
}

/// The state of a ``LeanWebSocketClient``'s loop thread, touched by that thread only (after
/// ``open(delegate:)``): the epoll descriptor, the connections by slot, the one read buffer.
final class LeanLoop {
    let configuration: LeanClientConfiguration
    let wakeFD: Int32
    private var epollFD: Int32 = -1
    private var delegate: (any LeanClientDelegate)?
    private var sockets: [LeanSocket?] = []
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private let maxEvents = 1024
    private var events: UnsafeMutablePointer<epoll_event>?
    private var keys = MaskKeys()
    private var flushList: [LeanSocket] = []
    /// Sockets connecting, handshaking or closing: the ones with a deadline.
    private var waiting = 0
    private var closing = 0
    private var addresses: [String: SocketAddress] = [:]
    private var spareConnects: [LeanWebSocketClient.ConnectRequest] = []
    private var spareDirty: [Int] = []
    private var stopping = false
    private var stopDeadline: UInt64 = 0

    private static let wakeToken = UInt64.max
    /// How often the loop hands its ``LeanLoopStats`` to the client (ns): a copy of the counts
    /// at most 100 times a second, not one per round.
    private static let publishInterval: UInt64 = 10_000_000

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

    private func handle(_ socket: LeanSocket, _ events: UInt32) {
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
    private func tcpConnected(_ socket: LeanSocket) {
        socket.state = .handshaking
        socket.out = socket.handshake.request(for: socket.url)
        socket.written = 0
        if !configuration.edgeTriggered { modify(socket, write: false) }
        flush(socket)
    }

    /// Reads what the socket holds: one `recv` when level-triggered, until a short read when
    /// edge-triggered (a short read means the queue was empty; data arriving after it raises a
    /// new edge).
    private func readAll(_ socket: LeanSocket) {
        let capacity = buffer.count
        while true {
            // recvfrom, not recv: an executable that links CorkboardTransport defines `recv` itself
            // (the server's frame guard, CFrameGuard) and would look every read up in its table.
            let n = recvfrom(socket.fd, buffer.baseAddress, capacity, 0, nil, nil)
            if n > 0 {
                if configuration.delayedAcks {
                    var off: Int32 = 0
                    setsockopt(socket.fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &off, socklen_t(MemoryLayout<Int32>.size))
                }
                received(socket, UnsafeRawBufferPointer(start: buffer.baseAddress, count: n))
                guard socket.state != .closed, configuration.edgeTriggered, n == capacity else { return }
            } else if n == 0 {
                endOfStream(socket)
                return
            } else {
                let error = errno
                if error == EINTR { continue }
                if error == EAGAIN || error == EWOULDBLOCK { return }
                lost(socket, "recv failed: \(Self.describe(error))")
                return
            }
        }
    }

    private func received(_ socket: LeanSocket, _ bytes: UnsafeRawBufferPointer) {
        guard socket.state == .handshaking else {
            frames(socket, bytes)
            return
        }
        socket.answer.append(contentsOf: bytes)
        switch socket.answer.withUnsafeBytes({ socket.handshake.read($0) }) {
        case .incomplete:
            return
        case .refused(let failure):
            fail(socket, "\(socket.url): \(failure)")
        case .accepted(let head):
            let rest = Array(socket.answer[head...])
            socket.answer = []
            socket.state = .open
            waiting -= 1
            if !socket.held.isEmpty {
                socket.out.append(contentsOf: socket.held)
                socket.held = []
                queueFlush(socket)
            }
            delegate?.leanConnected(socket.id)
            if !rest.isEmpty && socket.state == .open { rest.withUnsafeBytes { frames(socket, $0) } }
        }
    }

    /// Parses frames in place and hands messages to the delegate.
    private func frames(_ socket: LeanSocket, _ bytes: UnsafeRawBufferPointer) {
        let delegate = self.delegate
        let failure = socket.reader.read(bytes) { event in
            switch event {
            case .text(let message), .binary(let message):
                guard socket.state == .open else { return socket.state == .closing }
                delegate?.leanReceived(socket.id, message)
                return socket.state == .open
            case .ping(let payload):
                guard socket.state == .open else { return true }
                ClientFrame.append(opcode: ClientFrame.pong, payload: payload, maskKey: keys.next(), to: &socket.out)
                queueFlush(socket)
                return true
            case .pong:
                return true
            case .close(let code, let reason):
                closeReceived(socket, code: code, reason: String(decoding: reason, as: UTF8.self))
                return false
            }
        }
        if let failure { protocolFailure(socket, failure) }
    }

    private func closeReceived(_ socket: LeanSocket, code: UInt16?, reason: String) {
        switch socket.state {
        case .open:
            // The server closes: answer with its code (RFC 6455 §5.5.1), then wait for it to end TCP.
            var payload: [UInt8] = []
            if let code { payload = [UInt8(code >> 8), UInt8(code & 0xFF)] }
            payload.withUnsafeBytes {
                ClientFrame.append(opcode: ClientFrame.close, payload: $0, maskKey: keys.next(), to: &socket.out)
            }
            beginClosing(socket)
            report(socket, .closed(code: code.map(Int.init), reason: reason))
            queueFlush(socket)
        case .closing:
            // The answer to our close: the handshake is over.
            report(socket, .closed(code: code.map(Int.init) ?? socket.sentCloseCode.map(Int.init), reason: reason))
            finish(socket)
        default:
            break
        }
    }

    private func endOfStream(_ socket: LeanSocket) {
        switch socket.state {
        case .handshaking:
            fail(socket, "\(socket.url): the server closed the connection during the handshake")
        case .open:
            lost(socket, "the server ended the TCP connection without a close frame")
        case .closing:
            report(socket, .closed(code: socket.sentCloseCode.map(Int.init), reason: "closed"))
            finish(socket)
        default:
            break
        }
    }

    /// A protocol error in the server's frames: send our close frame with its code, report, end.
    private func protocolFailure(_ socket: LeanSocket, _ failure: ServerFrameReader.Failure) {
        ClientFrame.appendClose(code: failure.code, reason: failure.reason, maskKey: keys.next(), to: &socket.out)
        flush(socket)
        report(socket, .closed(code: Int(failure.code), reason: failure.reason))
        finish(socket)
    }

    // MARK: Writing

    private func queueFlush(_ socket: LeanSocket) {
        guard !socket.inFlushList else { return }
        socket.inFlushList = true
        flushList.append(socket)
    }

    private func flushQueued() {
        guard !flushList.isEmpty else { return }
        for socket in flushList {
            socket.inFlushList = false
            if socket.state != .closed { flush(socket) }
        }
        flushList.removeAll(keepingCapacity: true)
    }

    /// Writes what the socket has queued with as few `send`s as the kernel takes; what is left
    /// waits for `EPOLLOUT`.
    private func flush(_ socket: LeanSocket) {
        while socket.written < socket.out.count {
            let n = socket.out.withUnsafeBytes {
                send(socket.fd, $0.baseAddress! + socket.written, $0.count - socket.written, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                socket.written += n
                continue
            }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                if !configuration.edgeTriggered && !socket.writeArmed { modify(socket, write: true) }
                return
            }
            lost(socket, "send failed: \(Self.describe(error))")
            return
        }
        socket.out.removeAll(keepingCapacity: socket.out.capacity <= 64 * 1024)
        socket.written = 0
        if socket.writeArmed { modify(socket, write: false) }
    }

    /// Level-triggered mode: adds or removes `EPOLLOUT`.
    private func modify(_ socket: LeanSocket, write: Bool) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (write ? EPOLLOUT.rawValue : 0)
        event.data.u64 = UInt64(socket.slot)
        epoll_ctl(epollFD, EPOLL_CTL_MOD, socket.fd, &event)
        socket.writeArmed = write
    }

    // MARK: What other threads queued

    private func drain(_ client: LeanWebSocketClient) {
        var connects = spareConnects
        var dirty = spareDirty
        var closes: [(slot: Int, code: UInt16, reason: String)] = []
        var stop: Duration?
        client.outbox.withLock { ob in
            ob.wakePending = false
            swap(&ob.connects, &connects)
            for request in connects {
                while sockets.count <= request.slot { sockets.append(nil) }
                sockets[request.slot] = LeanSocket(
                    slot: request.slot, url: request.url, subprotocol: request.subprotocol,
                    maxMessageBytes: configuration.maxMessageBytes)
            }
            swap(&ob.dirty, &dirty)
            for slot in dirty {
                guard let socket = sockets[slot] else {
                    ob.queued[slot] = []
                    continue
                }
                switch socket.state {
                case .open where !socket.hasPendingWrite:
                    socket.out.removeAll(keepingCapacity: true)
                    socket.written = 0
                    swap(&socket.out, &ob.queued[slot])
                case .open:
                    socket.out.append(contentsOf: ob.queued[slot])
                    ob.queued[slot].removeAll(keepingCapacity: true)
                case .connecting, .handshaking:
                    socket.held.append(contentsOf: ob.queued[slot])
                    ob.queued[slot].removeAll(keepingCapacity: true)
                case .closing, .closed:
                    ob.queued[slot] = []
                }
            }
            if !ob.closes.isEmpty { swap(&ob.closes, &closes) }
            if ob.stopping && !stopping { stop = ob.stopTimeout }
        }
        for request in connects { if let socket = sockets[request.slot] { startConnect(socket) } }
        for slot in dirty { if let socket = sockets[slot], socket.state == .open { queueFlush(socket) } }
        for close in closes {
            if let socket = sockets[close.slot] { startClose(socket, code: close.code, reason: close.reason) }
        }
        if let stop { beginStopping(stop) }
        connects.removeAll(keepingCapacity: true)
        spareConnects = connects
        dirty.removeAll(keepingCapacity: true)
        spareDirty = dirty
    }

    private func startConnect(_ socket: LeanSocket) {
        waiting += 1
        socket.deadline = Monotonic.nanos() + configuration.connectTimeout.nanoseconds
        guard let address = resolve(socket.url) else {
            fail(socket, "\(socket.url): cannot resolve \(socket.url.host)")
            return
        }
        let fd = Glibc.socket(
            address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0)
        guard fd >= 0 else {
            fail(socket, "socket() failed: \(Self.describe(errno))")
            return
        }
        socket.fd = fd
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let size = configuration.socketReceiveBuffer {
            var bytes = Int32(size)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
        }
        var event = epoll_event()
        event.events =
            EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue
            | (configuration.edgeTriggered ? EPOLLET.rawValue : 0)
        event.data.u64 = UInt64(socket.slot)
        socket.writeArmed = !configuration.edgeTriggered
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            fail(socket, "epoll_ctl failed: \(Self.describe(errno))")
            return
        }
        var storage = address.storage
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        if result == 0 {
            tcpConnected(socket)
        } else if errno != EINPROGRESS {
            fail(socket, "could not connect to \(socket.url.hostHeader): \(Self.describe(errno))")
        }
    }

    /// A close this side starts (the caller's, or the shutdown's).
    private func startClose(_ socket: LeanSocket, code: UInt16, reason: String) {
        switch socket.state {
        case .open:
            ClientFrame.appendClose(code: code, reason: reason, maskKey: keys.next(), to: &socket.out)
            socket.sentCloseCode = code
            beginClosing(socket)
            queueFlush(socket)
        case .connecting, .handshaking:
            fail(socket, "closed before the handshake completed")
        case .closing, .closed:
            break
        }
    }

    private func beginClosing(_ socket: LeanSocket) {
        socket.state = .closing
        socket.deadline = Monotonic.nanos() + 2_000_000_000
        waiting += 1
        closing += 1
    }

    private func beginStopping(_ timeout: Duration) {
        stopping = true
        stopDeadline = Monotonic.nanos() + timeout.nanoseconds
        for socket in sockets { if let socket { startClose(socket, code: 1000, reason: "load run finished") } }
    }

    /// Ends connections whose connect or close took too long.
    private func sweep(_ now: UInt64) {
        for case let socket? in sockets where socket.deadline <= now {
            switch socket.state {
            case .connecting, .handshaking:
                fail(socket, "\(socket.url): no WebSocket handshake within \(configuration.connectTimeout)")
            case .closing:
                report(socket, .closed(code: socket.sentCloseCode.map(Int.init), reason: "no close answer"))
                finish(socket)
            default:
                break
            }
        }
    }

    // MARK: Endings

    /// Fails a connection that never opened.
    private func fail(_ socket: LeanSocket, _ text: String) {
        report(socket, .failed(text))
        finish(socket)
    }

    /// Ends a connection on an I/O error.
    private func lost(_ socket: LeanSocket, _ text: String) {
        switch socket.state {
        case .connecting, .handshaking: fail(socket, "\(socket.url): \(text)")
        default:
            report(socket, .closed(code: nil, reason: text))
            finish(socket)
        }
    }

    private func report(_ socket: LeanSocket, _ end: LeanConnectionEnd) {
        guard !socket.reported else { return }
        socket.reported = true
        delegate?.leanEnded(socket.id, end)
    }

    /// Closes the socket and forgets the connection.
    private func finish(_ socket: LeanSocket) {
        switch socket.state {
        case .connecting, .handshaking: waiting -= 1
        case .closing:
            waiting -= 1
            closing -= 1
        default: break
        }
        socket.state = .closed
        if socket.fd >= 0 { Glibc.close(socket.fd) }
        socket.fd = -1
        socket.out = []
        socket.held = []
        socket.answer = []
        sockets[socket.slot] = nil
    }

    private func endAll(_ text: String) {
        for case let socket? in sockets {
            report(socket, socket.state == .open ? .closed(code: nil, reason: text) : .failed(text))
            finish(socket)
        }
    }

    private func release() {
        for case let socket? in sockets where socket.fd >= 0 { Glibc.close(socket.fd) }
        sockets = []
        flushList = []
        Glibc.close(epollFD)
        buffer.deallocate()
        events?.deallocate()
        events = nil
        delegate = nil
    }

    // MARK: Helpers

    struct SocketAddress {
        var storage: sockaddr_storage
        var length: socklen_t
        var family: Int32
    }

    /// The address of `url`'s host and port (resolved once per host and port).
    private func resolve(_ url: LeanURL) -> SocketAddress? {
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
