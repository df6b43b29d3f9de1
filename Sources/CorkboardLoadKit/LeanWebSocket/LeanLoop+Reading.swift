import CLinuxShim
import Glibc
import Synchronization

/// Reading: the upgrade's answer, then frames parsed in place and handed to the delegate.
extension LeanLoop {
    /// Reads what the socket holds: one `recv` when level-triggered, until a short read when
    /// edge-triggered (a short read means the queue was empty; data arriving after it raises a
    /// new edge).
    func readAll(_ socket: LeanSocket) {
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

    func received(_ socket: LeanSocket, _ bytes: UnsafeRawBufferPointer) {
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
    func frames(_ socket: LeanSocket, _ bytes: UnsafeRawBufferPointer) {
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

    func closeReceived(_ socket: LeanSocket, code: UInt16?, reason: String) {
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
            endClosing(socket, code: code, reason: reason)
        default:
            break
        }
    }

    func endOfStream(_ socket: LeanSocket) {
        switch socket.state {
        case .handshaking:
            fail(socket, "\(socket.url): the server closed the connection during the handshake")
        case .open:
            lost(socket, "the server ended the TCP connection without a close frame")
        case .closing:
            endClosing(socket, reason: "closed")
        default:
            break
        }
    }

    /// A protocol error in the server's frames: send our close frame with its code, report, end.
    func protocolFailure(_ socket: LeanSocket, _ failure: ServerFrameReader.Failure) {
        ClientFrame.appendClose(code: failure.code, reason: failure.reason, maskKey: keys.next(), to: &socket.out)
        flush(socket)
        report(socket, .closed(code: Int(failure.code), reason: failure.reason))
        finish(socket)
    }
}
