import Testing

@testable import CorkboardTransport

/// A service thread's cap on sockets that are not WebSockets yet, from every address together
/// (issue 39): past it the oldest is evicted, whatever its address.
@Suite struct PendingSocketsTests {
    @Test func aNewSocketOverTheCapEvictsTheOldestStillPending() {
        var pending = PendingSockets<Int>(cap: 3)
        let first = [1, 2, 3, 4].map { pending.add($0) }
        #expect(first == [[], [], [], [1]], "the oldest goes first")
        // 2 became a WebSocket: no longer pending, never evicted.
        pending.remove(2)
        let afterUpgrade = pending.add(5)
        #expect(afterUpgrade.isEmpty, "room was made by the upgrade")
        let next = pending.add(6)
        #expect(next == [3])
        #expect(pending.count == 3)
        #expect(!pending.contains(3) && pending.contains(6))
    }

    @Test func aReusedKeyIsANewSocket() {
        var pending = PendingSockets<Int>(cap: 2)
        _ = pending.add(1)
        pending.remove(1)
        _ = pending.add(2)
        _ = pending.add(1)  // the same key names a later socket: it is the newest now
        let evicted = [3, 4].map { pending.add($0) }
        #expect(evicted == [[2], [1]])
    }

    @Test func withoutACapNothingIsEvictedAndStaleEntriesDoNotPileUp() {
        var unlimited = PendingSockets<Int>(cap: 0)
        let none = (0..<5000).flatMap { unlimited.add($0) }
        #expect(none.isEmpty)
        #expect(unlimited.count == 5000)
        var capped = PendingSockets<Int>(cap: 10)
        var evicted: [Int] = []
        for n in 0..<100_000 {
            evicted += capped.add(n)
            capped.remove(n)
        }
        #expect(evicted.isEmpty && capped.count == 0)
        for n in 0..<10 { _ = capped.add(n) }
        let oldest = capped.add(10)
        #expect(oldest == [0])
    }
}
