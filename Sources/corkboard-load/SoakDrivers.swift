import CorkboardLoadKit
import CorkboardModel
import CorkboardProtocol
import CorkboardTransport
import Foundation
import Glibc
import Logging
import Synchronization

/// Several drivers as one: started together, stopped together.
struct CompositeDriver: LoadDriver {
    let drivers: [any LoadDriver]

    func stop() async {
        for driver in drivers { await driver.stop() }
    }
}

/// Movers that each submit a single-item move at a fixed rate (open loop, unlike storm's closed
/// loop), so a soak stays under the server's rate limits while every move is still timed and
/// checked like storm's.
final class PacedMoveDriver: LoadDriver, @unchecked Sendable {
    // `random` and `sequence` are touched only by the driver thread.
    private let context: LoadContext
    private let movers: [(peer: Int, board: Int)]
    private let interval: UInt64
    private var random: SplitMix64
    private var sequence = 0
    private let thread = DriverThread()

    /// Drives the `movers` of `context`, each moving `perSecond` times a second.
    init(_ context: LoadContext, movers: [(peer: Int, board: Int)], perSecond: Double, seed: UInt64) {
        self.context = context
        self.movers = movers
        self.interval = UInt64(1e9 / perSecond)
        self.random = SplitMix64(seed: seed)
    }

    /// Starts the driver thread; movers start at random offsets within one interval.
    func start() {
        thread.start { [self] in
            var heap = TimerHeap()
            let now = Monotonic.nanos()
            for index in movers.indices {
                heap.push(now + UInt64.random(in: 0..<max(1, interval), using: &random), index)
            }
            while !thread.isStopping {
                let now = Monotonic.nanos()
                while let (time, index) = heap.peek, time <= now {
                    heap.pop()
                    move(movers[index])
                    heap.push(max(now, time + interval), index)
                }
                DriverThread.sleep(from: now, until: min(heap.peek?.time ?? now + 5_000_000, now + 5_000_000))
            }
        }
    }

    private func move(_ mover: (peer: Int, board: Int)) {
        guard let move = RandomMove(on: context.boards[mover.board], using: &random) else { return }
        sequence += 1
        move.send(from: mover.peer, tag: "p\(mover.peer)v\(sequence)", board: mover.board, in: context)
    }

    func stop() async {
        await thread.stop()
    }
}

/// Connections that come and go: `concurrent` of them, each joining a board, staying `stay`
/// seconds and leaving, then the next one. They are not the run's peers (no operation expects
/// them), so they exercise joins, welcomes and member lists without touching the delivery ratio.
final class ChurnDriver: LoadDriver, Sendable {
    private let client: WebSocketClient
    private let url: String
    private let boards: [PlannedBoard]
    private let stay: Duration
    private let links = Mutex<[ClientConnectionID: Int]>([:])
    private let stopping = Atomic<Bool>(false)
    /// Churners that joined, and those that failed or were closed by the server.
    let joins = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let failureSamples = Mutex<[String]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(url: String, boards: [PlannedBoard], stay: Duration, logger: Logger) throws {
        self.url = url
        self.boards = boards
        self.stay = stay
        let box = Mutex<ChurnDriver?>(nil)
        client = WebSocketClient(configuration: ClientConfiguration(connectTimeout: .seconds(20)), logger: logger) {
            event in
            box.withLock { $0 }?.handle(event)
        }
        box.withLock { $0 = self }
        try client.start()
    }

    /// Keeps `concurrent` churners cycling until ``stop()``.
    func start(concurrent: Int) {
        let stay = self.stay
        let started = Task { [self] in
            await withTaskGroup(of: Void.self) { group in
                for lane in 0..<concurrent {
                    group.addTask {
                        // Spread the lanes over one stay.
                        try? await Task.sleep(for: stay * (Double(lane) / Double(max(1, concurrent))))
                        var turn = lane
                        while !self.stopping.load(ordering: .relaxed) {
                            guard
                                let link = try? self.client.connect(
                                    to: self.url, subprotocol: ProtocolLimits.subprotocol)
                            else { return }
                            self.links.withLock { $0[link] = turn % self.boards.count }
                            try? await Task.sleep(for: stay)
                            self.links.withLock { _ = $0.removeValue(forKey: link) }
                            self.client.close(link, code: 1000, reason: "churn")
                            turn += concurrent
                        }
                    }
                }
            }
        }
        task.withLock { $0 = started }
    }

    private func handle(_ event: ClientEvent) {
        switch event {
        case .connected(let link):
            guard let board = links.withLock({ $0[link] }).map({ boards[$0] }) else { return }
            client.send(
                bytes: WireCodec.encode(
                    .hello(ClientMessage.Hello(ref: "h", board: board.id, key: board.key, name: "churn"))),
                isText: true, to: link)
        case .message(_, let message):
            if message.bytes.withUnsafeBytes({ FrameScanner(bytes: $0).kind }) == .welcome {
                joins.add(1, ordering: .relaxed)
            }
        case .disconnected(let link, let code, let reason, _):
            // Closed by the server while it was meant to stay.
            guard links.withLock({ $0[link] }) != nil, !stopping.load(ordering: .relaxed) else { return }
            failed("closed \(code.map(String.init) ?? "-") \(reason)")
        case .failed(let link, let error, _):
            guard links.withLock({ $0[link] }) != nil, !stopping.load(ordering: .relaxed) else { return }
            failed("failed: \(error)")
        }
    }

    private func failed(_ what: String) {
        failures.add(1, ordering: .relaxed)
        failureSamples.withLock { if $0.count < 5 { $0.append(what) } }
    }

    func stop() async {
        stopping.store(true, ordering: .relaxed)
        await task.withLock({ $0 })?.value
        for link in links.withLock({ Array($0.keys) }) { client.close(link, code: 1000, reason: "done") }
        try? await Task.sleep(for: .milliseconds(200))
        await client.shutdown()
    }
}
