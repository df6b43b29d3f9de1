import CLinuxShim
import Glibc
import Synchronization

/// Connections opened, closed and ended: what other threads asked for, the deadlines, the endings.
extension LeanLoop {
    func drain(_ client: LeanWebSocketClient) {
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

    func startConnect(_ socket: LeanSocket) {
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
    func startClose(_ socket: LeanSocket, code: UInt16, reason: String) {
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

    func beginClosing(_ socket: LeanSocket) {
        socket.state = .closing
        socket.deadline = Monotonic.nanos() + 2_000_000_000
        waiting += 1
        closing += 1
    }

    func beginStopping(_ timeout: Duration) {
        stopping = true
        stopDeadline = Monotonic.nanos() + timeout.nanoseconds
        for socket in sockets { if let socket { startClose(socket, code: 1000, reason: "load run finished") } }
    }

    /// Ends connections whose connect or close took too long.
    func sweep(_ now: UInt64) {
        for case let socket? in sockets where socket.deadline <= now {
            switch socket.state {
            case .connecting, .handshaking:
                fail(socket, "\(socket.url): no WebSocket handshake within \(configuration.connectTimeout)")
            case .closing:
                endClosing(socket, reason: "no close answer")
            default:
                break
            }
        }
    }

    // MARK: Endings

    /// Fails a connection that never opened.
    func fail(_ socket: LeanSocket, _ text: String) {
        report(socket, .failed(text))
        finish(socket)
    }

    /// Ends a connection on an I/O error.
    func lost(_ socket: LeanSocket, _ text: String) {
        switch socket.state {
        case .connecting, .handshaking: fail(socket, "\(socket.url): \(text)")
        default:
            report(socket, .closed(code: nil, reason: text))
            finish(socket)
        }
    }

    /// Ends a connection we were closing: reported closed with the server's close code, else the
    /// one we sent.
    func endClosing(_ socket: LeanSocket, code: UInt16? = nil, reason: String) {
        report(socket, .closed(code: (code ?? socket.sentCloseCode).map(Int.init), reason: reason))
        finish(socket)
    }

    func report(_ socket: LeanSocket, _ end: LeanConnectionEnd) {
        guard !socket.reported else { return }
        socket.reported = true
        delegate?.leanEnded(socket.id, end)
    }

    /// Closes the socket and forgets the connection.
    func finish(_ socket: LeanSocket) {
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

    func endAll(_ text: String) {
        for case let socket? in sockets {
            report(socket, socket.state == .open ? .closed(code: nil, reason: text) : .failed(text))
            finish(socket)
        }
    }

    func release() {
        for case let socket? in sockets where socket.fd >= 0 { Glibc.close(socket.fd) }
        sockets = []
        flushList = []
        Glibc.close(epollFD)
        buffer.deallocate()
        events?.deallocate()
        events = nil
        delegate = nil
    }
}
