import CorkboardLoadKit
import CorkboardModel
import CorkboardProtocol
import CorkboardTransport
import Foundation
import Glibc
import Histogram
import Logging
import Synchronization

/// The moving parts of `corkboard-load flood`: two bystanders timing their round trips on their
/// own client thread, and flooders on another that send as fast as their connections take
/// messages, reconnecting whenever the server closes them.
///
/// Round trips are timed by the ids sent: a ping's `ref` and a move's `opId` carry the phase
/// and the `CLOCK_MONOTONIC` send time, read back from the `pong` and the `ack`.
final class FloodRun: Sendable {
    /// The measured phases.
    enum Phase: Int, CaseIterable, Sendable {
        case quiet = 1
        case flood = 2

        var name: String { self == .quiet ? "quiet" : "flood" }
    }

    /// The two bystanders: on the flooded board, and on another board.
    enum Bystander: Int, CaseIterable, Sendable {
        case sameBoard = 0
        case otherBoard = 1

        var name: String { self == .sameBoard ? "sameBoard" : "otherBoard" }
    }

    /// What a round trip times: `ping` → `pong`, or a move `submit` → its `ack`.
    enum Trip: String, CaseIterable, Sendable {
        case ping
        case ack
    }

    /// What the flooders send.
    enum Flood: String, CaseIterable, Sendable {
        case mixed
        case cursor
        case submit
    }

    struct Counts: Sendable {
        /// What the flooders did, counted here; the report adds what the command asked for.
        var flooder = FloodReport.Flooder(
            connections: 0, kind: "", sent: 0, sentPerSecond: 0, rateLimited: 0, otherErrors: 0, committed: 0,
            rejected: 0, closes: [:], joins: 0)
        var bystanderErrors: [String] = []
        var bystanderCloses: [String] = []
        var sent: [String: Int] = [:]
        var answered: [String: Int] = [:]
    }

    struct Member {
        var link: ClientConnectionID
        var board: PlannedBoard
        var joined = false
    }

    private let url: String
    private let boards: (flooded: PlannedBoard, other: PlannedBoard)
    private let flood: Flood
    private let bystanderClient: WebSocketClient
    private let flooderClient: WebSocketClient
    private let bystanders = Mutex<[ClientConnectionID: (Bystander, Bool)]>([:])
    private let flooders = Mutex<[ClientConnectionID: Bool]>([:])
    private let histograms = Mutex<[String: Histogram<UInt64>]>([:])
    let counts = Mutex(Counts())
    /// The phase new sends belong to (0: none).
    private let phase = Atomic<Int>(0)
    private let flooding = Atomic<Bool>(false)
    private let running = Atomic<Bool>(true)
    private let threadsDone = Atomic<Int>(0)

    init(url: String, flooded: PlannedBoard, other: PlannedBoard, flood: Flood, logger: Logger) throws {
        self.url = url
        boards = (flooded, other)
        self.flood = flood
        let bystanderBox = Mutex<FloodRun?>(nil)
        let flooderBox = Mutex<FloodRun?>(nil)
        let configuration = ClientConfiguration(connectTimeout: .seconds(20))
        bystanderClient = WebSocketClient(configuration: configuration, logger: logger) { event in
            bystanderBox.withLock { $0 }?.bystanderEvent(event)
        }
        flooderClient = WebSocketClient(configuration: configuration, logger: logger) { event in
            flooderBox.withLock { $0 }?.flooderEvent(event)
        }
        bystanderBox.withLock { $0 = self }
        flooderBox.withLock { $0 = self }
        try bystanderClient.start()
        try flooderClient.start()
    }

    // MARK: Bystanders

    /// Connects both bystanders and waits (at most 20 s) for their welcomes.
    func connectBystanders() async throws {
        for bystander in Bystander.allCases {
            let link = try bystanderClient.connect(to: url, subprotocol: ProtocolLimits.subprotocol)
            bystanders.withLock { $0[link] = (bystander, false) }
        }
        let joined = try await waitUntil(.now + .seconds(20), every: .milliseconds(20)) {
            bystanders.withLock { $0.values.allSatisfy(\.1) }
        }
        guard joined else { throw FloodFailure("the bystanders did not join within 20 s") }
    }

    private func board(of bystander: Bystander) -> PlannedBoard {
        bystander == .sameBoard ? boards.flooded : boards.other
    }

    private func bystanderEvent(_ event: ClientEvent) {
        switch event {
        case .connected(let link):
            guard let (bystander, _) = bystanders.withLock({ $0[link] }) else { return }
            let board = board(of: bystander)
            bystanderClient.send(
                bytes: WireCodec.encode(
                    .hello(ClientMessage.Hello(ref: "h", board: board.id, key: board.key, name: bystander.name))),
                isText: true, to: link)
        case .message(let link, let message):
            let now = Monotonic.nanos()
            guard let (bystander, _) = bystanders.withLock({ $0[link] }) else { return }
            message.bytes.withUnsafeBytes { bytes in
                let frame = FrameScanner(bytes: bytes)
                switch frame.kind {
                case .welcome:
                    bystanders.withLock { $0[link] = (bystander, true) }
                case .pong:
                    if let ref = frame.string(#""ref":""#) { answered(ref, bystander: bystander, trip: .ping, at: now) }
                case .ack:
                    if let opId = frame.string(#""opId":""#) {
                        answered(opId, bystander: bystander, trip: .ack, at: now)
                    }
                case .error:
                    let text = frame.prefix(300)
                    counts.withLock {
                        if $0.bystanderErrors.count < 20 { $0.bystanderErrors.append("\(bystander.name): \(text)") }
                    }
                default:
                    break
                }
            }
        case .disconnected(let link, let code, let reason, _):
            lostBystander(link, "closed \(code.map(String.init) ?? "-") \(reason)")
        case .failed(let link, let error, _):
            lostBystander(link, "failed: \(error)")
        }
    }

    private func lostBystander(_ link: ClientConnectionID, _ what: String) {
        guard running.load(ordering: .relaxed), let (bystander, _) = bystanders.withLock({ $0[link] }) else { return }
        counts.withLock { $0.bystanderCloses.append("\(bystander.name) \(what)") }
    }

    /// Records an answer to an id made by ``stamp(_:_:_:)``.
    private func answered(_ id: String, bystander: Bystander, trip: Trip, at now: UInt64) {
        guard let (phase, sent) = Self.unstamp(id), let phase = Phase(rawValue: phase) else { return }
        let key = Self.key(phase, bystander, trip)
        histograms.withLock { $0[key, default: LoadMetrics.makeHistogram()].recordNanos(now &- sent) }
        counts.withLock { $0.answered[key, default: 0] += 1 }
    }

    static func key(_ phase: Phase, _ bystander: Bystander, _ trip: Trip) -> String {
        "\(phase.name).\(bystander.name).\(trip.rawValue)"
    }

    /// `<prefix>p<phase>t<nanos>`.
    private static func stamp(_ prefix: String, _ phase: Int, _ sent: UInt64) -> String { "\(prefix)p\(phase)t\(sent)" }

    private static func unstamp(_ id: String) -> (Int, UInt64)? {
        guard let t = id.lastIndex(of: "t"), let p = id[..<t].lastIndex(of: "p"),
            let phase = Int(id[id.index(after: p)..<t]), let sent = UInt64(id[id.index(after: t)...])
        else { return nil }
        return (phase, sent)
    }

    /// Runs the bystanders' schedule on a thread of its own until ``stop()``: a ping every
    /// `1/pingHz` s and a move every `1/moveHz` s (0: none) from each, open loop.
    func startBystanders(pingHz: Double, moveHz: Double, seed: UInt64) {
        let pingEvery = UInt64(1e9 / pingHz)
        let moveEvery = moveHz > 0 ? UInt64(1e9 / moveHz) : UInt64.max
        Thread.detachNewThread { [self] in
            var random = SplitMix64(seed: seed)
            let links = bystanders.withLock { $0.map { ($0.key, $0.value.0) } }.sorted { $0.1.rawValue < $1.1.rawValue }
            var nextPing = Monotonic.nanos()
            var nextMove = nextPing + min(moveEvery, 1_000_000_000) / 2
            var moves = 0
            while running.load(ordering: .relaxed) {
                let now = Monotonic.nanos()
                let phase = self.phase.load(ordering: .relaxed)
                if now >= nextPing {
                    nextPing += pingEvery
                    for (link, bystander) in links {
                        let sent = Monotonic.nanos()
                        bystanderClient.send(
                            bytes: Array(#"{"type":"ping","ref":"\#(Self.stamp("ping", phase, sent))"}"#.utf8),
                            isText: true, to: link)
                        count(phase, bystander, .ping)
                    }
                }
                if now >= nextMove {
                    nextMove = moveEvery == .max ? .max : nextMove + moveEvery
                    for (link, bystander) in links {
                        moves += 1
                        let plan = board(of: bystander)
                        let sent = Monotonic.nanos()
                        bystanderClient.send(
                            bytes: Self.move(
                                on: plan, opId: Self.stamp("b\(bystander.rawValue)m\(moves)", phase, sent),
                                random: &random), isText: true, to: link)
                        count(phase, bystander, .ack)
                    }
                }
                let wake = min(nextPing, nextMove)
                let now2 = Monotonic.nanos()
                if wake > now2 {
                    var pause = timespec(
                        tv_sec: Int((wake - now2) / 1_000_000_000), tv_nsec: Int((wake - now2) % 1_000_000_000))
                    nanosleep(&pause, nil)
                }
            }
            threadsDone.add(1, ordering: .relaxed)
        }
    }

    private func count(_ phase: Int, _ bystander: Bystander, _ trip: Trip) {
        guard let phase = Phase(rawValue: phase) else { return }
        counts.withLock { $0.sent[Self.key(phase, bystander, trip), default: 0] += 1 }
    }

    /// A single-item move of a random item of `plan` to a random place.
    static func move(on plan: PlannedBoard, opId: String, random: inout SplitMix64) -> [UInt8] {
        let item = plan.items[Int.random(in: 0..<plan.items.count, using: &random)]
        let place = plan.sections[Int.random(in: 0..<plan.sections.count, using: &random)]
        let index = Int.random(in: 0...max(0, plan.itemsPerSection), using: &random)
        return Wire.move(
            opId: opId, base: 0, item: item, destination: Wire.place(place.collection, place.section, index: index))
    }

    /// Sets the phase new sends belong to.
    func enter(_ phase: Phase?) { self.phase.store(phase?.rawValue ?? 0, ordering: .relaxed) }

    // MARK: Flooders

    /// Connects `count` flooders to the flooded board and floods from a thread of its own, at
    /// nice 10 so the bystanders' thread in this process is not kept waiting by it (the server is
    /// what is measured), until ``stopFlood()``.
    func startFlood(flooders count: Int, seed: UInt64) throws {
        flooding.store(true, ordering: .relaxed)
        for _ in 0..<count { try connectFlooder() }
        Thread.detachNewThread { [self] in
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)  // this thread only (Linux)
            var random = SplitMix64(seed: seed)
            var sequence = 0
            while flooding.load(ordering: .relaxed) {
                var sentAny = false
                for link in flooders.withLock({ $0.filter(\.value).map(\.key) }) {
                    var batch = 0
                    while batch < 64 && flooderClient.queuedWrites(for: link) < 64 {
                        sequence += 1
                        flooderClient.send(bytes: message(sequence, random: &random), isText: true, to: link)
                        batch += 1
                    }
                    if batch > 0 {
                        sentAny = true
                        counts.withLock { $0.flooder.sent += batch }
                    }
                }
                if !sentAny {
                    var pause = timespec(tv_sec: 0, tv_nsec: 50_000)
                    nanosleep(&pause, nil)
                }
            }
            threadsDone.add(1, ordering: .relaxed)
        }
    }

    /// The flooder's next message.
    private func message(_ n: Int, random: inout SplitMix64) -> [UInt8] {
        let cursor = Array(#"{"type":"cursor","x":\#(n % 1000),"y":\#(n % 700)}"#.utf8)
        switch flood {
        case .cursor: return cursor
        case .submit: return Self.move(on: boards.flooded, opId: "f\(n)", random: &random)
        case .mixed: return n % 2 == 0 ? cursor : Self.move(on: boards.flooded, opId: "f\(n)", random: &random)
        }
    }

    private func connectFlooder() throws {
        let link = try flooderClient.connect(to: url, subprotocol: ProtocolLimits.subprotocol)
        flooders.withLock { $0[link] = false }
    }

    private func flooderEvent(_ event: ClientEvent) {
        switch event {
        case .connected(let link):
            let board = boards.flooded
            flooderClient.send(
                bytes: WireCodec.encode(
                    .hello(ClientMessage.Hello(ref: "h", board: board.id, key: board.key, name: "flooder"))),
                isText: true, to: link)
        case .message(let link, let message):
            message.bytes.withUnsafeBytes { bytes in
                let frame = FrameScanner(bytes: bytes)
                switch frame.kind {
                case .welcome:
                    flooders.withLock { $0[link] = true }
                    counts.withLock { $0.flooder.joins += 1 }
                case .error:
                    let limited = frame.after(#""code":"rate-limited""#) != nil
                    counts.withLock { limited ? ($0.flooder.rateLimited += 1) : ($0.flooder.otherErrors += 1) }
                case .ack:
                    let committed = frame.after(#""kind":"committed""#) != nil
                    counts.withLock { committed ? ($0.flooder.committed += 1) : ($0.flooder.rejected += 1) }
                default:
                    break
                }
            }
        case .disconnected(let link, let code, _, _):
            flooderEnded(link, "\(code.map(String.init) ?? "none")")
        case .failed(let link, _, _):
            flooderEnded(link, "failed")
        }
    }

    /// A flooder was closed: it comes back at once while the flood lasts (an attacker would).
    private func flooderEnded(_ link: ClientConnectionID, _ code: String) {
        guard flooders.withLock({ $0.removeValue(forKey: link) }) != nil, flooding.load(ordering: .relaxed) else {
            return
        }
        counts.withLock { $0.flooder.closes[code, default: 0] += 1 }
        try? connectFlooder()
    }

    /// Stops flooding and closes the flooders.
    func stopFlood() {
        flooding.store(false, ordering: .relaxed)
        for link in flooders.withLock({ Array($0.keys) }) {
            flooderClient.close(link, code: 1000, reason: "flood over")
        }
    }

    /// The round trips of one phase, bystander and kind.
    func summary(_ phase: Phase, _ bystander: Bystander, _ trip: Trip) -> LatencySummary {
        histograms.withLock { LatencySummary($0[Self.key(phase, bystander, trip)] ?? LoadMetrics.makeHistogram()) }
    }

    /// Stops the threads and both clients.
    func shutdown() async {
        running.store(false, ordering: .relaxed)
        stopFlood()
        _ = try? await waitUntil(.now + .seconds(5), every: .milliseconds(10)) {
            threadsDone.load(ordering: .relaxed) >= 2
        }
        for link in bystanders.withLock({ Array($0.keys) }) { bystanderClient.close(link, code: 1000, reason: "done") }
        try? await Task.sleep(for: .milliseconds(200))
        await bystanderClient.shutdown()
        await flooderClient.shutdown()
    }
}

/// A flood run that could not be carried out.
struct FloodFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
