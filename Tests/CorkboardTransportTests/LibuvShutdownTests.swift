import CorkboardTesting
import CorkboardTransport
import Foundation
import Synchronization
import Testing

/// libwebsockets 4.1.6 closes its cancel pipe twice when a context on libuv is destroyed: once in
/// `lws_context_destroy` and again from the loop's close callback. In between, any thread of the
/// process may be given that descriptor number, and the second close would close it under its
/// owner. `clws_uv_destroy_context` holds the number with a placeholder in between.
@Suite(.timeLimit(.minutes(1))) struct LibuvShutdownTests {
    /// What the descriptor-opening thread saw.
    final class Witness: Sendable {
        let stop = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        let rounds = Atomic<Int>(0)
        let broken = Atomic<Int>(0)
    }

    @Test func stoppingLibuvServersNeverClosesAnotherThreadsDescriptor() async throws {
        let witness = Witness()
        // Opens pipes one after another, 32 at a time, so that it takes every low free number
        // (the number lws frees among them), then checks each still carries its own byte.
        Thread.detachNewThread {
            var held: [(read: Int32, write: Int32)] = []
            func check() {
                for ends in held {
                    var byte: UInt8 = 0
                    if Glibc.read(ends.read, &byte, 1) != 1 || byte != 0x2A {
                        witness.broken.add(1, ordering: .relaxed)
                    }
                    close(ends.read)
                    close(ends.write)
                }
                held.removeAll()
                witness.rounds.add(1, ordering: .relaxed)
            }
            while !witness.stop.load(ordering: .acquiring) {
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { continue }
                var byte: UInt8 = 0x2A
                if write(ends[1], &byte, 1) != 1 { witness.broken.add(1, ordering: .relaxed) }
                held.append((ends[0], ends[1]))
                if held.count == 32 { check() }
                sched_yield()
            }
            check()
            witness.finished.store(true, ordering: .releasing)
        }
        for _ in 0..<40 {
            let h = try ServerHarness {
                $0.eventLoop = .libuv
                $0.threads = 2
            }
            await h.server.shutdown()
        }
        witness.stop.store(true, ordering: .releasing)
        #expect(await eventually { witness.finished.load(ordering: .acquiring) })
        #expect(witness.rounds.load(ordering: .relaxed) > 0)
        #expect(witness.broken.load(ordering: .relaxed) == 0, "a descriptor was closed under its owner")
    }
}
