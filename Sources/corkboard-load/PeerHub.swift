import CorkboardLoadKit
import CorkboardProtocol
import Logging
import Synchronization

/// How many of the run's light peers are joined to each board (checkers are not counted),
/// so an operation knows how many peers should see it.
final class Roster: Sendable {
    private let counts: Mutex<[Int]>

    init(boards: Int) { counts = Mutex(Array(repeating: 0, count: boards)) }

    func joined(_ board: Int) { counts.withLock { $0[board] += 1 } }
    func left(_ board: Int) { counts.withLock { $0[board] -= 1 } }
    func members(_ board: Int) -> Int { counts.withLock { $0[board] } }
}

/// Learns of every `ack` a light peer receives (a class, not a stored closure: a closure read
/// out of generic storage on every message was re-wrapped in reabstraction thunks).
protocol AckListener: AnyObject, Sendable {
    /// Called on a lane's thread, after the metrics recorded the ack.
    func acked(peer: Int, committed: Bool)
}

/// Where the run's ack listener is (storm's closed loop), shared by the hub and its lanes.
final class AckRelay: Sendable {
    let listener = Mutex<(any AckListener)?>(nil)
}

/// A light peer as the run planned it.
struct PeerSpec: Sendable {
    /// The peer's number in the whole run (ack listener, drivers, reports, its ids).
    var global: Int
    var board: Int
    var boardID: String
    var key: String?
    var name: String
    /// The node of a cluster that sequences the peer's board, when not the run's URL.
    var url: String?
}

/// One light peer: its plan, and what its connection learned. The lane's thread writes the
/// atomics; a sender reads them without taking any lock the receiving side takes.
final class PeerCell: Sendable {
    enum Phase: UInt8 {
        case connecting, joining, joined, closed
    }

    let spec: PeerSpec
    private let phaseValue = Atomic<UInt8>(Phase.connecting.rawValue)
    /// The last committed seq the peer saw.
    let lastSeq = Atomic<Int>(0)
    /// ``IdHash`` of the member id its welcome gave.
    let member = Atomic<UInt64>(0)

    init(_ spec: PeerSpec) { self.spec = spec }

    var phase: Phase {
        get { Phase(rawValue: phaseValue.load(ordering: .acquiring)) ?? .closed }
        set { phaseValue.store(newValue.rawValue, ordering: .releasing) }
    }
}

/// The light peers of one thread of the load tool: a ``PeerHub`` spreads its peers over several
/// lanes, so receiving runs on several threads. The peers' logic is here, once; a lane's
/// ``PeerTransport`` (the lean ws:// client, or libwebsockets for wss://) only carries bytes.
///
/// A light peer joins with a real `hello` and sends well-formed protocol messages, but reads only
/// what a load run measures from each frame (``FrameScanner``, in place): it keeps no replica. It
/// checks that the committed stream it sees (`op`s and its own committed `ack`s) has no gap in
/// seqs, and reports every op, ack, hover and error to the lane's ``MetricsShard``. The run's
/// checkers (full ``BoardConnection``s with replicas) check the board's content.
final class PeerLane: Sendable {
    /// The lane's peers, by index (fixed when the lane is made).
    let cells: [PeerCell]
    let transport: any PeerTransport
    let metrics: LoadMetrics
    /// What this lane's thread records.
    let shard: MetricsShard
    let roster: Roster
    let acks: AckRelay
    let url: String
    private let joinedCount = Atomic<Int>(0)
    private let failedCount = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)

    init(
        peers: [PeerSpec], transport: any PeerTransport, url: String, metrics: LoadMetrics, roster: Roster,
        acks: AckRelay
    ) {
        cells = peers.map(PeerCell.init)
        self.transport = transport
        self.url = url
        self.metrics = metrics
        shard = metrics.makeShard()
        self.roster = roster
        self.acks = acks
    }

    /// Starts the transport's thread, which calls this lane with its peers' events.
    func start() throws { try transport.start(self) }

    /// Starts connecting a peer (the hello goes out when the socket connects).
    func open(_ index: Int) throws { try transport.open(index, url: cells[index].spec.url ?? url) }

    var counts: (peers: Int, joined: Int, failed: Int) {
        (cells.count, joinedCount.load(ordering: .relaxed), failedCount.load(ordering: .relaxed))
    }

    // MARK: Sending (any thread)

    /// What a sender needs to know about a joined peer.
    struct Joined {
        var board: Int
        /// ``IdHash`` of its member id.
        var member: UInt64
        var lastSeq: Int
    }

    /// Sends bytes built from the peer's state if it is joined; returns whether it was sent.
    @discardableResult
    func send(_ index: Int, _ build: (Joined) -> [UInt8]) -> Bool {
        let cell = cells[index]
        guard cell.phase == .joined else { return false }
        let joined = Joined(
            board: cell.spec.board, member: cell.member.load(ordering: .relaxed),
            lastSeq: cell.lastSeq.load(ordering: .relaxed))
        transport.send(index, build(joined))
        return true
    }

    /// The peers' last seen seq (after a drain every peer of a board should agree).
    var lastSeqs: [RunShard.PeerSeq] {
        cells.map {
            RunShard.PeerSeq(
                peer: $0.spec.global, board: $0.spec.board, lastSeq: $0.lastSeq.load(ordering: .relaxed),
                joined: $0.phase == .joined)
        }
    }

    /// Closes every connection and stops the transport's thread.
    func shutdown() async {
        stopping.store(true, ordering: .relaxed)
        await transport.shutdown()
    }

    // MARK: Receiving (the transport's thread)

    /// Peer `index`'s WebSocket opened: it says hello.
    func connected(_ index: Int) {
        let cell = cells[index]
        cell.phase = .joining
        let spec = cell.spec
        transport.send(
            index,
            WireCodec.encode(.hello(ClientMessage.Hello(ref: "h", board: spec.boardID, key: spec.key, name: spec.name)))
        )
    }

    /// Peer `index`'s connection ended (`what` says how).
    func ended(_ index: Int, _ what: String) {
        let cell = cells[index]
        let phase = cell.phase
        guard phase != .closed else { return }
        cell.phase = .closed
        if phase == .joined {
            roster.left(cell.spec.board)
        } else {
            failedCount.add(1, ordering: .relaxed)
        }
        if !stopping.load(ordering: .relaxed) { metrics.disconnected(what) }
    }

    /// A whole message for peer `index`; the bytes are valid only during the call.
    func received(_ index: Int, _ bytes: UnsafeRawBufferPointer) {
        shard.received.add(1, ordering: .relaxed)
        let now = Monotonic.nanos()
        let frame = FrameScanner(bytes: bytes)
        switch frame.kind {
        case .dragHover:
            guard let session = frame.value(#""session":""#), let member = frame.value(#""member":""#),
                let number = frame.int(#""index":"#)
            else { return }
            metrics.hoverSeen(
                session: frame.slice(session), member: IdHash.of(frame.slice(member)), number: number, peer: true,
                at: now, in: shard)
        case .op:
            guard let seq = frame.int(#""seq":"#), let opId = frame.value(#""opId":""#) else {
                shard.error("an op frame without seq or opId: \(frame.prefix(200))")
                return
            }
            advance(index, to: seq)
            metrics.seen(frame.slice(opId), at: now, in: shard)
        case .proposal:
            guard let session = frame.value(#""session":""#), let number = frame.int(#""index":"#) else { return }
            metrics.hoverSeen(
                session: frame.slice(session), member: nil, number: number, peer: false, at: now, in: shard)
        case .ack:
            guard let opId = frame.value(#""opId":""#) else { return }
            let committed = frame.after(#""kind":"committed""#) != nil
            if committed, let seq = frame.int(#""seq":"#) { advance(index, to: seq) }
            metrics.acked(frame.slice(opId), committed: committed, at: now, in: shard)
            if !committed { shard.rejection(frame.string(#""code":""#) ?? "?") }
            acks.listener.withLock { $0 }?.acked(peer: cells[index].spec.global, committed: committed)
        case .welcome:
            welcome(frame, peer: index)
        case .dragGranted:
            if frame.after(#""refused":[{"#) != nil { shard.refusedGrant() }
        case .error:
            shard.error(frame.prefix(300))
        case .other, .pong:
            break
        case .unreadable:
            shard.error("an unreadable frame: \(frame.prefix(200))")
        }
    }

    private func welcome(_ frame: FrameScanner, peer index: Int) {
        guard let memberAt = frame.after(#""member":{"#), let member = frame.value(#""id":""#, from: memberAt),
            let head = frame.int(#""head":"#)
        else {
            shard.error("a welcome without member id or head")
            return
        }
        let cell = cells[index]
        cell.member.store(IdHash.of(frame.slice(member)), ordering: .relaxed)
        cell.lastSeq.store(head, ordering: .relaxed)
        guard cell.phase != .joined else { return }
        cell.phase = .joined
        joinedCount.add(1, ordering: .relaxed)
        roster.joined(cell.spec.board)
    }

    /// Checks that `seq` follows the peer's last seq (ops are never lost or reordered).
    private func advance(_ index: Int, to seq: Int) {
        let cell = cells[index]
        let last = cell.lastSeq.load(ordering: .relaxed)
        if seq > last { cell.lastSeq.store(seq, ordering: .relaxed) }
        if seq != last + 1 { shard.seqGap("peer \(cell.spec.global) saw seq \(seq) after \(last)") }
    }
}

/// The run's light peers, spread over several lanes (one transport thread each; peer n is on lane
/// n mod lanes), so receiving and scanning frames is not held to one core.
final class PeerHub: Sendable {
    /// Told on a lane's thread of every ack (storm's closed loop).
    let acks = AckRelay()
    let lanes: [PeerLane]
    /// Where each peer (by global number) lives: its lane and its index there.
    private let places: [Int: (lane: Int, index: Int)]

    /// The client the peers run on (`lean` or `lws`), as its transports name it.
    var client: String { lanes.first?.transport.name ?? "none" }

    /// Makes the lanes for `peers` and starts their threads; open the peers with ``open(_:)``.
    init(
        peers: [PeerSpec], url: String, allowSelfSigned: Bool = false, threads: Int = 1, client: LoadClient,
        metrics: LoadMetrics, roster: Roster, logger: Logger
    ) throws {
        let count = max(1, threads)
        var specs = Array(repeating: [PeerSpec](), count: count)
        var places: [Int: (lane: Int, index: Int)] = [:]
        for peer in peers {
            let lane = peer.global % count
            places[peer.global] = (lane, specs[lane].count)
            specs[lane].append(peer)
        }
        self.places = places
        let acks = self.acks
        lanes = try specs.enumerated().map { n, specs in
            PeerLane(
                peers: specs,
                transport: try client.makeTransport(
                    lane: n, url: url, allowSelfSigned: allowSelfSigned, logger: logger),
                url: url, metrics: metrics, roster: roster, acks: acks)
        }
        for lane in lanes { try lane.start() }
    }

    /// Starts connecting a peer (the hello goes out when the socket connects).
    func open(_ peer: Int) throws {
        guard let (lane, index) = places[peer] else { return }
        try lanes[lane].open(index)
    }

    /// Sends bytes built from the peer's state if it is joined; returns whether it was sent.
    @discardableResult
    func send(_ peer: Int, _ build: (PeerLane.Joined) -> [UInt8]) -> Bool {
        guard let (lane, index) = places[peer] else { return false }
        return lanes[lane].send(index, build)
    }

    var counts: (peers: Int, joined: Int, failed: Int) {
        lanes.map(\.counts).reduce((0, 0, 0)) { ($0.0 + $1.peers, $0.1 + $1.joined, $0.2 + $1.failed) }
    }

    /// The joined peers' last seen seq, by board (after a drain every peer of a board should agree).
    var lastSeqs: [RunShard.PeerSeq] {
        lanes.flatMap(\.lastSeqs).sorted { $0.peer < $1.peer }
    }

    /// The lanes' loop counts now, added up; `nil` when their client keeps none.
    func loopSnapshot() -> LoopSnapshot? {
        let all = lanes.compactMap(\.transport.loopStats)
        guard !all.isEmpty else { return nil }
        return LoopSnapshot(loops: all.count, stats: all.dropFirst().reduce(all[0]) { $0.adding($1) })
    }

    /// Closes every connection and stops the lanes' threads.
    func shutdown() async {
        for lane in lanes { await lane.shutdown() }
    }
}
