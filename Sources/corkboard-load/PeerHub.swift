import CorkboardProtocol
import CorkboardTransport
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
    /// Called on the service thread, after the metrics recorded the ack.
    func acked(peer: Int, opId: String, committed: Bool)
}

/// The light peers of one ``WebSocketClient`` service thread: a ``PeerHub`` spreads its peers
/// over several lanes, so the load tool's receiving work runs on several threads.
///
/// A light peer joins with a real `hello` and sends well-formed protocol messages, but reads only
/// what a load run measures from each frame (``FrameScanner``): it keeps no replica. It checks
/// that the committed stream it sees (`op`s and its own committed `ack`s) has no gap in seqs, and
/// reports every op, ack, hover and error to ``LoadMetrics``. The run's checkers (full
/// ``BoardConnection``s with replicas) check the board's content.
final class PeerLane: Sendable {
    enum Phase: Equatable {
        case connecting
        case joining
        case joined
        case closed
    }

    struct Peer {
        /// The peer's number in the whole run (ack listener, drivers, reports).
        var global: Int
        var board: Int
        var boardID: String
        var key: String?
        var name: String
        /// The node of a cluster that sequences the peer's board, when not the run's URL.
        var url: String?
        var link: ClientConnectionID?
        var phase = Phase.connecting
        var member: String?
        var lastSeq = 0
        var welcomes = 0
    }

    struct Peers {
        var list: [Peer] = []
        var byLink: [ClientConnectionID: Int] = [:]
        var joined = 0
        var failed = 0
        var stopping = false
    }

    let transport: WebSocketClient
    let metrics: LoadMetrics
    let roster: Roster
    let url: String
    let peers = Mutex(Peers())
    /// Told on the service thread of every ack (storm's closed loop); the hub's, shared by its lanes.
    unowned let hub: PeerHub

    /// Whether a `wss://` server may present a self-signed certificate.
    let allowSelfSigned: Bool

    init(
        url: String, allowSelfSigned: Bool, metrics: LoadMetrics, roster: Roster, hub: PeerHub, logger: Logger
    ) throws {
        self.url = url
        self.hub = hub
        self.allowSelfSigned = allowSelfSigned
        self.metrics = metrics
        self.roster = roster
        let box = Mutex<PeerLane?>(nil)
        transport = WebSocketClient(
            configuration: ClientConfiguration(
                receiveBufferBytes: 16 * 1024, connectTimeout: .seconds(20), tls: url.hasPrefix("wss://")),
            logger: logger
        ) { event in
            box.withLock { $0 }?.handle(event)
        }
        box.withLock { $0 = self }
        try transport.start()
    }

    /// Adds a peer for a board; returns its index in this lane. Open it with ``open(_:)``.
    func add(global: Int, board: Int, boardID: String, key: String?, name: String, url: String? = nil) -> Int {
        peers.withLock { peers in
            peers.list.append(Peer(global: global, board: board, boardID: boardID, key: key, name: name, url: url))
            return peers.list.count - 1
        }
    }

    /// Starts connecting a peer (the hello goes out when the socket connects).
    func open(_ index: Int) throws {
        try peers.withLock { (peers: inout Peers) throws in
            let link = try transport.connect(
                to: peers.list[index].url ?? url, subprotocol: ProtocolLimits.subprotocol,
                allowSelfSigned: allowSelfSigned)
            peers.list[index].link = link
            peers.byLink[link] = index
        }
    }

    var counts: (peers: Int, joined: Int, failed: Int) {
        peers.withLock { ($0.list.count, $0.joined, $0.failed) }
    }

    // MARK: Sending

    /// What a sender needs to know about a joined peer.
    struct Joined {
        var board: Int
        var member: String
        var lastSeq: Int
    }

    /// Sends bytes built from the peer's state if it is joined; returns whether it was sent.
    @discardableResult
    func send(_ index: Int, _ build: (Joined) -> [UInt8]) -> Bool {
        let prepared = peers.withLock { peers -> (ClientConnectionID, [UInt8])? in
            let peer = peers.list[index]
            guard peer.phase == .joined, let link = peer.link, let member = peer.member else { return nil }
            return (link, build(Joined(board: peer.board, member: member, lastSeq: peer.lastSeq)))
        }
        guard let (link, bytes) = prepared else { return false }
        transport.send(bytes: bytes, isText: true, to: link)
        return true
    }

    /// The joined peers' last seen seq, by board (after a drain every peer of a board should agree).
    var lastSeqs: [(peer: Int, board: Int, lastSeq: Int, joined: Bool)] {
        peers.withLock { peers in
            peers.list.map { ($0.global, $0.board, $0.lastSeq, $0.phase == .joined) }
        }
    }

    /// Closes every link and stops the service thread.
    func shutdown() async {
        let links = peers.withLock { peers in
            peers.stopping = true
            return peers.list.compactMap(\.link)
        }
        for link in links { transport.close(link, code: 1000, reason: "load run finished") }
        try? await Task.sleep(for: .milliseconds(200))
        await transport.shutdown()
    }

    // MARK: Receiving (service thread)

    func handle(_ event: ClientEvent) {
        switch event {
        case .connected(let link):
            let hello = peers.withLock { peers -> [UInt8]? in
                guard let index = peers.byLink[link] else { return nil }
                peers.list[index].phase = .joining
                let peer = peers.list[index]
                return WireCodec.encode(
                    .hello(ClientMessage.Hello(ref: "h", board: peer.boardID, key: peer.key, name: peer.name)))
            }
            if let hello { transport.send(bytes: hello, isText: true, to: link) }
        case .message(let link, let message):
            metrics.received.add(1, ordering: .relaxed)
            guard let index = peers.withLock({ $0.byLink[link] }) else { return }
            receive(message.bytes, peer: index)
        case .disconnected(let link, let code, let reason, _):
            ended(link, "closed \(code.map(String.init) ?? "-") \(reason)")
        case .failed(let link, let error, _):
            ended(link, "failed: \(error)")
        }
    }

    private func ended(_ link: ClientConnectionID, _ what: String) {
        let report = peers.withLock { peers -> (board: Int?, report: Bool) in
            guard let index = peers.byLink.removeValue(forKey: link) else { return (nil, false) }
            let peer = peers.list[index]
            peers.list[index].phase = .closed
            if peer.phase != .joined { peers.failed += 1 }
            return (peer.phase == .joined ? peer.board : nil, !peers.stopping)
        }
        if let board = report.board { roster.left(board) }
        if report.report { metrics.disconnected(what) }
    }

    private func receive(_ bytes: [UInt8], peer index: Int) {
        let now = Monotonic.nanos()
        let frame = FrameScanner(bytes: bytes)
        switch frame.kind {
        case .op:
            guard let seq = frame.int(#""seq":"#), let opId = frame.string(#""opId":""#) else {
                metrics.error("an op frame without seq or opId: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
                return
            }
            advance(index, to: seq)
            metrics.seen(opId, at: now)
        case .dragHover:
            guard let session = frame.string(#""session":""#), let member = frame.string(#""member":""#),
                let number = frame.int(#""index":"#)
            else { return }
            metrics.hoverSeen(session: session, member: member, number: number, peer: true, at: now)
        case .ack:
            guard let opId = frame.string(#""opId":""#) else { return }
            let committed = frame.after(#""kind":"committed""#) != nil
            if committed, let seq = frame.int(#""seq":"#) { advance(index, to: seq) }
            metrics.acked(opId, committed: committed, at: now)
            if !committed { metrics.rejection(frame.string(#""code":""#) ?? "?") }
            let global = peers.withLock { $0.list[index].global }
            hub.ackListener.withLock { $0 }?.acked(peer: global, opId: opId, committed: committed)
        case .proposal:
            guard let session = frame.string(#""session":""#), let number = frame.int(#""index":"#) else { return }
            metrics.hoverSeen(session: session, member: nil, number: number, peer: false, at: now)
        case .welcome:
            welcome(frame, peer: index)
        case .dragGranted:
            if frame.after(#""refused":[{"#) != nil { metrics.refusedGrant() }
        case .error:
            metrics.error(String(decoding: bytes.prefix(300), as: UTF8.self))
        case .other, .pong:
            break
        case .unreadable:
            metrics.error("an unreadable frame: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
    }

    private func welcome(_ frame: FrameScanner, peer index: Int) {
        guard let memberAt = frame.after(#""member":{"#), let member = frame.string(#""id":""#, from: memberAt),
            let head = frame.int(#""head":"#)
        else {
            metrics.error("a welcome without member id or head")
            return
        }
        let board = peers.withLock { peers -> Int? in
            var peer = peers.list[index]
            let first = peer.phase != .joined
            peer.phase = .joined
            peer.member = member
            peer.lastSeq = head
            peer.welcomes += 1
            peers.list[index] = peer
            if first { peers.joined += 1 }
            return first ? peer.board : nil
        }
        if let board { roster.joined(board) }
    }

    /// Checks that `seq` follows the peer's last seq (ops are never lost or reordered).
    private func advance(_ index: Int, to seq: Int) {
        let gap = peers.withLock { peers -> (Int, Int)? in
            let last = peers.list[index].lastSeq
            if seq > last { peers.list[index].lastSeq = seq }
            return seq == last + 1 ? nil : (last, seq)
        }
        if let (last, seq) = gap {
            metrics.seqGap("peer \(index) saw seq \(seq) after \(last)")
        }
    }
}

/// The run's light peers, spread over several lanes (one ``WebSocketClient`` service thread each;
/// peer n is on lane n mod lanes), so receiving and scanning frames is not held to one core.
final class PeerHub: Sendable {
    /// Told on a service thread of every ack (storm's closed loop).
    let ackListener = Mutex<(any AckListener)?>(nil)
    private let lanes = Mutex<[PeerLane]>([])
    private let places = Mutex<[Int: (lane: Int, index: Int)]>([:])

    init(
        url: String, allowSelfSigned: Bool = false, threads: Int = 1, metrics: LoadMetrics, roster: Roster,
        logger: Logger
    ) throws {
        for _ in 0..<max(1, threads) {
            let lane = try PeerLane(
                url: url, allowSelfSigned: allowSelfSigned, metrics: metrics, roster: roster, hub: self, logger: logger)
            lanes.withLock { $0.append(lane) }
        }
    }

    private var all: [PeerLane] { lanes.withLock { $0 } }

    /// Adds peer number `peer` of the run (on lane `peer` mod lanes) for a board; returns `peer`.
    /// Open it with ``open(_:)``.
    @discardableResult
    func add(peer: Int, board: Int, boardID: String, key: String?, name: String, url: String? = nil) -> Int {
        let lanes = all
        let lane = peer % lanes.count
        let index = lanes[lane].add(global: peer, board: board, boardID: boardID, key: key, name: name, url: url)
        places.withLock { $0[peer] = (lane, index) }
        return peer
    }

    /// Starts connecting a peer (the hello goes out when the socket connects).
    func open(_ peer: Int) throws {
        guard let (lane, index) = places.withLock({ $0[peer] }) else { return }
        try all[lane].open(index)
    }

    /// Sends bytes built from the peer's state if it is joined; returns whether it was sent.
    @discardableResult
    func send(_ peer: Int, _ build: (PeerLane.Joined) -> [UInt8]) -> Bool {
        guard let (lane, index) = places.withLock({ $0[peer] }) else { return false }
        return all[lane].send(index, build)
    }

    var counts: (peers: Int, joined: Int, failed: Int) {
        all.map(\.counts).reduce((0, 0, 0)) { ($0.0 + $1.peers, $0.1 + $1.joined, $0.2 + $1.failed) }
    }

    /// The joined peers' last seen seq, by board (after a drain every peer of a board should agree).
    var lastSeqs: [(peer: Int, board: Int, lastSeq: Int, joined: Bool)] {
        all.flatMap(\.lastSeqs).sorted { $0.peer < $1.peer }
    }

    /// Closes every link and stops the service threads.
    func shutdown() async {
        for lane in all { await lane.shutdown() }
    }
}
