import CLinuxShim
import Crypto

/// The client's side of the opening handshake (RFC 6455 §4.1): the HTTP/1.1 upgrade request, and
/// the checks of the server's answer.
public struct ClientHandshake: Sendable {
    /// The `Sec-WebSocket-Key` sent: base64 of 16 random bytes.
    public let key: String
    /// The subprotocol asked for (`Sec-WebSocket-Protocol`); the server must choose it.
    public let subprotocol: String?
    /// The `Sec-WebSocket-Accept` the server must answer with.
    public let expectedAccept: String

    /// The longest answer head read before giving up.
    public static let maxAnswerBytes = 16 * 1024

    /// A handshake with `key` (use ``randomKey()``).
    public init(key: String, subprotocol: String?) {
        self.key = key
        self.subprotocol = subprotocol
        expectedAccept = Self.accept(for: key)
    }

    /// A fresh key: 16 bytes from the system's random source, in base64.
    public static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64.encode(bytes)
    }

    /// base64(SHA-1(key + the RFC's GUID)).
    public static func accept(for key: String) -> String {
        Base64.encode(Array(Insecure.SHA1.hash(data: Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))))
    }

    /// The upgrade request for `url`: no `Origin` (the server accepts clients that are not
    /// browsers without one).
    public func request(for url: LeanURL) -> [UInt8] {
        var text = "GET \(url.path) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUpgrade: websocket\r\n"
        text += "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { text += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// What the bytes received so far make of the answer.
    public enum Answer: Equatable, Sendable {
        /// The head has not ended yet.
        case incomplete
        /// `101` with every header right; frames start after `headBytes`.
        case accepted(headBytes: Int)
        /// Anything else.
        case refused(HandshakeFailure)
    }

    /// Reads the answer received so far (from its first byte).
    public func read(_ answer: UnsafeRawBufferPointer) -> Answer {
        let blank: StaticString = "\r\n\r\n"
        let end = answer.baseAddress.flatMap { base in
            clinux_memmem(base, answer.count, blank.utf8Start, 4).map { base.distance(to: $0) + 4 }
        }
        guard let end else {
            return answer.count > Self.maxAnswerBytes
                ? .refused(
                    HandshakeFailure(status: nil, "an HTTP answer head longer than \(Self.maxAnswerBytes) bytes"))
                : .incomplete
        }
        let head = String(decoding: UnsafeRawBufferPointer(rebasing: answer[..<(end - 4)]), as: UTF8.self)
        if let failure = check(head) { return .refused(failure) }
        return .accepted(headBytes: end)
    }

    /// Checks an answer's head (status line and headers, without the blank line).
    private func check(_ head: String) -> HandshakeFailure? {
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        let statusLine = lines.popFirst() ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            return HandshakeFailure(status: nil, "not an HTTP answer: \(statusLine.prefix(80))")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        guard status == 101 else {
            var text = "HTTP \(status)" + (parts.count > 2 ? " \(parts[2])" : "")
            if let retry = headers["retry-after"] { text += ", Retry-After: \(retry)" }
            return HandshakeFailure(status: status, text)
        }
        guard headers["upgrade"]?.lowercased() == "websocket" else {
            return HandshakeFailure(
                status: 101, "HTTP 101 without Upgrade: websocket (\(headers["upgrade"] ?? "none"))")
        }
        let connection = (headers["connection"] ?? "").lowercased().split(separator: ",").map(\.trimmingSpaces)
        guard connection.contains("upgrade") else {
            return HandshakeFailure(
                status: 101, "HTTP 101 without Connection: Upgrade (\(headers["connection"] ?? "none"))")
        }
        guard let accept = headers["sec-websocket-accept"], accept == expectedAccept else {
            return HandshakeFailure(
                status: 101,
                "Sec-WebSocket-Accept is \(headers["sec-websocket-accept"] ?? "missing"), expected \(expectedAccept)")
        }
        if let extensions = headers["sec-websocket-extensions"] {
            return HandshakeFailure(status: 101, "the server chose extensions none was offered: \(extensions)")
        }
        let chosen = headers["sec-websocket-protocol"]
        if chosen != subprotocol {
            return HandshakeFailure(
                status: 101,
                "Sec-WebSocket-Protocol is \(chosen ?? "missing"), expected \(subprotocol ?? "none")")
        }
        return nil
    }
}

/// Why the server's answer to the upgrade was refused.
public struct HandshakeFailure: Error, Equatable, CustomStringConvertible, Sendable {
    /// The HTTP status, if the answer had one.
    public let status: Int?
    public let description: String

    public init(status: Int?, _ description: String) {
        self.status = status
        self.description = description
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// Standard base64 with padding (RFC 4648 §4), for the handshake's key and accept.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let a = UInt32(bytes[i])
            let b = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let c = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let triple = a << 16 | b << 8 | c
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
