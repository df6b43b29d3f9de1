import Testing

@testable import CorkboardTransport

/// The caps as a value: pending sockets per address, WebSockets per address and in all.
@Suite struct ConnectionLimitsTests {
    @Test func pendingSocketsPerAddressAreCapped() {
        var limits = ConnectionLimits(maxWebSockets: 0, maxWebSocketsPerAddress: 0, maxPendingPerAddress: 2)
        let admitted = ["10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2"].map { limits.admitSocket(from: $0) }
        #expect(admitted == [true, true, false, true], "another address has its own count")
        limits.closed(address: "10.0.0.1", wasWebSocket: false)
        let again = limits.admitSocket(from: "10.0.0.1")
        #expect(again)
        #expect(limits.refused == 1)
    }

    @Test func anUpgradeMovesASocketFromPendingToWebSockets() {
        var limits = ConnectionLimits(maxWebSockets: 3, maxWebSocketsPerAddress: 2, maxPendingPerAddress: 1)
        var outcomes: [ConnectionLimits.Refusal?] = []
        for address in ["a", "a", "a", "b", "c"] {
            // Pending cap 1: each socket must upgrade before the next from its address fits.
            #expect(limits.admitSocket(from: address) || outcomes.last != nil)
            outcomes.append(limits.admitUpgrade(from: address, client: address))
        }
        #expect(outcomes == [nil, nil, .addressFull(limit: 2), nil, .serverFull(limit: 3)])
        #expect(limits.counts(for: "a") == (1, 2), "the refused socket stays pending")
        #expect(limits.refused == 2)
        limits.closed(address: "a", wasWebSocket: true)
        let retried = limits.admitUpgrade(from: "c", client: "c")
        #expect(retried == nil)
        for (address, ws) in [("a", true), ("a", false), ("b", true), ("c", true)] {
            limits.closed(address: address, wasWebSocket: ws)
        }
        #expect(limits.webSockets == 0)
        #expect(limits.addressCount == 0, "nothing is remembered of an address with no socket")
    }

    @Test func behindAProxyPendingCountsForThePeerAndWebSocketsForTheClient() {
        var limits = ConnectionLimits(maxWebSockets: 0, maxWebSocketsPerAddress: 1, maxPendingPerAddress: 0)
        let admitted = (0..<3).map { _ in limits.admitSocket(from: "proxy") }
        #expect(admitted == [true, true, true])
        let upgrades = ["10.0.0.1", "10.0.0.2", "10.0.0.1"].map { limits.admitUpgrade(from: "proxy", client: $0) }
        #expect(upgrades == [nil, nil, .addressFull(limit: 1)], "each client behind the proxy has its own count")
        #expect(limits.counts(for: "proxy") == (1, 0))
        #expect(limits.counts(for: "10.0.0.1") == (0, 1))
        limits.closed(address: "10.0.0.1", wasWebSocket: true)
        limits.closed(address: "10.0.0.2", wasWebSocket: true)
        limits.closed(address: "proxy", wasWebSocket: false)
        #expect(limits.addressCount == 0)
    }
}

// The caps over real sockets (503 with Retry-After, closes at accept, counts back to zero, the echo
// path, 431/414) are tested on both event loops against `corkboard serve` in its own process by
// Tests/python/test_abuse.py. In this process they raced libwebsockets 4.1.6's closes on the libuv
// loop against the other suites' client contexts (a socket closed twice by lws is a descriptor
// another context may already own: `insert_wsi` assertions and libuv aborts), a pre-existing hazard
// that many refused upgrades made frequent.
