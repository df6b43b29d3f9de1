import CorkboardModel
import CorkboardStorage
import CorkboardTesting
import Synchronization
import Testing

/// The writer both stores drive, over a scripted backend (no database): what goes into each
/// transaction, what each completion learns, and how failures come and go. The stores' own
/// transactions are tested by the `BoardStore` contract on SQLite and PostgreSQL.
@Suite("Group-commit writer")
struct GroupCommitWriterTests {
    /// A backend that keeps the stored seqs in memory and records each transaction.
    final class ScriptedBackend: GroupCommitBackend {
        struct State {
            /// The last stored seq per board.
            var stored: [String: Int] = [:]
            /// Every transaction that committed: its appends' boards and first seqs ("b1").
            var transactions: [[String]] = []
            /// Boards whose stored seq was read from the "database".
            var reads: [String] = []
            /// Boards whose appends the transaction refuses (as a fenced epoch).
            var refused: Set<String> = []
            /// Seqs whose operations do not encode.
            var unencodable: Set<Int> = []
            /// The error the next transaction fails with.
            var failNext: StoreError?
            /// What the next snapshots end with (`written` once the list is empty).
            var snapshots: [SnapshotOutcome] = []
            /// The error probes fail with.
            var probeFails: StoreError?
        }

        let state = Mutex(State())

        func storedSeq(of board: String) throws(StoreError) -> Int {
            state.withLock { state in
                state.reads.append(board)
                return state.stored[board] ?? 0
            }
        }

        func encode(_ parts: [BoardAppend]) throws(StoreError) -> [String] {
            let unencodable = state.withLock { $0.unencodable }
            if let bad = parts.flatMap(\.operations).first(where: { unencodable.contains($0.seq) }) {
                throw StoreError(.invalidData, "Operation \(bad.seq) cannot be encoded.")
            }
            return parts.map { "\($0.board)\($0.operations.first?.seq ?? 0)" }
        }

        func write(_ round: inout GroupCommitTransaction<[String]>) throws(StoreError) {
            let refused = state.withLock { $0.refused }
            for entry in round.entries where entry.parts.contains(where: { refused.contains($0.board) }) {
                round.refuse(entry.id, StoreError(.fenced, "refused by the script"))
            }
            let admitted = round.admit()
            try state.withLock { state throws(StoreError) in
                if let error = state.failNext {
                    state.failNext = nil
                    throw error
                }
                for part in admitted.flatMap(\.parts) {
                    if let last = part.operations.last?.seq { state.stored[part.board] = last }
                }
                state.transactions.append(admitted.flatMap(\.rows))
            }
        }

        func writeSnapshot(_ write: SnapshotWrite) -> SnapshotOutcome {
            state.withLock { state in
                let outcome = state.snapshots.isEmpty ? .written : state.snapshots.removeFirst()
                if case .written = outcome {
                    state.stored[write.board] = max(state.stored[write.board] ?? 0, write.snapshot.seq)
                    state.transactions.append(["snapshot \(write.board)"])
                }
                return outcome
            }
        }

        func probe() throws(StoreError) {
            if let error = state.withLock({ $0.probeFails }) { throw error }
        }
    }

    /// A writer over a fresh scripted backend.
    static func writer(commitGather: Duration = .zero) -> GroupCommitWriter<ScriptedBackend> {
        GroupCommitWriter(
            backend: ScriptedBackend(), label: "test.writer", metrics: .system, commitGather: commitGather)
    }

    /// Queues `appends` behind a held writer, releases it, and returns each append's outcome in
    /// the order the completions ran: `"b1 ok"` or `"b1 <kind>"`.
    static func round(_ writer: GroupCommitWriter<ScriptedBackend>, _ appends: [[BoardAppend]]) -> [String] {
        let release = holdWriter(appending: writer.append)
        let outcomes = Mutex<[String]>([])
        for parts in appends {
            writer.append(
                parts.map { part in
                    var part = part
                    let name = "\(part.board)\(part.operations.first?.seq ?? 0)"
                    part.completion = { error in
                        outcomes.withLock { $0.append("\(name) \(error?.kind.rawValue ?? "ok")") }
                    }
                    return part
                })
        }
        release()
        writer.drain()
        return outcomes.withLock { $0 }
    }

    @Test("appends queued while a transaction commits share the next one; completions run in queue order")
    func groupsAndOrders() {
        let writer = Self.writer()
        let outcomes = Self.round(
            writer,
            [
                [placeholderPart("a", [1])], [placeholderPart("b", [1, 2])], [placeholderPart("a", [2])],
                [placeholderPart("c", [1]), placeholderPart("a", [3])],
            ])
        #expect(outcomes == ["a1 ok", "b1 ok", "a2 ok", "c1 ok", "a3 ok"])
        #expect(writer.backend.state.withLock { $0.transactions } == [["a1", "b1", "a2", "c1", "a3"]])
        #expect(writer.lastFailure == nil)
    }

    @Test("a snapshot is written between the appends queued before it and those queued after it")
    func snapshotsKeepQueueOrder() {
        let writer = Self.writer()
        let release = holdWriter(appending: writer.append)
        writer.append([placeholderPart("a", [1])])
        writer.saveSnapshot(SnapshotWrite(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0))
        writer.append([placeholderPart("b", [1])])
        writer.append([placeholderPart("a", [2])])
        release()
        writer.drain()
        #expect(writer.backend.state.withLock { $0.transactions } == [["a1"], ["snapshot b"], ["b1", "a2"]])
    }

    @Test("an append that does not continue its board's log fails alone, before the transaction; the rest commit")
    func contiguity() {
        let writer = Self.writer()
        writer.backend.state.withLock { $0.stored = ["a": 4] }
        let outcomes = Self.round(
            writer,
            [
                [placeholderPart("a", [5])], [placeholderPart("a", [7])],
                [placeholderPart("b", [1]), placeholderPart("a", [5])],
                [placeholderPart("a", [6])],
            ])
        #expect(outcomes == ["a5 ok", "a7 io", "b1 io", "a5 io", "a6 ok"], "a move's parts fail together")
        #expect(writer.backend.state.withLock { $0.transactions } == [["a5", "a6"]])
        #expect(writer.backend.state.withLock { $0.stored } == ["a": 6])
        #expect(writer.lastFailure == nil, "a refusal is not a database failure")
    }

    @Test("the stored seq is read once, then known; an append that does not follow it reads it again")
    func storedSeqIsKnown() {
        let writer = Self.writer()
        #expect(Self.round(writer, [[placeholderPart("a", [1])], [placeholderPart("a", [2])]]) == ["a1 ok", "a2 ok"])
        #expect(Self.round(writer, [[placeholderPart("a", [3])]]) == ["a3 ok"])
        #expect(writer.backend.state.withLock { $0.reads } == ["a"])
        // Someone else wrote seqs 4 and 5 (another node held the board meanwhile).
        writer.backend.state.withLock { $0.stored["a"] = 5 }
        #expect(Self.round(writer, [[placeholderPart("a", [6])]]) == ["a6 ok"])
        #expect(writer.backend.state.withLock { $0.reads } == ["a", "a"], "seq 5 was not the known 3: read again")
        #expect(Self.round(writer, [[placeholderPart("a", [6])]]) == ["a6 io"], "a repeat: the database is ahead")
        #expect(writer.backend.state.withLock { $0.reads.count } == 3)
        writer.forgetStoredSeq(of: "a")
        #expect(Self.round(writer, [[placeholderPart("a", [7])]]) == ["a7 ok"])
        #expect(writer.backend.state.withLock { $0.reads.count } == 4, "a forgotten seq is read again")
    }

    @Test("an append whose fenced epoch is behind the stored seq fails fenced, not io")
    func aheadUnderAnEpochIsFenced() {
        let writer = Self.writer()
        writer.backend.state.withLock { $0.stored = ["a": 3] }
        let outcomes = Self.round(
            writer, [[placeholderPart("a", [2], epoch: 1)], [placeholderPart("a", [9], epoch: 1)]])
        #expect(outcomes == ["a2 fenced", "a9 io"])
    }

    @Test("an append refused inside the transaction takes the appends behind it on its boards along; others commit")
    func refusalInsideTheTransaction() {
        let writer = Self.writer()
        writer.backend.state.withLock { $0.refused = ["x"] }
        let outcomes = Self.round(
            writer,
            [
                [placeholderPart("a", [1])], [placeholderPart("x", [1]), placeholderPart("b", [1])],
                [placeholderPart("b", [2])], [placeholderPart("c", [1])],
            ])
        #expect(outcomes == ["a1 ok", "x1 fenced", "b1 fenced", "b2 io", "c1 ok"])
        #expect(writer.backend.state.withLock { $0.transactions } == [["a1", "c1"]])
        // Their boards are read again before their next append.
        let reads = writer.backend.state.withLock { $0.reads.count }
        #expect(Self.round(writer, [[placeholderPart("b", [1])]]) == ["b1 ok"])
        #expect(writer.backend.state.withLock { $0.reads.count } == reads + 1)
    }

    @Test("an append that does not encode fails alone, with an append behind it on its board")
    func encodingFailure() {
        let writer = Self.writer()
        writer.backend.state.withLock { $0.unencodable = [2] }
        let outcomes = Self.round(
            writer,
            [
                [placeholderPart("a", [1])], [placeholderPart("a", [2])], [placeholderPart("a", [3])],
                [placeholderPart("b", [1])],
            ])
        #expect(outcomes == ["a1 ok", "a2 invalid-data", "a3 io", "b1 ok"])
        #expect(writer.lastFailure == nil)
    }

    @Test("a transaction that fails fails every append in it and sets lastFailure until one commits")
    func failedTransaction() {
        let writer = Self.writer()
        let failure = StoreError(.full, "the disk is full")
        writer.backend.state.withLock {
            $0.failNext = failure
            $0.refused = ["x"]
        }
        let outcomes = Self.round(
            writer, [[placeholderPart("a", [1])], [placeholderPart("x", [1])], [placeholderPart("b", [1], epoch: 2)]])
        #expect(outcomes == ["a1 full", "x1 full", "b1 full"], "the transaction's error, not its refusals")
        #expect(writer.lastFailure == failure)
        #expect(writer.backend.state.withLock { $0.stored }.isEmpty)
        // An empty append writes nothing, so it neither fails nor clears the failure.
        #expect(Self.round(writer, [[BoardAppend(board: "a", operations: []) { _ in }]]) == ["a0 ok"])
        #expect(writer.lastFailure == failure)
        #expect(Self.round(writer, [[placeholderPart("a", [1])]]) == ["a1 ok"])
        #expect(writer.lastFailure == nil)
    }

    @Test("a snapshot sets or clears lastFailure like a transaction of appends; a fenced one leaves it")
    func snapshotOutcomes() {
        let writer = Self.writer()
        let failure = StoreError(.readOnly, "the file cannot be written")
        writer.backend.state.withLock { $0.snapshots = [.failed(failure), .fenced, .written] }
        let snapshot = SnapshotWrite(board: "b", snapshot: Snapshot(seq: 0, board: Board()), retainingLog: 0)
        // Failed, then fenced (not a database failure, and not a success either), then written.
        for (round, expected) in [failure, failure, nil].enumerated() {
            writer.saveSnapshot(snapshot)
            writer.drain()
            #expect(writer.lastFailure == expected, "snapshot \(round)")
        }
    }

    @Test("probeWhileFailing clears lastFailure once the backend's probe succeeds; it does nothing while healthy")
    func probe() {
        let writer = Self.writer()
        let failure = StoreError(.io, "unreachable")
        writer.backend.state.withLock { ($0.failNext, $0.probeFails) = (failure, failure) }
        #expect(Self.round(writer, [[placeholderPart("a", [1])]]) == ["a1 io"])
        writer.probeWhileFailing()
        writer.drain()
        #expect(writer.lastFailure == failure)
        writer.backend.state.withLock { $0.probeFails = StoreError(.io, "still unreachable") }
        writer.probeWhileFailing()
        writer.drain()
        #expect(writer.lastFailure?.message == "still unreachable", "the probe's own error")
        writer.backend.state.withLock { $0.probeFails = nil }
        writer.probeWhileFailing()
        writer.drain()
        #expect(writer.lastFailure == nil)
        #expect(writer.backend.state.withLock { $0.transactions }.isEmpty, "a probe is not an append")
    }

    @Test("after a round with appends of several boards, the writer waits commitGather before the next")
    func gathersForSeveralBoards() {
        let gather = Duration.milliseconds(300)
        let writer = Self.writer(commitGather: gather)
        let started = ContinuousClock.now
        #expect(Self.round(writer, [[placeholderPart("a", [1])], [placeholderPart("b", [1])]]) == ["a1 ok", "b1 ok"])
        #expect(ContinuousClock.now - started >= gather, "drain returns once the writer waited out the gathering")
    }

    @Test("sync runs on the writer after the writes queued before it, and passes its error through")
    func sync() throws {
        let writer = Self.writer()
        writer.append([placeholderPart("a", [1])])
        let stored = writer.sync { writer.backend.state.withLock { $0.stored["a"] } }
        #expect(stored == 1)
        #expect(throws: StoreError.self) {
            _ = try writer.sync { () throws(StoreError) -> Int in throw StoreError(.io, "no") }
        }
    }
}
