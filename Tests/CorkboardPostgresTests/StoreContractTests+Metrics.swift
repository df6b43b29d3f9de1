import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import MetricsTestKit
import Synchronization
import Testing

extension StoreContractTests {
    /// Both stores record `StoreMetrics` with the same meaning (issue 19): one commit sample per
    /// committed transaction, the operations and room batches it wrote, one sample per snapshot
    /// written; appends refused before the write record nothing.
    @Suite("metrics")
    struct Metrics {
        @Test("commits, batch sizes and snapshots are recorded as committed", arguments: StoreKind.running)
        func recordsWhatWasCommitted(kind: StoreKind) async throws {
            let metrics = TestMetrics()
            try await kind.withStore(metrics: StoreMetrics(factory: metrics), started: ["b"]) {
                (store, _) async throws in
                store.drain()
                // 30 appends of 1 to 3 operations, queued at once: group commit puts several in a transaction.
                var seq = 0
                var appended = 0
                let failures = Mutex(0)
                for n in 0..<30 {
                    let operations = (1...(n % 3 + 1)).map { _ in
                        seq += 1
                        return placeholderCommit(seq)
                    }
                    appended += operations.count
                    store.append(board: "b", operations: operations) { error in
                        if error != nil { failures.withLock { $0 += 1 } }
                    }
                }
                store.drain()
                #expect(failures.withLock { $0 } == 0)
                let commits = try metrics.expectTimer(StoreMetrics.Name.commit).values
                let batchOperations = try metrics.expectRecorder(StoreMetrics.Name.batchOperations).values
                let batchAppends = try metrics.expectRecorder(StoreMetrics.Name.batchAppends).values
                #expect((1...30).contains(commits.count))
                #expect(batchOperations.count == commits.count && batchAppends.count == commits.count)
                #expect(Int(batchOperations.reduce(0, +)) == appended, "every committed operation, once")
                #expect(Int(batchAppends.reduce(0, +)) == 30, "every room batch, once")
                #expect(commits.allSatisfy { $0 > 0 })
                #expect(try metrics.expectTimer(StoreMetrics.Name.snapshot).values.count == 1)
                // An append that does not follow the stored log is refused before any write: nothing recorded.
                #expect(appendAndWait(store, board: "b", [placeholderCommit(seq + 2)]) != nil)
                #expect(try metrics.expectTimer(StoreMetrics.Name.commit).values.count == commits.count)
                #expect(try metrics.expectRecorder(StoreMetrics.Name.batchOperations).values.count == commits.count)
            }
        }
    }
}
