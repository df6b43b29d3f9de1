import CorkboardApp
import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import CorkboardServer
import CorkboardTesting
import CorkboardTransport
import Foundation
import Testing

/// Resume, resends and slow consumers over real sockets (R10, R11).
@Suite("Resume end to end")
struct ResumeTests {
    let ids = DemoIDs(board: "b1")

    @Test("R10: resuming within the retained log replays the missed operations and resends pending ones")
    func resumeWithoutGap() async throws {
        try await withAdaAndBob { server, ada, bob, room in

            bob.disconnect()
            for n in 1...3 { _ = try await ada.perform(ids.toFound(n)) }
            // Made while offline: applied to Bob's view at once, sent after the resume.
            let offline = try bob.submit(ids.toFound(4), opId: "offline")
            #expect(bob.replica.view.itemIDs(in: ids.foundSection)?.first == ids.gc(4))
            #expect(bob.replica.pending.map(\.opId) == [offline])

            try await bob.resume()
            #expect(bob.state.joinedWith == .operations(count: 3))
            try await expectInStep(bob, with: room)
            #expect(bob.items(in: ids.foundSection) == ids.cards(4, 3, 2, 1, 9, 10))
            try await expectInStep(ada, with: room)

            // A submit whose ack is lost with the link: resent after the resume, applied once.
            _ = try bob.submit(ids.toFound(5), opId: "maybe-lost")
            bob.disconnect()
            try await bob.resume()
            try await expectInStep(bob, with: room)
            let head = await room.head
            #expect(head == 5)
            let synced = try await bob.request(.sync(ClientMessage.Sync(lastSeq: 0)))
            guard case .synced(let log) = synced else {
                Issue.record("expected synced, got \(synced.type)")
                return
            }
            #expect(log.ops?.count { $0.opId == "maybe-lost" } == 1)
        }
    }

    @Test("R10: resuming past the retained log gets a snapshot, then resends pending operations")
    func resumeWithGap() async throws {
        try await withServer(rooms: .fast(logRetention: 2)) { server in
            let ada = try await server.connect("b1", name: "Ada")
            let bob = try await server.connect("b1", name: "Bob")
            let room = try server.room("b1")

            bob.disconnect()
            for n in 1...6 { _ = try await ada.perform(ids.toFound(n)) }
            _ = try bob.submit(ids.toFound(7), opId: "offline")
            try await bob.resume()
            #expect(bob.state.joinedWith == .snapshot(seq: 6))
            try await expectInStep(bob, with: room)
            #expect(bob.items(in: ids.foundSection) == ids.cards(7, 6, 5, 4, 3, 2, 1, 9, 10))
            #expect(await room.head == 7)
        }
    }

    @Test("R10: resending an opId returns the first outcome and applies nothing twice")
    func duplicateOpIdResend() async throws {
        try await withAdaAndBob { server, ada, bob, room in

            let first = try await ada.perform(ids.toFound(1), opId: "dup")
            let committed = try #require(first.committed)
            // The same operation again answers the first outcome; another operation under the
            // used opId is refused conflict (R14), never answered with the first one's result.
            for (op, same) in [(ids.toFound(1), true), (ids.toFound(2), false)] {
                let again = try await ada.request(
                    .submit(ClientMessage.Submit(opId: "dup", base: committed.seq, op: op)))
                guard case .ack(let ack) = again else {
                    Issue.record("expected an ack, got \(again.type)")
                    continue
                }
                if same {
                    #expect(ack.outcome == first)
                } else {
                    #expect(ack.outcome.rejection?.code == .conflict)
                }
            }
            // A drop resent after its drag ended answers the first outcome too.
            _ = try await ada.beginDrag(session: "d", items: [ids.gc(3)])
            let drop = Destination(collection: ids.found, section: ids.foundSection, index: 0)
            let dropped = try await ada.drop(session: "d", destination: drop, opId: "drop-dup")
            let resent = try await ada.request(
                .drop(ClientMessage.Drop(session: "d", opId: "drop-dup", base: 0, destination: drop)))
            guard case .ack(let resentAck) = resent else {
                Issue.record("expected an ack, got \(resent.type)")
                return
            }
            #expect(resentAck.outcome == dropped.outcome)

            _ = try await ada.perform(ids.toFound(4), opId: "after")
            try await bob.wait("Bob sees the last operation") { state in
                state.history.contains { if case .op(let c) = $0 { c.opId == "after" } else { false } }
            }
            let opIDs = bob.received { if case .op(let c) = $0 { c.opId } else { nil } }
            #expect(opIDs == ["dup", "drop-dup", "after"])
            #expect(await room.head == 3)
            try await expectInStep(ada, with: room)
            try await expectInStep(bob, with: room)
        }
    }

    @Test("R11: a client that stops reading is closed, then resumes without losing a committed operation")
    func slowConsumerResumes() async throws {
        // A short retained log: the missed updates (megabytes, to fill the socket buffers) come back
        // as one snapshot below the close bound; replaying them as ops would be closed as too slow again.
        var rooms = RoomConfiguration.fast(
            slowClientBytes: 16 * 1024, slowClientCloseBytes: 64 * 1024, logRetention: 4)
        // The writer commits as fast as its acks return until the kernel's socket buffers are
        // full, which takes more than the default burst of 40 operations: rate limits are
        // another test's subject.
        rooms.rateLimits = .off
        try await withServer(rooms: rooms, configure: { $0.slowConsumerKillAfter = .seconds(1) }) { server in
            let writer = try await server.connect("b1", name: "Writer")
            let room = try server.room("b1")

            // The slow client joins over a raw socket with a tiny receive buffer. Its blocking
            // reads run on threads of their own (`nextFrame`), never on the rooms' cooperative ones.
            let port = server.service.boundPort
            let raw = try await io { try RawWebSocket(port: port) }
            try raw.send(.hello(ClientMessage.Hello(board: "b1", key: BoardSpec.editKey("b1"), name: "Slow")))
            var welcome: ServerMessage.Welcome?
            while welcome == nil, let frame = try await raw.nextFrame() {
                if case .text(let bytes) = frame, case .welcome(let w) = try WireCodec.decodeServerMessage(bytes) {
                    welcome = w
                }
            }
            let joined = try #require(welcome)
            let snapshot = try #require(joined.snapshot)
            var replica = ClientReplica(clientId: joined.member.clientId, board: snapshot.board, seq: snapshot.seq)
            // One operation whose ack the slow client will never read.
            let envelope = replica.submitLocal(ids.toFound(1), opId: "slow-op")
            try raw.send(.submit(ClientMessage.Submit(opId: "slow-op", base: envelope.base, op: envelope.op)))
            try await writer.wait("the writer sees the slow member") {
                $0.members.contains { $0.id == joined.member.id }
            }

            // The raw client stops reading; the writer commits large updates until the room drops it.
            // Alone this takes a second or two; the bound in time is generous because the whole
            // suite runs in parallel on two cores, where this loop may get a small share of them.
            let started = ContinuousClock.now
            var updates = 0
            while writer.state.members.contains(where: { $0.id == joined.member.id }),
                ContinuousClock.now - started < .seconds(60), updates < 2_000
            {
                updates += 1
                let text = String(repeating: "update \(updates) ", count: 2_000)
                _ = try await writer.perform(
                    .updateItem(
                        BoardOperation.UpdateItem(
                            item: ids.gc(3), representations: [Representation(type: "corkboard.card", value: text)])))
            }
            try await writer.wait("the room closes the slow member", timeout: .seconds(20)) {
                !$0.members.contains { $0.id == joined.member.id }
            }

            // What reached the socket ends with the close (or the socket was dropped).
            var close: (code: Int?, reason: String)?
            while close == nil, let frame = try await raw.nextFrame() {
                if case .close(let code, let reason) = frame { close = (code, reason) }
            }
            if let close {
                #expect(close.code == CloseCode.policyViolation, "closed \(close.code.map(String.init) ?? "-")")
                #expect(close.reason.contains("too slow"))
            }

            // It resumes with its client id and last seq and resends the unanswered operation.
            let resumed = try await server.client.connect(
                server.options("b1", name: "Slow", replica: replica, resumeToken: joined.resumeToken))
            #expect(resumed.clientId == joined.member.clientId)
            #expect(resumed.state.joinedWith == .snapshot(seq: await room.head))
            try await expectInStep(resumed, with: room)
            #expect(resumed.items(in: ids.foundSection).first == ids.gc(1))
            let slowOps = writer.received { if case .op(let c) = $0, c.opId == "slow-op" { c } else { nil } }
            #expect(slowOps.count == 1)
            try await expectInStep(writer, with: room)
        }
    }
}

@Suite("Automatic resume end to end")
struct AutomaticResumeTests {
    @Test("R10: with a reconnect policy, a connection closed 1008 resumes by itself and resends")
    func reconnectPolicyResumes() async throws {
        try await withServer { server in
            let ids = DemoIDs(board: "b1")
            var options = server.options("b1", name: "Ada")
            options.reconnect = .exponentialBackoff(
                initialDelay: .milliseconds(20), maxDelay: .milliseconds(200), maxAttempts: 5, jitter: 0)
            let ada = try await server.client.connect(options)
            let room = try server.room("b1")

            // More invalid messages than the room tolerates: it closes the connection 1008.
            for number in 0...21 { ada.send(.dragEnd(ClientMessage.DragEnd(session: "none-\(number)"))) }
            let closed = try await ada.wait("the room closes Ada") { $0.connectionLosses > 0 }
            #expect(closed.lastClose?.code == CloseCode.policyViolation)
            #expect(closed.lastClose?.willReconnect == true)
            // Made while the link is down: resent after the automatic resume.
            let opId = try ada.submit(ids.toFound(1))
            try await ada.waitUntilJoined()
            #expect(ada.state.joinCount == 2)
            try await expectInStep(ada, with: room)
            #expect(ada.items(in: ids.foundSection).first == ids.gc(1))
            #expect(await room.head == 1, "\(opId) applied once")
        }
    }
}
