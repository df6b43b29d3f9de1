import CorkboardModel
import Dispatch
import Foundation
import Synchronization

/// The writer both stores drive: one thread that writes every append and snapshot in the order
/// they were queued, putting every append queued while the previous transaction committed into
/// the next transaction (group commit), so one commit (one fsync, one WAL flush) serves many
/// operations of many boards.
///
/// Its ``backend`` supplies the transactions (SQLite's, PostgreSQL's); the writer decides what goes
/// into them and what each append's completion learns:
/// - **Order.** Consecutive appends share a transaction; a snapshot is written after the appends
///   queued before it and before those queued after it (a new board's seq-0 snapshot is durable
///   before its first operation is reported durable). Completions run on the writer's thread in
///   the order of the appends (and of the parts within one).
/// - **All or nothing.** The parts of one append commit together or fail together (a move between
///   boards, R14).
/// - **No gaps.** An append whose parts do not continue their boards' stored seqs (one was
///   sequenced after a write that failed, or the database is ahead of the room's copy) fails alone
///   and writes nothing; the others of its round commit. The writer keeps each board's last stored
///   seq and reads it from the database when it does not know it or an append does not follow it.
/// - **Failures.** A transaction that fails fails every append in it; ``lastFailure`` holds its
///   error until a transaction commits, and ``probeWhileFailing()`` tries a harmless write
///   meanwhile. A fenced append or snapshot (a shared store: another node holds the board) is not
///   a database failure.
///
/// Every transaction of operations that commits is timed into `StoreMetrics`, as is every snapshot.
public final class GroupCommitWriter<Backend: GroupCommitBackend>: Sendable {
    /// The store's side: its transactions and reads.
    public let backend: Backend
    private let metrics: StoreMetrics
    private let commitGather: Duration
    private let queue: DispatchQueue
    private let jobs = Mutex(Jobs())
    private let failure = Mutex<StoreError?>(nil)
    /// The last stored seq per board, as the writer knows it.
    private let storedSeqs = Mutex<[String: Int]>([:])

    private struct Jobs {
        var pending: [Job] = []
        var draining = false
        /// When a round last had appends of two boards or more (for `commitGather`).
        var severalBoardsAt: ContinuousClock.Instant?
    }

    private enum Job {
        /// Parts that commit together or not at all.
        case append([BoardAppend])
        case snapshot(SnapshotWrite)
    }

    /// How long after a round with appends of several boards the writer keeps gathering.
    public static var gatherWindow: Duration { .milliseconds(100) }

    /// A writer over a store's transactions; its thread starts with the first write.
    ///
    /// - Parameters:
    ///   - backend: The store's transactions.
    ///   - label: The writer's dispatch queue, as it shows in a debugger.
    ///   - metrics: Where it times its transactions (`corkboard_store_…`).
    ///   - commitGather: How long the writer waits after a transaction of operations before it
    ///     takes the next round, while appends of several boards keep coming (a round had two of
    ///     them within ``gatherWindow``): rounds grow and commits fall, and an acknowledgement
    ///     waits at most this much longer. One busy board alone never makes it wait: its room
    ///     already hands over everything it committed meanwhile as one append. Zero never waits.
    public init(backend: Backend, label: String, metrics: StoreMetrics, commitGather: Duration = .zero) {
        self.backend = backend
        self.metrics = metrics
        self.commitGather = commitGather
        queue = DispatchQueue(label: label)
    }

    /// Queues an append (parts that commit together or not at all) and returns at once; see
    /// `BoardStore.append(atomically:)`.
    public func append(_ parts: [BoardAppend]) {
        enqueue(.append(parts))
    }

    /// Queues a snapshot and returns at once.
    public func saveSnapshot(_ snapshot: SnapshotWrite) {
        enqueue(.snapshot(snapshot))
    }

    /// Waits until every queued write has finished.
    public func drain() {
        queue.sync {}
        while jobs.withLock({ $0.draining || !$0.pending.isEmpty }) { queue.sync {} }
    }

    /// The last transaction's failure, or `nil` when it committed.
    public var lastFailure: StoreError? { failure.withLock { $0 } }

    /// While the last transaction failed, tries the backend's harmless write behind the queued
    /// writes, so the store reports healthy again (and `/healthz` recovers) as soon as it can write,
    /// without waiting for someone's next operation. Returns at once; does nothing while healthy.
    public func probeWhileFailing() {
        guard lastFailure != nil else { return }
        queue.async {
            guard self.lastFailure != nil, self.jobs.withLock({ !$0.draining }) else { return }
            var outcome: StoreError?
            do throws(StoreError) {
                try self.backend.probe()
            } catch {
                outcome = error
            }
            self.failure.withLock { $0 = outcome }
        }
    }

    /// Runs `body` on the writer's thread, after the writes queued before it, and returns its
    /// result: for a store's other writes (the board list, deleting a board).
    public func sync<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let result = queue.sync { Result<T, E> { () throws(E) -> T in try body() } }
        return try result.get()
    }

    /// Forgets a board's stored seq (the board was deleted, or loaded: someone else may have
    /// written it); the next append of the board reads it from the database.
    public func forgetStoredSeq(of board: String) {
        storedSeqs.withLock { $0[board] = nil }
    }

    // MARK: The writer's thread

    private func enqueue(_ job: Job) {
        let start = jobs.withLock { jobs -> Bool in
            jobs.pending.append(job)
            guard !jobs.draining else { return false }
            jobs.draining = true
            return true
        }
        if start { queue.async { self.writeQueuedJobs() } }
    }

    /// Writes everything queued, one transaction per round of appends, until nothing is queued.
    private func writeQueuedJobs() {
        while true {
            let batch = jobs.withLock { jobs -> [Job] in
                defer { jobs.pending.removeAll(keepingCapacity: true) }
                if jobs.pending.isEmpty { jobs.draining = false }
                return jobs.pending
            }
            if batch.isEmpty { return }
            var appends: [[BoardAppend]] = []
            var firstBoard: String?
            var severalBoards = false
            for job in batch {
                switch job {
                case .append(let parts):
                    appends.append(parts)
                    if let board = parts.first?.board {
                        if firstBoard == nil { firstBoard = board }
                        severalBoards = severalBoards || board != firstBoard
                    }
                case .snapshot(let snapshot):
                    if !appends.isEmpty { writeAppends(appends) }
                    appends.removeAll()
                    write(snapshot)
                }
            }
            if severalBoards { jobs.withLock { $0.severalBoardsAt = .now } }
            if !appends.isEmpty { writeAppends(appends) }
            if commitGather > .zero, firstBoard != nil, let seen = jobs.withLock({ $0.severalBoardsAt }),
                .now - seen < Self.gatherWindow
            {
                Thread.sleep(forTimeInterval: commitGather / .seconds(1))
            }
        }
    }

    /// Writes a round of appends in one transaction and runs their completions in order.
    private func writeAppends(_ appends: [[BoardAppend]]) {
        var refusals = contiguityRefusals(appends)
        let writing = appends.indices.filter { refusals[$0] == nil && appends[$0].contains(where: \.writes) }
        if !writing.isEmpty {
            let started = ContinuousClock.now
            var slots: [(parts: [BoardAppend], rows: Backend.Rows?)] = []
            slots.reserveCapacity(writing.count)
            for index in writing {
                do throws(StoreError) {
                    slots.append((appends[index], try backend.encode(appends[index])))
                } catch {
                    refusals[index] = error
                    slots.append((appends[index], nil))
                }
            }
            var transaction = GroupCommitTransaction(slots)
            var failed: StoreError?
            do throws(StoreError) {
                try backend.write(&transaction)
            } catch {
                failed = error
            }
            let written = transaction.admitted.map { writing[$0] }
            if let failed {
                // Nothing of the transaction was written: every append that went into it fails.
                for index in writing where refusals[index] == nil { refusals[index] = failed }
            } else {
                for (id, refusal) in transaction.refusals { refusals[writing[id]] = refusal }
                committed(written.map { appends[$0] }, elapsed: .now - started)
            }
            failure.withLock { $0 = failed }
            // The boards of appends it did not write are read again before their next append.
            let writtenSet = Set(written)
            let unwritten = writing.filter { !writtenSet.contains($0) }.flatMap { appends[$0].map(\.board) }
            if !unwritten.isEmpty { storedSeqs.withLock { for board in unwritten { $0[board] = nil } } }
        }
        // Completions run in append order (rooms rely on it to tell stale completions apart).
        for (parts, refusal) in zip(appends, refusals) {
            for part in parts { part.completion(refusal) }
        }
    }

    /// Notes what a committed transaction wrote: the boards' stored seqs, and its metrics.
    private func committed(_ written: [[BoardAppend]], elapsed: Duration) {
        storedSeqs.withLock { stored in
            for part in written.joined() {
                if let last = part.operations.last?.seq { stored[part.board] = last }
            }
        }
        let operations = written.joined().reduce(0) { $0 + $1.operations.count }
        if operations > 0 { metrics.recordCommit(operations: operations, appends: written.count, elapsed: elapsed) }
    }

    /// Per append, the error it fails with before any write, when its parts do not all continue
    /// their boards' stored seqs (after the appends before it in the round).
    private func contiguityRefusals(_ appends: [[BoardAppend]]) -> [StoreError?] {
        var refusals = [StoreError?](repeating: nil, count: appends.count)
        var next: [String: Int] = [:]
        for (index, parts) in appends.enumerated() {
            var partsNext = next
            for part in parts {
                guard let first = part.operations.first?.seq, let last = part.operations.last?.seq else { continue }
                var stored = 0
                if let known = partsNext[part.board] {
                    stored = known
                } else {
                    do throws(StoreError) {
                        stored = try storedSeq(part.board, expecting: first - 1)
                    } catch {
                        refusals[index] = error
                        break
                    }
                }
                guard first == stored + 1 else {
                    refusals[index] = StoreError(
                        part.epoch != nil && stored >= first ? .fenced : .io,
                        "Operations of \(part.board) from seq \(first) do not follow the stored seq \(stored) "
                            + (stored >= first
                                ? "(the database is ahead of this node's copy of the board); they were not stored."
                                : "(an earlier write failed); they were not stored."))
                    break
                }
                partsNext[part.board] = last
            }
            if refusals[index] == nil { next = partsNext }
        }
        return refusals
    }

    /// A board's last stored seq: the known one when it is `expecting`, else read from the database.
    private func storedSeq(_ board: String, expecting: Int) throws(StoreError) -> Int {
        if let known = storedSeqs.withLock({ $0[board] }), known == expecting { return known }
        let seq = try backend.storedSeq(of: board)
        storedSeqs.withLock { $0[board] = seq }
        return seq
    }

    /// Writes a snapshot; like an append's transaction, it sets or clears the last failure (a
    /// fenced one leaves it as it was).
    private func write(_ snapshot: SnapshotWrite) {
        let started = ContinuousClock.now
        switch backend.writeSnapshot(snapshot) {
        case .written:
            metrics.recordSnapshot(elapsed: .now - started)
            failure.withLock { $0 = nil }
            forgetStoredSeq(of: snapshot.board)
        case .fenced:
            forgetStoredSeq(of: snapshot.board)
        case .failed(let error):
            failure.withLock { $0 = error }
        }
    }
}
