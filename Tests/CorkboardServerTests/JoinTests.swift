import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Foundation
import Testing

@testable import CorkboardServer

@Suite("Joining a room")
struct JoinTests {
    @Test("welcome carries the snapshot, the member list and the tick; peers get membersChanged at the tick")
    func welcomeAndMembers() async throws {
        let h = RoomHarness()
        let first = try #require(await h.join(conn(1), name: "  Ada  ", ref: "hello-1"))
        await h.process(.tick)
        #expect(h.sink.take(conn(1)) == [.membersChanged(.init(count: 1, joined: [first.member], left: []))])
        #expect(first.ref == "hello-1")
        #expect(first.protocol == ProtocolLimits.version)
        #expect(first.board == BoardInfo(id: "b", title: "Board b"))
        #expect(first.member.name == "Ada")
        #expect(first.member.role == .editor)
        #expect(first.member.clientId == "client-1")
        #expect(first.head == 0)
        #expect(first.ops == nil)
        let snapshot = try #require(first.snapshot)
        #expect(snapshot.seq == 0)
        #expect(snapshot.board == (await h.snapshot).board)
        #expect(snapshot.board.itemIDs(in: h.toFind) == (1...8).map(h.gc))
        #expect(first.members == [first.member])
        #expect(first.drags.isEmpty)
        #expect(first.tickMilliseconds == 33)

        let second = try #require(await h.join(conn(2), name: "Grace"))
        #expect(second.member.id != first.member.id)
        #expect(second.member.color != first.member.color)
        #expect(second.members.map(\.id) == [first.member.id, second.member.id])
        #expect(second.memberCount == 2)
        #expect(h.sink.take(conn(1)).isEmpty, "peers hear of the join at the tick")
        await h.process(.tick)
        #expect(h.sink.take(conn(1)) == [.membersChanged(.init(count: 2, joined: [second.member], left: []))])
        _ = h.sink.take(conn(2))

        await h.process(.leave(conn(2)))
        await h.process(.tick)
        #expect(h.sink.take(conn(1)) == [.membersChanged(.init(count: 1, joined: [], left: [second.member.id]))])
        #expect(await h.room.memberCount == 1)
    }

    @Test("joiners at one seq share one encoding of the board; a change or a sweep makes a new one")
    func joinersShareTheBoardsEncoding() async throws {
        let h = RoomHarness()
        func boardPiece(_ handle: ConnectionHandle) throws -> [UInt8] {
            let delivery = try #require(h.sink.deliveries(to: handle).first { $0.message.welcome != nil })
            // The message's own JSON, the board, the closing brace.
            #expect(delivery.encoded.pieces.count == 3)
            return delivery.encoded.pieces[1]
        }
        func address(_ bytes: [UInt8]) -> UnsafePointer<UInt8>? { bytes.withUnsafeBufferPointer { $0.baseAddress } }
        let hellos = (1...3).map { n in
            RoomEvent.join(
                conn(UInt64(n)),
                ClientMessage.Hello(ref: nil, board: h.board, key: "edit-key", name: "P\(n)", clientId: "c\(n)"))
        }
        await h.room.process(hellos)
        let first = try boardPiece(conn(1))
        #expect(address(try boardPiece(conn(2))) == address(first))
        #expect(address(try boardPiece(conn(3))) == address(first))
        // (JSONEncoder's key order varies between encodings: compare what the bytes say.)
        func board(_ bytes: [UInt8]) throws -> Snapshot { try JSONDecoder().decode(Snapshot.self, from: Data(bytes)) }
        let atZero = await h.snapshot
        #expect(try board(first) == atZero)

        // The same seq in a later batch still shares it...
        _ = try #require(await h.join(conn(4), clientId: "c4"))
        #expect(address(try boardPiece(conn(4))) == address(first))
        // ...until the board changes: the next joiner gets the board as it is now.
        _ = try #require(
            await h.submit(
                conn(1), .move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0))), opId: "m1"))
        _ = try #require(await h.join(conn(5), clientId: "c5"))
        let changed = try boardPiece(conn(5))
        let atOne = await h.snapshot
        #expect(address(changed) != address(first))
        #expect(try board(changed) == atOne && atOne != atZero)
        // A sweep forgets the encoding, so an idle room holds no copy of its board.
        await h.process(.sweep)
        _ = try #require(await h.join(conn(6), clientId: "c6"))
        let afterSweep = try boardPiece(conn(6))
        #expect(address(afterSweep) != address(changed))
        #expect(try board(afterSweep) == atOne)
    }

    @Test("welcome lists the drags in progress")
    func welcomeListsDrags() async throws {
        let h = RoomHarness()
        let ada = try #require(await h.join(conn(1)))
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        let late = try #require(await h.join(conn(2)))
        #expect(late.drags == [DragState(session: "d1", member: ada.member.id, items: [h.gc(1)])])
    }

    @Test("R10: resume with a lastSeq the room still holds gets ops, not a snapshot")
    func resumeWithOps() async throws {
        let h = RoomHarness()
        await h.join(conn(1))
        for n in 1...3 {
            let ack = await h.submit(
                conn(1), .move(.init(items: [h.gc(n)], destination: h.at(h.found, h.foundSection, 0))), opId: "o\(n)")
            #expect(ack?.outcome.committed?.seq == n)
        }
        let welcome = try #require(await h.join(conn(2), clientId: "resumer", lastSeq: 1))
        #expect(welcome.head == 3)
        #expect(welcome.snapshot == nil)
        #expect(welcome.ops?.map(\.seq) == [2, 3])
        #expect(welcome.ops?.map(\.opId) == ["o2", "o3"])

        let upToDate = try #require(await h.join(conn(3), clientId: "current", lastSeq: 3))
        #expect(upToDate.ops == [])
        #expect(upToDate.snapshot == nil)
    }

    @Test("R10/R11: a resume whose operations outweigh the slow-client bound gets the smaller snapshot")
    func heavyResumeGetsSnapshot() async throws {
        let h = RoomHarness(configuration: RoomConfiguration(slowClientBytes: 4_096))
        await h.join(conn(1))
        let text = String(repeating: "x", count: 2_000)
        for n in 1...4 {
            let ack = await h.submit(
                conn(1),
                .updateItem(
                    .init(item: h.gc(1), representations: [.init(type: "corkboard.card", value: "\(n)\(text)")])),
                opId: "big\(n)")
            #expect(ack?.outcome.committed?.seq == n)
        }
        let welcome = try #require(await h.join(conn(2), clientId: "heavy", lastSeq: 0))
        #expect(welcome.ops == nil)
        #expect(welcome.snapshot?.seq == 4)
        // A light resume still gets operations.
        let light = try #require(await h.join(conn(3), clientId: "light", lastSeq: 3))
        #expect(light.ops?.map(\.seq) == [4])
    }

    @Test("R10: resume from before the retained log gets a snapshot")
    func resumeOutsideLogGetsSnapshot() async throws {
        let configuration = RoomConfiguration(sequencer: .init(outcomeRetention: 100, logRetention: 2))
        let h = RoomHarness(configuration: configuration)
        await h.join(conn(1))
        for n in 1...6 {
            await h.submit(
                conn(1), .move(.init(items: [h.gc(n)], destination: h.at(h.found, h.foundSection, 0))), opId: "o\(n)")
        }
        #expect(await h.room.head == 6)
        let welcome = try #require(await h.join(conn(2), clientId: "behind", lastSeq: 1))
        #expect(welcome.ops == nil)
        let snapshot = try #require(welcome.snapshot)
        #expect(snapshot.seq == 6)
        #expect(snapshot.board == (await h.snapshot).board)

        // A lastSeq ahead of the head is not in the log either: snapshot.
        let ahead = try #require(await h.join(conn(3), clientId: "ahead", lastSeq: 99))
        #expect(ahead.snapshot?.seq == 6)

        // sync answers the same way.
        await h.send(conn(1), .sync(.init(ref: "s1", lastSeq: 5)))
        let synced = try #require(h.sink.take(conn(1)).compactMap(\.synced).first)
        #expect(synced.ref == "s1")
        #expect(synced.ops?.map(\.seq) == [6])
        #expect(synced.snapshot == nil)
        await h.send(conn(1), .sync(.init(ref: "s2", lastSeq: 0)))
        let full = try #require(h.sink.take(conn(1)).compactMap(\.synced).first)
        #expect(full.ops == nil)
        #expect(full.snapshot?.seq == 6)
        #expect(full.head == 6)
    }

    @Test("ping answers pong with the head and the ref")
    func ping() async {
        let h = RoomHarness()
        await h.join(conn(1))
        await h.send(conn(1), .ping(.init(ref: "p1")))
        #expect(h.sink.take(conn(1)) == [.pong(.init(ref: "p1", head: 0))])
    }

    @Test("a bad key is answered bad-key and the connection closed 4003; nobody sees it")
    func badKey() async {
        let h = RoomHarness()
        await h.join(conn(1))
        await h.process(.join(conn(2), .init(ref: "h2", board: "b", key: "wrong", name: "Mallory")))
        let messages = h.sink.take(conn(2))
        #expect(messages.count == 1)
        let error = messages.first?.error
        #expect(error?.code == .badKey)
        #expect(error?.field == "key")
        #expect(error?.ref == "h2")
        #expect(h.sink.closes(of: conn(2)).map(\.code) == [CloseCode.badKey])
        #expect(h.sink.take(conn(1)).isEmpty)
        #expect(await h.room.memberCount == 1)

        // A missing key on a closed board is refused the same way.
        await h.process(.join(conn(3), .init(board: "b", key: nil, name: "Nobody")))
        #expect(h.sink.take(conn(3)).first?.error?.code == .badKey)
        #expect(h.sink.closes(of: conn(3)).map(\.code) == [CloseCode.badKey])

        // Messages still in flight from a refused connection are answered not-joined.
        await h.send(conn(2), .ping(.init(ref: "late")))
        let late = h.sink.take(conn(2)).first?.error
        #expect(late?.code == .notJoined)
        #expect(late?.ref == "late")
    }

    @Test("an open board lets a member without a key edit; its view key still opens the viewer role")
    func openBoard() async throws {
        let h = RoomHarness(keys: BoardKeys(edit: "edit-key", view: "view-key", isOpen: true))
        let anyone = try #require(await h.join(conn(1), key: nil))
        #expect(anyone.member.role == .editor)
        let ack = await h.submit(
            conn(1), .move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0))), opId: "o1")
        #expect(ack?.outcome.committed?.seq == 1)
        let wrongKey = try #require(await h.join(conn(2), key: "whatever"))
        #expect(wrongKey.member.role == .editor)
        let viewer = try #require(await h.join(conn(3), key: "view-key"))
        #expect(viewer.member.role == .viewer)
    }

    @Test("the view key opens the viewer role; a viewer's submit is acked read-only and changes nothing")
    func viewerRole() async throws {
        let h = RoomHarness()
        await h.join(conn(1))
        let viewer = try #require(await h.join(conn(2), key: "view-key"))
        #expect(viewer.member.role == .viewer)
        _ = h.sink.take(conn(1))
        let ack = try #require(
            await h.submit(
                conn(2), .move(.init(items: [h.gc(1)], destination: h.at(h.found, h.foundSection, 0))), opId: "v1"))
        #expect(ack.outcome.rejectCode == .readOnly)
        #expect(ack.ref == "ref-v1")
        #expect(await h.room.head == 0)
        #expect(h.sink.take(conn(1)).isEmpty)
    }

    @Test("the same clientId joining again replaces the old connection, closed 4000")
    func sameClientReplaces() async throws {
        let h = RoomHarness()
        await h.join(conn(1), name: "Peer")
        let old = try #require(await h.join(conn(2), clientId: "same"))
        await h.process(.tick)
        _ = h.sink.take(conn(1))
        let new = try #require(await h.join(conn(3), clientId: "same", lastSeq: 0))
        #expect(h.sink.closes(of: conn(2)).map(\.code) == [CloseCode.replaced])
        #expect(new.members.map(\.id).contains(old.member.id) == false)
        #expect(new.member.clientId == "same")
        await h.process(.tick)
        #expect(
            h.sink.take(conn(1)) == [.membersChanged(.init(count: 2, joined: [new.member], left: [old.member.id]))])
        #expect(await h.room.memberCount == 2)
        // The old connection is no member any more.
        await h.send(conn(2), .ping(.init(ref: "old")))
        #expect(h.sink.take(conn(2)).last?.error?.code == .notJoined)
    }

    @Test("a known clientId without its resumeToken is refused and closed 1008; the holder stays")
    func clientIdNeedsItsToken() async throws {
        let h = RoomHarness()
        let owner = try #require(await h.join(conn(1), clientId: "victim"))
        _ = h.sink.take(conn(1))
        for token in [nil, "r-guess"] {
            let hello = ClientMessage.Hello(
                ref: "steal", board: "b", key: "edit-key", name: "Mallory", clientId: "victim", resumeToken: token)
            await h.process(.join(conn(2), hello))
            let error = try #require(h.sink.take(conn(2)).first?.error)
            #expect(error.code == .invalidField)
            #expect(error.field == "resumeToken")
            #expect(error.ref == "steal")
        }
        #expect(h.sink.closes(of: conn(2)).map(\.code) == [CloseCode.policyViolation, CloseCode.policyViolation])
        #expect(h.sink.closes(of: conn(1)).isEmpty)
        #expect(h.sink.take(conn(1)).isEmpty)
        #expect(await h.room.memberCount == 1)
        // The holder of the token resumes (and replaces its old connection).
        let resumed = ClientMessage.Hello(
            board: "b", key: "edit-key", name: "Ada", clientId: "victim", lastSeq: 0, resumeToken: owner.resumeToken)
        await h.process(.join(conn(3), resumed))
        #expect(h.sink.take(conn(3)).first?.welcome?.member.clientId == "victim")
    }

    @Test("a second hello on a joined connection is already-joined and changes nothing")
    func secondHello() async throws {
        let h = RoomHarness()
        let welcome = try #require(await h.join(conn(1)))
        await h.send(conn(1), .hello(.init(ref: "again", board: "b", key: "edit-key", name: "Ada")))
        let error = try #require(h.sink.take(conn(1)).first?.error)
        #expect(error.code == .alreadyJoined)
        #expect(error.ref == "again")
        await h.process(.join(conn(1), .init(ref: "again2", board: "b", key: "edit-key", name: "Ada")))
        #expect(h.sink.take(conn(1)).first?.error?.code == .alreadyJoined)
        #expect(await h.room.memberCount == 1)
        #expect(await h.room.liveDrags.isEmpty)
        _ = welcome
    }
}

@Suite("R10: what a room remembers of departed clients is bounded")
struct RememberedClientsTests {
    @Test("R10: only the most recently departed clients keep their tokens and undo histories; older ones join as new")
    func departedClientsAreForgottenOldestFirst() async throws {
        var configuration = RoomConfiguration()
        configuration.rememberedClients = 3
        let h = RoomHarness(configuration: configuration)
        await h.join(conn(100), clientId: "stayer")
        // Ten clients each commit a step (so each has an undo history) and leave.
        var tokens: [String: String] = [:]
        for n in UInt64(1)...10 {
            let welcome = try #require(await h.join(conn(n), clientId: "churn-\(n)"))
            tokens["churn-\(n)"] = welcome.resumeToken
            let layout: Layout = n % 2 == 1 ? .list : .grid
            let ack = await h.submit(conn(n), .setLayout(.init(collection: h.caches, layout: layout)), opId: "op-\(n)")
            #expect(ack?.outcome.committed != nil)
            await h.process(.leave(conn(n)))
            #expect(await h.room.rememberedClientCount <= 1 + 3)
            #expect(await h.room.undoHistoryClientCount <= 1 + 3)
        }
        #expect(await h.room.rememberedClientCount == 4)
        #expect(await h.room.undoHistoryClientCount == 3)

        // A remembered departed client still needs its token.
        await h.process(
            .join(conn(20), .init(ref: "steal", board: "b", key: "edit-key", name: "M", clientId: "churn-10")))
        #expect(h.sink.take(conn(20)).first?.error?.field == "resumeToken")
        // A forgotten one joins as a new client: no history of its own steps to undo.
        await h.process(.join(conn(21), .init(board: "b", key: "edit-key", name: "Back", clientId: "churn-1")))
        let back = try #require(h.sink.take(conn(21)).compactMap(\.welcome).first)
        #expect(back.member.clientId == "churn-1")
        #expect(back.resumeToken != tokens["churn-1"])
        #expect(back.undoable == ServerMessage.Undoable(undo: false, redo: false))
    }
}
