import CLinuxShim
import Glibc
import Synchronization

/// Writing: each dirty connection's queue in as few `send`s as the kernel takes.
extension LeanLoop {
    func queueFlush(_ socket: LeanSocket) {
        guard !socket.inFlushList else { return }
        socket.inFlushList = true
        flushList.append(socket)
    }

    func flushQueued() {
        guard !flushList.isEmpty else { return }
        for socket in flushList {
            socket.inFlushList = false
            if socket.state != .closed { flush(socket) }
        }
        flushList.removeAll(keepingCapacity: true)
    }

    /// Writes what the socket has queued with as few `send`s as the kernel takes; what is left
    /// waits for `EPOLLOUT`.
    func flush(_ socket: LeanSocket) {
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
    func modify(_ socket: LeanSocket, write: Bool) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (write ? EPOLLOUT.rawValue : 0)
        event.data.u64 = UInt64(socket.slot)
        epoll_ctl(epollFD, EPOLL_CTL_MOD, socket.fd, &event)
        socket.writeArmed = write
    }
}
