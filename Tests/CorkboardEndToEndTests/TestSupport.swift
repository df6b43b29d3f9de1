import CorkboardApp
import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardStorage
import CorkboardStore
import CorkboardTesting
import CorkboardTransport
import Foundation
import Logging
import Testing

/// A board to create for a test: id, template, and keys `edit-<id>` / `view-<id>`.
struct BoardSpec {
    var id: String
    var template: BoardTemplate

    static func demo(_ id: String) -> BoardSpec { BoardSpec(id: id, template: .demo) }
    static func empty(_ id: String) -> BoardSpec { BoardSpec(id: id, template: .empty) }

    static func editKey(_ id: String) -> String { "edit-\(id)" }
    static func viewKey(_ id: String) -> String { "view-\(id)" }
}

extension RoomConfiguration {
    /// A short tick and sweep so tests see coalesced updates and expiries quickly. Drags keep their
    /// lease for 120 s without updates unless a test asks for less: the whole suite at once can
    /// starve a test's task for longer than the default 15 s, and only tests of expiry want it.
    static func fast(
        tick: Duration = .milliseconds(10), leaseQuietPeriod: Duration = .seconds(120),
        placeholderGracePeriod: Duration = .seconds(30),
        slowClientBytes: Int = 256 * 1024, slowClientCloseBytes: Int = 8 * 1024 * 1024, logRetention: Int = 10_000
    ) -> RoomConfiguration {
        // No busy tick: the test process's own CPU use (every test at once) would stretch it at
        // random; `TickPacingTests` cover it with a scripted gauge.
        RoomConfiguration(
            tick: tick, tickPacing: .off, sweepInterval: .milliseconds(50), leaseQuietPeriod: leaseQuietPeriod,
            placeholderGracePeriod: placeholderGracePeriod, slowClientBytes: slowClientBytes,
            slowClientCloseBytes: slowClientCloseBytes, sequencer: Sequencer.Configuration(logRetention: logRetention))
    }
}

/// A `BoardService` on 127.0.0.1 and a free port with boards in a memory catalog, plus a
/// `BoardClient` to connect to it.
final class TestServer: Sendable {
    let service: BoardService
    let client: BoardClient

    /// The SQLite store's folder when the server keeps boards durably (removed by `stop()`).
    let dataFolder: String?

    /// - Parameters:
    ///   - durable: keep boards in a SQLite store in a fresh temporary folder (as `corkboard serve`
    ///     does) instead of in memory.
    ///   - clock: the clock the rooms and the hub read and sleep on (a `ManualClock` moves by hand).
    init(
        boards: [BoardSpec], rooms: RoomConfiguration = .fast(), endpoints: HTTPEndpoints = HTTPEndpoints(),
        durable: Bool = false, clock: any BoardClock = SystemBoardClock(),
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        let catalog: any BoardCatalog
        let store: SQLiteBoardStore?
        if durable {
            let folder = try makeTemporaryFolder(prefix: "corkboard-e2e")
            store = try SQLiteBoardStore(path: SQLiteBoardStore.path(inDataFolder: folder))
            catalog = store!
            dataFolder = folder
        } else {
            store = nil
            catalog = MemoryBoardCatalog()
            dataFolder = nil
        }
        for board in boards {
            try catalog.add(
                BoardRecord(
                    id: board.id, title: "Board \(board.id)",
                    keys: BoardKeys(edit: BoardSpec.editKey(board.id), view: BoardSpec.viewKey(board.id)),
                    template: board.template, createdAt: 0))
        }
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, webRoot: nil)
        configure(&configuration)
        service = try BoardService(
            server: configuration, rooms: rooms, catalog: catalog, store: store, endpoints: endpoints, clock: clock,
            logger: testLogger("server"))
        try service.start()
        client = try BoardClient(logger: testLogger("client"))
    }

    var url: String { "ws://127.0.0.1:\(service.boundPort)/ws" }

    func room(_ id: String) throws -> Room {
        try #require(service.directory.room(id), "board \(id) has no room")
    }

    /// Options for joining `board` (with its edit key unless told otherwise), recording history.
    func options(
        _ board: String, name: String = "Tester", key: String? = nil, replica: ClientReplica? = nil,
        resumeToken: String? = nil
    ) -> BoardConnection.Options {
        BoardConnection.Options(
            url: url, board: board, key: key ?? BoardSpec.editKey(board), name: name, replica: replica,
            resumeToken: resumeToken, timeout: .seconds(10), recordsHistory: true, liveness: Self.liveness)
    }

    /// The liveness of these tests' links. Their servers run in the test process, on the
    /// cooperative pool that CPU-bound suites keep busy for seconds at a time on two cores: a
    /// server that cannot answer for that long is starved, not stalled, and the standard 5 s would
    /// drop links at random. Liveness itself is tested against servers in processes of their own
    /// (`Tests/python/test_cluster_stall.py`) and, with timings of its own, in `EntryURLTests`.
    static let liveness = BoardConnection.Liveness(
        pingAfter: .seconds(5), silenceLimit: .seconds(60), welcomeLimit: .seconds(60))

    /// Joins `board` and waits for the welcome.
    func connect(_ board: String, name: String = "Tester", key: String? = nil) async throws -> BoardConnection {
        try await client.connect(options(board, name: name, key: key))
    }

    func stop() async {
        await client.shutdown()
        await service.shutdown(timeout: .seconds(2))
        if let dataFolder { try? FileManager.default.removeItem(atPath: dataFolder) }
    }
}

/// Runs `body` with a started server, and always stops it.
func withServer(
    _ boards: [BoardSpec] = [.demo("b1")], rooms: RoomConfiguration = .fast(),
    endpoints: HTTPEndpoints = HTTPEndpoints(), durable: Bool = false, clock: any BoardClock = SystemBoardClock(),
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (TestServer) async throws -> Void
) async throws {
    let server = try TestServer(
        boards: boards, rooms: rooms, endpoints: endpoints, durable: durable, clock: clock, configure: configure)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Runs `body` with Ada and then Bob joined to board `b1` of a started server (`withServer`), and
/// the board's room.
func withAdaAndBob(
    _ body: (TestServer, _ ada: BoardConnection, _ bob: BoardConnection, Room) async throws -> Void
) async throws {
    try await withServer { server in
        let ada = try await server.connect("b1", name: "Ada")
        let bob = try await server.connect("b1", name: "Bob")
        try await body(server, ada, bob, try server.room("b1"))
    }
}

// MARK: Board helpers

/// The seed of a randomized test: `CORKBOARD_E2E_SEED`, or a new random one; printed, with how to
/// run the test again on it.
func randomizedSeed(_ test: String) -> UInt64 {
    let seed =
        ProcessInfo.processInfo.environment["CORKBOARD_E2E_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64.max)
    print("\(test) seed \(seed); rerun with CORKBOARD_E2E_SEED=\(seed)")
    return seed
}

extension DemoIDs {
    /// A move of card `n` to the front of the found collection.
    func toFound(_ n: Int) -> BoardOperation {
        .move(
            BoardOperation.Move(
                items: [gc(n)], destination: Destination(collection: found, section: foundSection, index: 0))
        )
    }
}

extension BoardConnection {
    /// The confirmed items of a section.
    func items(in section: SectionID) -> [ItemID] {
        replica.confirmed.itemIDs(in: section) ?? []
    }

    /// Received messages of one kind.
    func received<T>(_ pick: (ServerMessage) -> T?) -> [T] {
        state.history.compactMap(pick)
    }
}

/// Asserts the connection's confirmed replica equals the room's board at the same seq, with no
/// pending operation, no stream problem, and sound invariants.
func expectInStep(
    _ connection: BoardConnection, with room: Room, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let state = try await connection.settle()
    let snapshot = await room.snapshot
    #expect(state.replica.confirmedSeq == snapshot.seq, sourceLocation: sourceLocation)
    #expect(state.replica.confirmed == snapshot.board, sourceLocation: sourceLocation)
    #expect(state.replica.pending.isEmpty, sourceLocation: sourceLocation)
    #expect(state.streamProblems.isEmpty, "\(state.streamProblems)", sourceLocation: sourceLocation)
    #expect(state.replica.confirmed.checkInvariants().isEmpty, sourceLocation: sourceLocation)
    #expect(snapshot.board.checkInvariants().isEmpty, sourceLocation: sourceLocation)
}
