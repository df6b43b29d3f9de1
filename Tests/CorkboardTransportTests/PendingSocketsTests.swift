import Testing

@testable import CorkboardTransport

/// A service thread's cap on sockets that are not WebSockets yet, from every address together
/// (issue 39): past it the oldest is evicted, whatever its address.
@Suite struct PendingSocketsTests {
    @Test func aNewSocketOverTheCapEvictsTheOldestStillPending() {
        var pending = PendingSockets<Int>(cap: 3)
        #expect(pending.add(1).isEmpty)
        #expect(pending.add(2).isEmpty)
        #expect(pending.add(3).isEmpty)
        #expect(pending.add(4) == [1], "the oldest goes first")
        // 2 became a WebSocket: no longer pending, never evicted.
        pending.remove(2)
        #expect(pending.add(5).isEmpty, "room was made by the upgrade")
        #expect(pending.add(6) == [3])
        #expect(pending.count == 3)
        #expect(!pending.contains(3) && pending.contains(6))
    }

    @Test func aReusedKeyIsANewSocket() {
        var pending = PendingSockets<Int>(cap: 2)
        _ = pending.add(1)
        pending.remove(1)
        _ = pending.add(2)
        _ = pending.add(1)  // the same key names a later socket: it is the newest now
        #expect(pending.add(3) == [2])
        #expect(pending.add(4) == [1])
    }

    @Test func withoutACapNothingIsEvictedAndStaleEntriesDoNotPileUp() {
        var unlimited = PendingSockets<Int>(cap: 0)
        for n in 0..<5000 { #expect(unlimited.add(n).isEmpty) }
        #expect(unlimited.count == 5000)
        var capped = PendingSockets<Int>(cap: 10)
        for n in 0..<100_000 {
            #expect(capped.add(n).isEmpty)
            capped.remove(n)
        }
        #expect(capped.count == 0)
        for n in 0..<10 { _ = capped.add(n) }
        #expect(capped.add(10) == [0])
    }
}
