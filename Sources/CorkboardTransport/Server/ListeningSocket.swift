#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's one listening TCP socket: bound by the server itself (not by libwebsockets), so
/// the address is exactly the one configured, the port is known before any service thread runs,
/// and one thread can hand accepted connections to every service thread.
///
/// Why not one `SO_REUSEPORT` socket per thread: any other process of the same user could then
/// bind the same port and silently take a share of the connections, and a busy port would no
/// longer be an error at start. One listener and a hand-off gives an even spread (the thread with
/// the fewest connections gets the next) and a clear "port in use".
struct ListeningSocket {
    /// The non-blocking listening descriptor.
    let fd: Int32
    /// The port bound (the kernel's choice when the configuration said 0).
    let port: Int

    /// Binds and listens on `host:port`.
    ///
    /// - Parameters:
    ///   - host: An address or host name; empty, `0.0.0.0` or `*` for every IPv4 interface, `::`
    ///     for every interface.
    ///   - port: The port, 0 for any free one.
    /// - Throws: ``TransportError/listenFailed(_:)`` saying what failed and what to do.
    static func open(host: String, port: Int) throws(TransportError) -> ListeningSocket {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        let node: String? = ["", "0.0.0.0", "*"].contains(host) ? "0.0.0.0" : host
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(node, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let why = String(cString: gai_strerror(status))
            throw .listenFailed("cannot resolve the address \(host) (\(why)); give an IP address or a local host name")
        }
        defer { freeaddrinfo(list) }
        var candidates: [UnsafeMutablePointer<addrinfo>] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            candidates.append(info)
            next = info.pointee.ai_next
        }
        // IPv4 first: `localhost` then binds 127.0.0.1, where clients of "localhost" connect first.
        candidates.sort { ($0.pointee.ai_family == AF_INET ? 0 : 1) < ($1.pointee.ai_family == AF_INET ? 0 : 1) }
        var lastError: Int32 = 0
        for info in candidates {
            let fd = socket(
                info.pointee.ai_family,
                info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue)
                    | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = errno
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if info.pointee.ai_family == AF_INET6 {
                // `::` serves IPv4 too (as mapped addresses) whatever the system default says.
                var zero: Int32 = 0
                _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
            }
            guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(fd, SOMAXCONN) == 0 else {
                lastError = errno
                close(fd)
                continue
            }
            return ListeningSocket(fd: fd, port: boundPort(fd) ?? port)
        }
        let why = String(cString: strerror(lastError))
        throw .listenFailed(
            "could not listen on \(host):\(port) (\(why)): the port may be in use or the address not local; "
                + "choose another port or stop the process holding it")
    }

    /// Accepts one waiting connection, non-blocking, with Nagle off; `nil` when none is waiting
    /// (or the accept failed: `errno` says why).
    func accept() -> AcceptedSocket? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // accept4 is not exported by Swift's Glibc module; two fcntl calls do the same.
        let client = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(fd, $0, &length) }
        }
        guard client >= 0 else { return nil }
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        // Small frames go out at once: latency matters more than packet count here.
        _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return AcceptedSocket(fd: client, address: Self.addressText(storage))
    }

    /// The remote address as text: dotted IPv4 (also for IPv4-mapped IPv6 peers) or IPv6.
    static func addressText(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var address = sin.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                }
            }
        case AF_INET6:
            withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    var address = sin6.pointee.sin6_addr
                    let bytes = withUnsafeBytes(of: &address) { Array($0) }
                    if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                        // ::ffff:a.b.c.d counts as the IPv4 address it is.
                        var v4 = in_addr()
                        withUnsafeMutableBytes(of: &v4) { $0.copyBytes(from: bytes[12..<16]) }
                        _ = inet_ntop(AF_INET, &v4, &text, socklen_t(text.count))
                    } else {
                        _ = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                    }
                }
            }
        default:
            return "unknown"
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `fd` is still this listening socket (open, listening, on this port).
    func isStillListening() -> Bool {
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening != 0 else { return false }
        return Self.boundPort(fd) == port
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }
}
