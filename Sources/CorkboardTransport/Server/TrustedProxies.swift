#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reverse proxies whose `X-Forwarded-For` header the server believes
/// (``ServerConfiguration/trustedProxies``), as IPv4 and IPv6 address ranges in CIDR notation.
///
/// For a request whose peer is in a trusted range, the client's address is the right-most hop of
/// `X-Forwarded-For` that is not itself in a trusted range (each proxy appends the address it
/// heard from, so the entries left of the first untrusted hop are whatever the client claimed).
/// From any other peer the header is ignored: anyone can send one.
public struct TrustedProxies: Sendable, Equatable {
    /// One range: the network's bytes (4 or 16) and its prefix length.
    public struct Range: Sendable, Equatable, CustomStringConvertible {
        let bytes: [UInt8]
        let prefix: Int

        /// Parses `a.b.c.d/n`, `x:y::z/n`, or a single address (a range of one).
        ///
        /// - Throws: ``TransportError/invalidConfiguration(_:)`` naming the text and what is wrong.
        public init(parsing text: String) throws(TransportError) {
            let trimmed = text.trimmingSpaces
            let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = TrustedProxies.addressBytes(String(parts[0])) else {
                throw .invalidConfiguration(
                    "trusted proxy '\(text)' is not an IPv4 or IPv6 address or CIDR range "
                        + "(for example 10.0.0.0/8, 127.0.0.1 or fd00::/8)")
            }
            let width = bytes.count * 8
            var prefix = width
            if parts.count == 2 {
                guard let n = Int(parts[1]), (0...width).contains(n), parts[1].allSatisfy(\.isNumber) else {
                    throw .invalidConfiguration(
                        "trusted proxy '\(text)' has a prefix length that is not a number from 0 to \(width)")
                }
                prefix = n
            }
            self.bytes = TrustedProxies.masked(bytes, prefix: prefix)
            self.prefix = prefix
        }

        /// Whether the address (as bytes) lies in the range.
        func contains(_ address: [UInt8]) -> Bool {
            address.count == bytes.count && TrustedProxies.masked(address, prefix: prefix) == bytes
        }

        public var description: String {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            _ = bytes.withUnsafeBytes {
                inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &text, socklen_t(text.count))
            }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/\(prefix)"
        }
    }

    /// The trusted ranges; empty trusts no one (the header is always ignored).
    public let ranges: [Range]

    /// Trusts no proxy.
    public init() { ranges = [] }

    /// Parses each of `cidrs` (``Range/init(parsing:)``).
    ///
    /// - Throws: ``TransportError/invalidConfiguration(_:)`` for the first one that does not parse.
    public init(parsing cidrs: [String]) throws(TransportError) {
        var ranges: [Range] = []
        for text in cidrs { ranges.append(try Range(parsing: text)) }
        self.ranges = ranges
    }

    /// Whether any proxy is trusted.
    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (text, as the transport writes peers) lies in a trusted range.
    public func trusts(_ address: String) -> Bool {
        guard !ranges.isEmpty, let bytes = Self.addressBytes(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client's address for a request from `peer` carrying `forwardedFor` (the
    /// `X-Forwarded-For` header, repeated headers joined by commas): `peer` itself unless it is
    /// trusted; else, walking the header from its right end, the first hop that is not trusted.
    /// A hop that is not an address ends the walk at the trusted hop right of it (the proxy that
    /// wrote it did not give an address, so nothing left of it can be believed); a header made only
    /// of trusted hops gives its left-most one.
    public func clientAddress(peer: String, forwardedFor: String?) -> String {
        guard trusts(peer), let forwardedFor else { return peer }
        var client = peer
        for hop in forwardedFor.split(separator: ",").reversed() {
            let text = Self.hopAddress(hop.trimmingSpaces)
            guard let bytes = Self.addressBytes(text) else { return client }
            client = Self.canonical(bytes) ?? text
            if !ranges.contains(where: { $0.contains(bytes) }) { return client }
        }
        return client
    }

    /// A hop of `X-Forwarded-For` without the port or brackets some proxies add
    /// (`[2001:db8::1]:4711`, `192.0.2.1:4711`).
    static func hopAddress(_ hop: String) -> String {
        if hop.hasPrefix("["), let end = hop.firstIndex(of: "]") {
            return String(hop[hop.index(after: hop.startIndex)..<end])
        }
        if hop.filter({ $0 == ":" }).count == 1, let colon = hop.firstIndex(of: ":") {
            return String(hop[..<colon])
        }
        return hop
    }

    /// The address in the transport's own spelling (`inet_ntop`; an IPv4-mapped IPv6 address as IPv4).
    static func canonical(_ bytes: [UInt8]) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = bytes.withUnsafeBytes {
            inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) != nil
        }
        guard ok else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The 4 or 16 bytes of an address in text; an IPv4-mapped IPv6 address gives its IPv4 bytes.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return Array(bytes[12..<16])
        }
        return bytes
    }

    /// `bytes` with every bit past the first `prefix` cleared.
    static func masked(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        var out = bytes
        for i in 0..<out.count {
            let bitsHere = max(0, min(8, prefix - i * 8))
            out[i] &= bitsHere == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsHere))
        }
        return out
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
