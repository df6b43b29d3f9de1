import Testing

@testable import CorkboardTransport

/// The keepalive's bookkeeping (`Keepalive`) in whole sweeps; the same over real sockets in
/// `LifecycleTests`.
@Suite struct KeepaliveTests {
    static let a = ConnectionID(rawValue: 1)
    static let b = ConnectionID(rawValue: 2)

    @Test func aSilentConnectionIsPingedOnceThenHungUp() {
        var keepalive = Keepalive(pingInterval: .seconds(2), hangupAfter: .seconds(4))
        keepalive.add(Self.a)
        // Added just after sweep 0: two whole seconds of silence only after sweep 3.
        #expect(keepalive.sweep() == .init())
        #expect(keepalive.sweep() == .init())
        #expect(keepalive.sweep() == .init(ping: [Self.a]))
        #expect(keepalive.sweep() == .init(), "pinged once, not at every sweep")
        #expect(keepalive.sweep() == .init(hangUp: [Self.a]))
        #expect(keepalive.isEmpty, "a connection hung up is no longer followed")
        #expect(keepalive.sweep() == .init())
    }

    @Test func anyFrameFromThePeerRestartsTheCount() {
        var keepalive = Keepalive(pingInterval: .seconds(2), hangupAfter: .seconds(4))
        keepalive.add(Self.a)
        keepalive.add(Self.b)
        for _ in 0..<10 {
            keepalive.heard(Self.a)
            #expect(!keepalive.sweep().ping.contains(Self.a))
        }
        // b said nothing for ten sweeps: pinged at the third, hung up at the fifth.
        #expect(keepalive.count == 1)
        #expect(keepalive.sweep() == .init())
        #expect(keepalive.sweep() == .init(ping: [Self.a]), "a's last frame came three sweeps ago")
        keepalive.heard(Self.a)  // the pong
        #expect(keepalive.sweep() == .init())
        #expect(keepalive.sweep() == .init())
        #expect(keepalive.sweep() == .init(ping: [Self.a]), "pinged again after another quiet interval")
    }

    @Test func closedConnectionsAreForgotten() {
        var keepalive = Keepalive(pingInterval: .seconds(1), hangupAfter: .seconds(2))
        keepalive.add(Self.a)
        keepalive.remove(Self.a)
        keepalive.heard(Self.a)
        #expect(keepalive.isEmpty)
        #expect(keepalive.sweep() == .init())
    }

    @Test func intervalsRoundUpToWholeSecondsAndTheHangupFollowsThePing() {
        let odd = Keepalive(pingInterval: .milliseconds(1500), hangupAfter: .seconds(1))
        #expect(odd.pingAfter == 2)
        #expect(odd.hangupAfter == 3)
        let zero = Keepalive(pingInterval: .zero, hangupAfter: .zero)
        #expect(zero.pingAfter == 1 && zero.hangupAfter == 2)
    }
}
