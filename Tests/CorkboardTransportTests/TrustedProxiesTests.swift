import Testing

@testable import CorkboardTransport

/// `--trusted-proxy`: CIDR ranges, and the client's address read from `X-Forwarded-For` only for a
/// trusted peer (the right-most hop that is not itself trusted) (issue 39).
@Suite struct TrustedProxiesTests {
    @Test func rangesOfBothFamiliesContainWhatTheySay() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8", "192.168.1.7", " fd00::/8 ", "127.0.0.1/32"])
        #expect(proxies.trusts("10.200.3.4"))
        #expect(!proxies.trusts("11.0.0.1"))
        #expect(proxies.trusts("192.168.1.7") && !proxies.trusts("192.168.1.8"))
        #expect(proxies.trusts("fd12::1") && !proxies.trusts("fe80::1"))
        #expect(proxies.trusts("::ffff:127.0.0.1"), "an IPv4-mapped address is its IPv4 address")
        #expect(!proxies.trusts("not an address"))
        #expect(!TrustedProxies().trusts("127.0.0.1"), "no proxy is trusted by default")
        #expect(try TrustedProxies(parsing: ["0.0.0.0/0"]).trusts("203.0.113.9"))
        #expect(try TrustedProxies.Range(parsing: "10.1.2.3/8").description == "10.0.0.0/8")
    }

    @Test(arguments: [
        ("10.0.0.0/33", "prefix length that is not a number from 0 to 32"),
        ("10.0.0.0/", "prefix length that is not a number from 0 to 32"),
        ("10.0.0.0/+8", "prefix length that is not a number from 0 to 32"),
        ("fd00::/129", "prefix length that is not a number from 0 to 128"),
        ("10.0.0/8", "is not an IPv4 or IPv6 address or CIDR range"),
        ("proxy.example", "is not an IPv4 or IPv6 address or CIDR range"),
        ("", "is not an IPv4 or IPv6 address or CIDR range"),
    ])
    func aBadRangeIsAClearError(text: String, says: String) {
        let error = #expect(throws: TransportError.self) { try TrustedProxies(parsing: ["127.0.0.1", text]) }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.message.contains(says) == true && error?.message.contains("'\(text)'") == true)
    }

    @Test func theClientIsTheRightMostHopThatIsNotTrusted() throws {
        let proxies = try TrustedProxies(parsing: ["127.0.0.1", "10.0.0.0/8"])
        // nginx appended the client it heard from; what the client claimed stays on the left.
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "203.0.113.5") == "203.0.113.5")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "1.2.3.4, 203.0.113.5") == "203.0.113.5")
        // Through two trusted proxies.
        #expect(
            proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "1.2.3.4, 198.51.100.2, 10.1.1.1") == "198.51.100.2")
        // An untrusted peer's header is ignored, whatever it says.
        #expect(proxies.clientAddress(peer: "198.51.100.9", forwardedFor: "10.0.0.1") == "198.51.100.9")
        // No header: the proxy itself; a header of trusted hops only: its left-most.
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: nil) == "127.0.0.1")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "10.0.0.5, 10.0.0.6") == "10.0.0.5")
        // A hop that is not an address ends the walk at the trusted hop right of it.
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "203.0.113.5, unknown") == "127.0.0.1")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "junk, 10.0.0.7") == "10.0.0.7")
        // Ports and brackets some proxies add; addresses in the transport's own spelling.
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "[2001:DB8::1]:4711") == "2001:db8::1")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "192.0.2.1:4711") == "192.0.2.1")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: "::ffff:192.0.2.2") == "192.0.2.2")
    }
}
