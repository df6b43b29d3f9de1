import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardTesting
import Foundation
import Synchronization
import Testing

/// R14 over real sockets: boards larger than every per-connection bound (the room's 8 MiB, the
/// transport's 16 MiB) are joined, synced and read slowly without a close; the size limit refuses
/// growth past it.
@Suite("R14 big boards end to end", .serialized)
struct BigBoardTests {
    static let cardBytes = 800_000

    /// A card of `cardBytes` as 16 representations of 50,000 bytes (a value may hold at most
    /// `ProtocolLimits.maxValueBytes`).
    static func card(_ letter: Character) -> [Representation] {
        let part = String(repeating: letter, count: 50_000)
        return Array(repeating: Representation(type: "public.plain-text", value: part), count: cardBytes / 50_000)
    }

    /// Fills `board`'s inbox with `count` cards of ~800 KB through one editor; returns the editor.
    static func fill(_ server: TestServer, board: String, count: Int) async throws -> BoardConnection {
        let editor = try await server.client.connect(
            BoardConnection.Options(
                url: server.url, board: board, key: BoardSpec.editKey(board), name: "Filler", timeout: .seconds(60),
                liveness: TestServer.liveness))
        let inbox = DemoIDs(board: board)
        for n in 0..<count {
            let outcome = try await editor.perform(
                .insert(
                    BoardOperation.Insert(
                        items: [NewItem(representations: Self.card(Character(UnicodeScalar(UInt8(65 + n % 26)))))],
                        destination: Destination(collection: inbox.inbox, section: inbox.inboxSection, index: 0))))
            try #require(outcome.committed != nil, "insert \(n): \(outcome)")
        }
        return editor
    }

    @Test("A 24 MiB board is joined fresh and through sync with a snapshot, in parts, without a close")
    func joinAndSyncBigBoard() async throws {
        try await withServer([.demo("big")], rooms: .fast(logRetention: 4)) { server in
            let editor = try await Self.fill(server, board: "big", count: 30)
            let room = try server.room("big")
            let size = await room.snapshot.board.estimatedSnapshotBytes
            #expect(size > 24_000_000, "the board is \(size) bytes")

            let started = ContinuousClock.now
            let joiner = try await server.client.connect(
                BoardConnection.Options(
                    url: server.url, board: "big", key: BoardSpec.viewKey("big"), name: "Fresh",
                    timeout: .seconds(60), liveness: TestServer.liveness))
            let joinTime = ContinuousClock.now - started
            let load = try #require(joiner.state.snapshotLoad)
            #expect(load.isComplete && load.parts >= 30 && load.bytes > 24_000_000)
            #expect(joiner.state.connectionLosses == 0)
            try await expectInStep(joiner, with: room)
            print("joined a \(size)-byte board in \(load.parts) parts in \(joinTime)")

            // The editor's log no longer reaches seq 0: a sync gets the board, in parts.
            let syncStart = ContinuousClock.now
            let answer = try await editor.request(.sync(ClientMessage.Sync(lastSeq: 0)), timeout: .seconds(60))
            guard case .synced(let synced) = answer else {
                Issue.record("sync answered \(answer.type)")
                return
            }
            #expect(synced.snapshot == nil && synced.ops == nil)
            let parts = try #require(synced.snapshotParts)
            try await editor.wait("the synced board to arrive", timeout: .seconds(60)) {
                $0.snapshotLoads == 1 && $0.snapshotLoad?.isComplete == true
            }
            print("synced the board in \(parts.parts) parts in \(ContinuousClock.now - syncStart)")
            #expect(editor.state.connectionLosses == 0)
            try await expectInStep(editor, with: room)
            #expect(await room.memberCount == 2)
        }
    }

    @Test("A joiner reading at ~2 MiB/s gets a 24 MiB board, and the ops committed meanwhile, without a close")
    func slowReader() async throws {
        try await withServer([.demo("slow")]) { server in
            let editor = try await Self.fill(server, board: "slow", count: 30)
            let room = try server.room("slow")
            // Its own client: the throttle stalls that client's service thread, as a slow device would.
            let slowClient = try BoardClient(logger: testLogger("slow-client"))
            defer { Task { await slowClient.shutdown() } }
            let throttle = Throttle(bytesPerSecond: 2 << 20)
            let started = ContinuousClock.now
            let joiner = try slowClient.open(
                BoardConnection.Options(
                    url: server.url, board: "slow", key: BoardSpec.viewKey("slow"), name: "Slow", timeout: .seconds(60),
                    liveness: TestServer.liveness, onMessage: { throttle.received($0) }))
            // While the board travels (its first parts arrived), the editor keeps working.
            try #require(await eventually("the first snapshot parts to arrive") { throttle.bytes > 0 })
            let ids = DemoIDs(board: "slow")
            for n in 1...5 {
                _ = try await editor.perform(ids.toFound(n))
            }
            try await joiner.waitUntilJoined(timeout: .seconds(40))
            let elapsed = ContinuousClock.now - started
            print("a 2 MiB/s reader joined a \(throttle.bytes)-byte board in \(elapsed)")
            #expect(elapsed > .seconds(8), "the reader was not throttled")
            #expect(joiner.state.connectionLosses == 0, "\(String(describing: joiner.state.lastClose))")
            try await expectInStep(joiner, with: room)
            #expect(joiner.replica.confirmedSeq == (await room.head))
            joiner.close()
        }
    }

    @Test("An insert that would pass the board's limit is refused too-large, naming it; the default is 64 MiB")
    func sizeLimit() async throws {
        #expect(RoomConfiguration().sequencer.maxSnapshotBytes == 64 << 20)
        var rooms = RoomConfiguration.fast()
        rooms.sequencer.maxSnapshotBytes = 4 << 20
        try await withServer([.demo("capped")], rooms: rooms) { server in
            let editor = try await Self.fill(server, board: "capped", count: 5)
            let peer = try await server.connect("capped", name: "Peer")
            let room = try server.room("capped")
            let head = await room.head
            let ids = DemoIDs(board: "capped")
            let outcome = try await editor.perform(
                .insert(
                    BoardOperation.Insert(
                        items: [
                            NewItem(representations: Self.card("z"))
                        ], destination: Destination(collection: ids.inbox, section: ids.inboxSection, index: 0))))
            let rejection = try #require(outcome.rejection)
            #expect(rejection.code == .tooLarge)
            #expect(rejection.message.contains("4 MiB") && rejection.message.contains("4194304 bytes"))
            #expect(await room.head == head)
            try await expectInStep(editor, with: room)
            try await expectInStep(peer, with: room)
        }
    }
}

/// Makes a client's service thread read at most `bytesPerSecond` of snapshot parts by sleeping in
/// its message handler (the bytes counted are the parts' content, close to their size on the wire).
final class Throttle: Sendable {
    private let state = Mutex<(start: ContinuousClock.Instant?, bytes: Int)>((nil, 0))
    let bytesPerSecond: Int

    init(bytesPerSecond: Int) { self.bytesPerSecond = bytesPerSecond }

    var bytes: Int { state.withLock { $0.bytes } }

    func received(_ message: ServerMessage) {
        guard case .snapshotPart(let part) = message else { return }
        let (start, total) = state.withLock { state in
            state.start = state.start ?? ContinuousClock.now
            state.bytes += part.contentBytes
            return (state.start!, state.bytes)
        }
        let due = start + .microseconds(Int64(Double(total) / Double(bytesPerSecond) * 1_000_000))
        let now = ContinuousClock.now
        if due > now {
            let wait = (due - now).components
            Thread.sleep(forTimeInterval: Double(wait.seconds) + Double(wait.attoseconds) / 1e18)
        }
    }
}

extension ServerMessage.SnapshotPart {
    /// About the part's size: its items' ids and representations.
    var contentBytes: Int {
        func size(_ item: Item) -> Int {
            item.representations.reduce(item.id.rawValue.utf8.count + 40) { $0 + $1.value.utf8.count + 30 }
                + (item.children ?? []).reduce(0) { $0 + size($1) }
        }
        return append.reduce(0) { total, entry in
            switch entry {
            case .collections(let collections):
                total
                    + collections.reduce(0) { $0 + $1.sections.reduce(0) { $0 + $1.items.reduce(0) { $0 + size($1) } } }
            case .sections(_, let sections): total + sections.reduce(0) { $0 + $1.items.reduce(0) { $0 + size($1) } }
            case .items(_, let items), .children(_, let items): total + items.reduce(0) { $0 + size($1) }
            }
        }
    }
}
