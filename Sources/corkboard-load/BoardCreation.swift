import ArgumentParser
import Foundation
import Glibc

/// Creates a board on a running server through `POST /api/boards` (plain `ws://` servers only), so a
/// run can put clients on a board of its own without the server's data folder.
enum BoardCreation {
    struct Created: Decodable {
        var id: String
        var editKey: String
    }

    /// Creates a board titled `title` from the demo template; returns its id and edit key.
    ///
    /// - Throws: `ValidationError` saying what failed (a `wss://` URL, a refused connection, an
    ///   answer other than 201).
    static func create(serverURL: String, title: String) throws -> (id: String, key: String) {
        guard let url = URLComponents(string: serverURL), url.scheme == "ws", let host = url.host else {
            throw ValidationError(
                "Creating a board needs a ws:// --url; over wss:// pass an existing board with --other-board and --other-key."
            )
        }
        let port = url.port ?? 80
        let body = Array(#"{"title":\#(Wire.string(title)),"template":"demo"}"#.utf8)
        let origin = "http://\(host):\(port)"
        let head =
            "POST /api/boards HTTP/1.1\r\nHost: \(host):\(port)\r\nOrigin: \(origin)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let answer = try exchange(host: host, port: port, request: Array(head.utf8) + body)
        let text = String(decoding: answer, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 201"), let split = text.range(of: "\r\n\r\n") else {
            throw ValidationError(
                "POST /api/boards on \(origin) did not create a board: \(text.prefix(300)); is board creation on "
                    + "(--max-boards)?")
        }
        guard let created = try? JSONDecoder().decode(Created.self, from: Data(text[split.upperBound...].utf8)) else {
            throw ValidationError("POST /api/boards answered an unexpected body: \(text.prefix(300))")
        }
        return (created.id, created.editKey)
    }

    /// Sends `request` to `host`:`port` and reads until the server closes.
    private static func exchange(host: String, port: Int, request: [UInt8]) throws -> [UInt8] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw ValidationError("Cannot resolve \(host).")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { throw ValidationError("Cannot open a socket: \(String(cString: strerror(errno))).") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw ValidationError("Cannot connect to \(host):\(port): \(String(cString: strerror(errno))).")
        }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ValidationError("Sending to \(host):\(port) failed.") }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return answer
    }
}
