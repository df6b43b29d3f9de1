public import CorkboardProtocol
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking WebSocket client over a POSIX socket, for a peer that stops reading (R11):
/// a small receive buffer so the server's queue grows soon, masked text frames out, frames in.
///
/// One task uses it at a time (it is `Sendable` only so that ``nextFrame()`` can block a thread of
/// its own rather than one of the cooperative threads the server's rooms run on).
public final class RawWebSocket: @unchecked Sendable {
    /// A message or control frame read from the server.
    public enum Frame: Sendable {
        case text([UInt8])
        case close(code: Int?, reason: String)
        case other(opcode: UInt8)
    }

    public let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port` and upgrades to `corkboard.v1`; reads give up after
    /// `timeoutSeconds` without a byte (generous: a loaded test machine can stall a server that long).
    public init(port: Int, receiveBufferBytes: Int32 = 4096, timeoutSeconds: Int = 15) throws {
        fd = RawHTTP.connect(port: port, timeoutSeconds: timeoutSeconds, receiveBufferBytes: receiveBufferBytes)
        guard fd >= 0 else { throw RawError("connect() to port \(port) failed: errno \(errno)") }
        try write(Array(RawHTTP.upgrade(port: port).utf8))
        while true {
            if let end = headerEnd() {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                guard head.hasPrefix("HTTP/1.1 101") else { throw RawError("upgrade refused: \(head)") }
                return
            }
            guard try fill() else { throw RawError("the server closed during the upgrade") }
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends one masked text frame.
    public func send(_ message: ClientMessage) throws {
        let payload = WireCodec.encode(message)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xff) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    /// Sends `bytes` as they are: frames a well-behaved client would not send (unmasked, bad lengths).
    public func sendRaw(_ bytes: [UInt8]) throws {
        try write(bytes)
    }

    /// Reads the next whole message (text, reassembled from fragments) or control frame; `nil` at
    /// end of stream or after the receive timeout.
    public func next() throws -> Frame? {
        var message: [UInt8] = []
        while true {
            guard let (fin, opcode, payload) = try frame() else { return nil }
            switch opcode {
            case 0x1, 0x0:
                message += payload
                if fin { return .text(message) }
            case 0x8:
                let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
                let reason = payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : ""
                return .close(code: code, reason: reason)
            default:
                return .other(opcode: opcode)
            }
        }
    }

    /// ``next()`` on a thread of its own. An async test waiting for what a room sends must not
    /// block a cooperative thread: the room needs one to answer, and with two cores there are two,
    /// so two such waits at once stop every room of the process until their receive timeouts.
    public func nextFrame() async throws -> Frame? {
        try await io { try self.next() }
    }

    private func frame() throws -> (fin: Bool, opcode: UInt8, payload: [UInt8])? {
        func need(_ count: Int) throws -> Bool {
            while buffer.count < count { guard try fill() else { return false } }
            return true
        }
        guard try need(2) else { return nil }
        var length = Int(buffer[1] & 0x7f)
        var offset = 2
        if length == 126 {
            guard try need(4) else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard try need(10) else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            offset = 10
        }
        guard try need(offset + length) else { return nil }
        let result = (buffer[0] & 0x80 != 0, buffer[0] & 0x0f, Array(buffer[offset..<(offset + length)]))
        buffer.removeFirst(offset + length)
        return result
    }

    private func headerEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        return (0...(buffer.count - 4)).first {
            buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
        }
    }

    /// Reads what is available; `false` at end of stream, reset or timeout.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        guard n > 0 else { return false }
        buffer += chunk[0..<n]
        return true
    }

    private func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawError("send() failed: errno \(errno)") }
            offset += n
        }
    }
}

/// A failure of a raw socket client, saying what failed.
public struct RawError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
