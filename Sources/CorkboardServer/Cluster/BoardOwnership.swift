public import CorkboardStorage
import Dispatch
public import Logging
import Synchronization

/// What `/healthz` shows of this node's place in the cluster.
public struct ClusterStatus: Sendable, Equatable {
    /// This node's id.
    public var node: String
    /// The URL clients use to reach this node.
    public var url: String
    /// The other live nodes, by id.
    public var peers: [ClusterNode]
    /// The boards this node sequences now, by id.
    public var boards: [String]
    /// `ok`, or what went wrong with the database at the last heartbeat.
    public var database: String
}

/// Which boards this node of a cluster sequences: it claims the leases of the boards that belong
/// on it, renews them, starts and stops their rooms, and routes `hello`s for other boards.
///
/// Every `tick` (default: a sixth of the lease, 0.5 s) one heartbeat records the node as alive,
/// renews its leases and reads the live nodes and every lease (`ClusterCoordinator.heartbeat`).
/// Boards are assigned by rendezvous hashing over the live nodes: a free or expired board that
/// belongs here is claimed (a new fencing epoch) and loaded from the store; a board held here that
/// belongs on another live node (one that joined) is handed over: its room redirects its members
/// there and stops, the store finishes its writes, and the lease is released so the other node
/// claims it at once. A lease that was not renewed (this node stalled past it and another node
/// took the board) stops the room at once; its writes were already refused by the fence.
///
/// A `hello` for a board without a room here is routed (`route(board:key:)`): to this node after
/// claiming the board when it belongs here and is free, else to the node holding it, or to the one
/// it belongs on; while the board is between nodes (its holder died and its lease has not run out)
/// the `hello` waits, up to `routeTimeout`.
public actor BoardOwnership: BoardRouter {
    /// This node in the cluster's shared state.
    public nonisolated let coordinator: any ClusterCoordinator
    /// The node's boards and rooms.
    public nonisolated let directory: BoardDirectory
    /// The URL clients use to reach this node (`--public-url`).
    public private(set) var publicURL: String
    /// How often the heartbeat runs.
    public nonisolated let tick: Duration
    /// How long a `hello` may wait for its board to settle on a node.
    public nonisolated let routeTimeout: Duration
    private let logger: Logger
    private nonisolated let statusBox: Mutex<ClusterStatus>
    private var held: [String: Int] = [:]
    private var stopping: Set<String> = []
    private var claims: [String: Task<Room?, Never>] = [:]
    private var view: ClusterView?
    private var ticks = 0
    private var leaving = false

    /// Ownership for this node.
    ///
    /// - Parameters:
    ///   - tick: How often to send a heartbeat; `nil`: a sixth of the lease duration.
    ///   - routeTimeout: How long a `hello` may wait for its board to settle on a node.
    public init(
        coordinator: any ClusterCoordinator, directory: BoardDirectory, publicURL: String, tick: Duration? = nil,
        routeTimeout: Duration = .seconds(5), logger: Logger
    ) {
        self.coordinator = coordinator
        self.directory = directory
        self.publicURL = publicURL
        self.tick = tick ?? coordinator.leaseDuration / 6
        self.routeTimeout = routeTimeout
        var logger = logger
        logger[metadataKey: "node"] = "\(coordinator.nodeID)"
        self.logger = logger
        statusBox = Mutex(
            ClusterStatus(node: coordinator.nodeID, url: publicURL, peers: [], boards: [], database: "starting"))
    }

    /// This node's place in the cluster now.
    public nonisolated var status: ClusterStatus { statusBox.withLock { $0 } }

    /// Sets the URL clients use to reach this node (once the port is bound), before `run()`.
    public func setPublicURL(_ url: String) {
        publicURL = url
        statusBox.withLock { $0.url = url }
    }

    /// Sends heartbeats and keeps the assignment until the task is cancelled or `leave()` runs.
    public func run() async {
        logger.info("joining the cluster", metadata: ["url": "\(publicURL)"])
        while !Task.isCancelled && !leaving {
            await heartbeat()
            try? await Task.sleep(for: tick)
        }
    }

    /// Leaves the cluster cleanly: every room redirects its members (to their entry URLs) and
    /// stops, the store finishes writing, and the leases are released so other nodes claim the
    /// boards at once instead of waiting for the leases to run out.
    public func leave() async {
        guard !leaving else { return }
        leaving = true
        logger.notice("leaving the cluster", metadata: ["boards": "\(held.count)"])
        for board in Array(held.keys) {
            directory.registry.room(board)?.post(
                .relinquish(RoomHandoff(url: nil, reason: "this server is shutting down; reconnect and resume")))
        }
        for board in Array(held.keys) { await directory.waitUntilStopped(board) }
        await drainStore()
        held.removeAll()
        await coordinator.leave()
        publish(database: "left")
    }

    // MARK: Heartbeat

    /// One round: heartbeat and renewals, then lost leases, deleted boards, claims and handoffs.
    func heartbeat() async {
        guard !leaving else { return }
        // A room that gave its board up by itself (a fenced write, a database ahead of it): release
        // the lease so the board is claimed again and loaded from the database.
        for (board, epoch) in held where !stopping.contains(board) && directory.registry.room(board) == nil {
            held[board] = nil
            await directory.waitUntilStopped(board)
            try? await coordinator.release(board, epoch: epoch)
            logger.notice("a room stopped by itself; its lease is released", metadata: ["board": "\(board)"])
        }
        let view: ClusterView
        do {
            view = try await coordinator.heartbeat(url: publicURL, renewing: held)
        } catch {
            logger.warning("heartbeat failed", metadata: ["error": "\(error)"])
            publish(database: "failing: \(error)")
            return
        }
        guard !leaving else { return }
        self.view = view
        ticks += 1
        for (board, epoch) in held where view.renewed[board] != epoch && !stopping.contains(board) {
            let holder = view.leases[board].flatMap { lease in
                lease.isExpired ? nil : view.nodes.first { $0.id == lease.owner }
            }
            logger.warning(
                "this node lost a board's lease; its room stops",
                metadata: ["board": "\(board)", "epoch": "\(epoch)", "holder": "\(holder?.id ?? "-")"])
            await stopRoom(
                board,
                handoff: RoomHandoff(
                    url: holder?.url, reason: "another server of the cluster took this board over; reconnect there"),
                release: false)
        }
        let records: [BoardRecord]
        do {
            records = try directory.reloadRecords()
        } catch {
            publish(database: "failing: \(error)")
            return
        }
        publish(database: "ok")
        let ids = Set(records.map(\.id))
        for board in held.keys where !ids.contains(board) {
            await stopRoom(board, handoff: RoomHandoff(url: nil, reason: "this board was deleted"), release: true)
        }
        // The first round only announces this node, so that nodes starting together see each other
        // before they claim anything.
        guard ticks > 1 else { return }
        for record in records {
            guard !leaving else { return }
            guard let assigned = Rendezvous.owner(of: record.id, among: view.nodes) else { continue }
            if assigned.id == coordinator.nodeID {
                let lease = view.leases[record.id]
                if held[record.id] == nil, claims[record.id] == nil, lease?.isExpired ?? true {
                    _ = await claimAndOpen(record)
                }
            } else if held[record.id] != nil, !stopping.contains(record.id) {
                logger.info(
                    "handing a board over", metadata: ["board": "\(record.id)", "to": "\(assigned.id)"])
                await stopRoom(
                    record.id,
                    handoff: RoomHandoff(
                        url: assigned.url, reason: "this board moved to another server of the cluster; reconnect there"
                    ),
                    release: true)
            }
        }
        publish(database: "ok")
    }

    // MARK: Routing

    /// Where a `hello` for `board` goes: refused like a wrong key unless its key opens the board or
    /// it was `admitted` already (a person's).
    public func route(board: String, key: String?, admitted: Bool) async -> BoardRoute {
        if let room = directory.registry.room(board) { return .local(room) }
        guard let record = directory.record(board), admitted || directory.keys(of: record).role(for: key) != nil else {
            return .refused
        }
        let me = ClusterNode(id: coordinator.nodeID, url: publicURL)
        let deadline = ContinuousClock.now + routeTimeout
        while ContinuousClock.now < deadline {
            if leaving { break }
            if let room = directory.registry.room(board) { return .local(room) }
            if claims[board] != nil || stopping.contains(board) {
                try? await Task.sleep(for: .milliseconds(50))
                continue
            }
            let current: (lease: BoardLease, holder: ClusterNode?)?
            do {
                current = try await coordinator.lease(of: board)
            } catch {
                return .redirect(url: nil, reason: "this server cannot reach the database; try again")
            }
            if let current, !current.lease.isExpired {
                if let holder = current.holder, holder.id != me.id {
                    return .redirect(url: holder.url, reason: "another server of the cluster sequences this board")
                }
                // Held here while its room starts or stops, or by a node that stopped sending
                // heartbeats: its lease runs out soon.
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            let assigned = Rendezvous.owner(of: board, among: view?.nodes ?? [me]) ?? me
            guard assigned.id == me.id else {
                return .redirect(url: assigned.url, reason: "another server of the cluster sequences this board")
            }
            if let room = await claimAndOpen(record) { return .local(room) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return .redirect(url: nil, reason: "this board is moving between servers; try again")
    }

    // MARK: Claims and handoffs

    /// Claims a board and starts its room; `nil` when another node holds it or it cannot be loaded.
    func claimAndOpen(_ record: BoardRecord) async -> Room? {
        if held[record.id] != nil, let room = directory.registry.room(record.id) { return room }
        if let claim = claims[record.id] { return await claim.value }
        let task = Task { await self.claim(record) }
        claims[record.id] = task
        let room = await task.value
        claims[record.id] = nil
        return room
    }

    private func claim(_ record: BoardRecord) async -> Room? {
        guard !leaving, held[record.id] == nil else { return directory.registry.room(record.id) }
        let epoch: Int
        do {
            guard let claimed = try await coordinator.claim(record.id) else { return nil }
            epoch = claimed
        } catch {
            logger.warning("claiming a board failed", metadata: ["board": "\(record.id)", "error": "\(error)"])
            return nil
        }
        // A room of an earlier lease of this node may still be finishing.
        await directory.waitUntilStopped(record.id)
        guard !leaving, let room = directory.open(record, epoch: epoch) else {
            try? await coordinator.release(record.id, epoch: epoch)
            return nil
        }
        held[record.id] = epoch
        logger.info("board claimed", metadata: ["board": "\(record.id)", "epoch": "\(epoch)"])
        publish(database: nil)
        return room
    }

    /// Stops a board's room (its members are redirected by `handoff`) and, when `release`, lets
    /// the lease go once the store has written everything the room handed it.
    private func stopRoom(_ board: String, handoff: RoomHandoff, release: Bool) async {
        guard let epoch = held[board], stopping.insert(board).inserted else { return }
        directory.registry.room(board)?.post(.relinquish(handoff))
        await directory.waitUntilStopped(board)
        if release {
            await drainStore()
            do {
                try await coordinator.release(board, epoch: epoch)
            } catch {
                logger.warning("releasing a lease failed; it runs out", metadata: ["board": "\(board)"])
            }
        }
        held[board] = nil
        stopping.remove(board)
        publish(database: nil)
    }

    private func drainStore() async {
        guard let store = directory.store else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                store.drain()
                done.resume()
            }
        }
    }

    private func publish(database: String?) {
        let peers = (view?.nodes ?? []).filter { $0.id != coordinator.nodeID }
        let boards = held.keys.sorted()
        statusBox.withLock { status in
            status.peers = peers
            status.boards = boards
            if let database { status.database = database }
        }
    }
}
