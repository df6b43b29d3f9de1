import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// Issue 7 at the room: an operation is acknowledged and broadcast only once the store committed
/// it; when storing fails, its sender is refused (`store-failed`), nobody else sees it, and the
/// room returns to its durable state.
struct DurabilityTests {
    @Test("the ack and the op broadcast wait for the store, and go out once the append completes")
    func acksWaitForDurability() async throws {
        let r = try DurabilityRoom()
        await r.joinBoth()
        await r.submitMove(from: r.alice, opId: "a1")
        #expect(r.store.appendedSeqs == [[1]], "one append for the batch")
        #expect(r.sink.takeEvents(r.alice).isEmpty, "no ack before the store committed")
        #expect(r.sink.takeEvents(r.bob).isEmpty, "no broadcast before the store committed")
        #expect(await r.room.head == 1, "the room sequences on while the store writes")

        await r.complete(0)
        let ack = try #require(r.sink.takeMessages(r.alice).compactMap(durabilityAck).first)
        #expect(ack.opId == "a1")
        #expect(ack.outcome.committed?.seq == 1)
        #expect(r.sink.takeMessages(r.bob).compactMap(durabilityOp).map(\.seq) == [1])
    }

    @Test("a batch with several operations is one append; its outputs go out together")
    func oneAppendPerBatch() async throws {
        let r = try DurabilityRoom()
        await r.joinBoth()
        let move = { (card: Int, opId: String) -> RoomEvent in
            .message(
                r.alice,
                .submit(
                    ClientMessage.Submit(
                        opId: opId, base: 0,
                        op: .move(
                            .init(
                                items: [ItemID("d-gc\(card)")],
                                destination: Destination(collection: "d-found", section: "d-found", index: 0))))))
        }
        await r.room.process([move(1, "a1"), move(2, "a2"), move(3, "a3")])
        #expect(r.store.appendedSeqs == [[1, 2, 3]])
        #expect(r.sink.takeEvents(r.alice).isEmpty)
        await r.complete(0)
        #expect(r.sink.takeMessages(r.alice).compactMap(durabilityAck).map(\.opId) == ["a1", "a2", "a3"])
        #expect(r.sink.takeMessages(r.bob).compactMap(durabilityOp).map(\.seq) == [1, 2, 3])
    }

    @Test(
        "ephemeral outputs of later batches wait behind a pending batch, in order; with nothing pending they go at once"
    )
    func laterOutputsWaitBehind() async throws {
        let r = try DurabilityRoom()
        await r.joinBoth()
        await r.ping(from: r.bob, ref: "p0")
        #expect(r.sink.takeMessages(r.bob).map(\.type) == ["pong"], "nothing pending: sent at once")

        await r.submitMove(from: r.alice, opId: "a1")
        await r.ping(from: r.bob, ref: "p1")
        await r.join(ConnectionHandle(rawValue: 3), "cy")
        await r.room.process([.tick])
        #expect(r.sink.takeEvents(r.bob).isEmpty, "the pong and membersChanged wait behind the pending op")
        #expect(r.sink.takeEvents(ConnectionHandle(rawValue: 3)).isEmpty, "so does a welcome built on the pending op")
        await r.submitMove(from: r.alice, opId: "a2", card: 2)
        #expect(r.store.appendedSeqs == [[1], [2]])

        await r.complete(0)
        #expect(r.sink.takeMessages(r.bob).map(\.type) == ["op", "pong", "membersChanged"])
        let welcome = r.sink.takeMessages(ConnectionHandle(rawValue: 3))
        #expect(welcome.map(\.type) == ["welcome", "membersChanged"], "the tick announced cy to everyone")
        #expect(r.sink.takeMessages(r.alice).compactMap(durabilityAck).map(\.opId) == ["a1"], "a2 is not durable yet")

        await r.complete(1)
        #expect(r.sink.takeMessages(r.alice).compactMap(durabilityAck).map(\.opId) == ["a2"])
        #expect(r.sink.takeMessages(r.bob).compactMap(durabilityOp).map(\.seq) == [2])
        #expect(r.sink.takeMessages(ConnectionHandle(rawValue: 3)).compactMap(durabilityOp).map(\.seq) == [2])
    }

    @Test("a failed append: the sender gets store-failed, peers get nothing, the room returns to the durable seq")
    func failureRollsBack() async throws {
        let r = try DurabilityRoom()
        await r.joinBoth()
        await r.submitMove(from: r.alice, opId: "a1")
        #expect(await r.room.head == 1)
        let durableBoard = try Board(collections: BoardTemplate.demo.collections(board: "d"))

        await r.complete(0, error: diskFull)
        let acks = r.sink.takeMessages(r.alice).compactMap(durabilityAck)
        #expect(acks.count == 1)
        let rejection = try #require(acks.first?.outcome.rejection)
        #expect(acks.first?.opId == "a1")
        #expect(acks.first?.ref == "a1")
        #expect(rejection.code == .storeFailed)
        #expect(rejection.message.contains("disk is full"), "the sender learns why: \(rejection.message)")
        #expect(r.sink.takeEvents(r.bob).isEmpty, "no op reaches the peer")
        #expect(await r.room.head == 0)
        #expect(await r.room.snapshot.board == durableBoard)

        // The next operation takes the next durable seq and goes through.
        await r.submitMove(from: r.alice, opId: "a2")
        #expect(r.store.appendedSeqs == [[1], [1]])
        await r.complete(1)
        #expect(r.sink.takeMessages(r.alice).compactMap(durabilityAck).map { $0.outcome.committed?.seq } == [1])
        #expect(r.sink.takeMessages(r.bob).compactMap(durabilityOp).map(\.opId) == ["a2"])
        // The refused operation is decided afresh if resent (rejections are not remembered as outcomes).
        await r.submitMove(from: r.alice, opId: "a1", card: 2)
        await r.complete(2)
        #expect(r.sink.takeMessages(r.alice).compactMap(durabilityAck).map { $0.outcome.committed?.seq } == [2])
    }

    @Test("a failure drops every batch sequenced on top of the failed one; each of their senders is refused")
    func failureDropsLaterBatches() async throws {
        let r = try DurabilityRoom()
        await r.joinBothWithFirstMoveDurable()

        await r.submitMove(from: r.alice, opId: "a2", card: 2)
        await r.submitMove(from: r.bob, opId: "b1", card: 3)
        await r.ping(from: r.bob, ref: "p")
        #expect(r.store.appendedSeqs == [[1], [2], [3]])
        await r.complete(1, error: diskFull)
        let aliceAcks = r.sink.takeMessages(r.alice).compactMap(durabilityAck)
        #expect(aliceAcks.map(\.opId) == ["a2"])
        #expect(aliceAcks.first?.outcome.rejection?.code == .storeFailed)
        let bobMessages = r.sink.takeMessages(r.bob)
        #expect(bobMessages.compactMap(durabilityOp).isEmpty, "neither a2 nor b1 is broadcast")
        #expect(bobMessages.compactMap(durabilityAck).map(\.opId) == ["b1"])
        #expect(bobMessages.compactMap(durabilityAck).first?.outcome.rejection?.code == .storeFailed)
        #expect(bobMessages.map(\.type).contains("pong"), "ephemeral answers still go out")
        #expect(await r.room.head == 1)
    }

    @Test("the completion of a batch dropped by a rollback does not touch batches sequenced after it")
    func staleCompletionIsIgnored() async throws {
        let r = try DurabilityRoom()
        await r.joinBoth()
        await r.submitMove(from: r.alice, opId: "a1")  // append 0: seq 1
        await r.submitMove(from: r.alice, opId: "a2", card: 2)  // append 1: seq 2, on top of seq 1
        await r.complete(0, error: diskFull)  // the room rolls back to seq 0; a1 and a2 are refused
        #expect(
            r.sink.takeMessages(r.alice).compactMap(durabilityAck).map { $0.outcome.rejection?.code } == [
                .storeFailed, .storeFailed,
            ])
        #expect(await r.room.head == 0)

        await r.submitMove(from: r.alice, opId: "a3", card: 3)  // append 2: seq 1 again
        await r.submitMove(from: r.alice, opId: "a4", card: 4)  // append 3: seq 2 again
        #expect(r.store.appendedSeqs == [[1], [2], [1], [2]])
        // The store fails append 1 too (it no longer follows the stored seq), then commits 2 and 3.
        await r.complete(1, error: StoreError(.io, "Operations of d from seq 2 do not follow the stored seq 0."))
        #expect(r.sink.takeEvents(r.alice).isEmpty, "a3 and a4 are neither refused nor acked yet")
        #expect(await r.room.head == 2)
        await r.complete(2)
        await r.complete(3)
        let acks = r.sink.takeMessages(r.alice).compactMap(durabilityAck)
        #expect(acks.map(\.opId) == ["a3", "a4"])
        #expect(acks.map { $0.outcome.committed?.seq } == [1, 2])
        #expect(r.sink.takeMessages(r.bob).compactMap(durabilityOp).map(\.opId) == ["a3", "a4"])
        // The durable board kept up: the next op is seq 3 and still goes through.
        await r.submitMove(from: r.alice, opId: "a5", card: 5)
        #expect(r.store.appendedSeqs.last == [3])
        await r.complete(4)
        #expect(r.sink.takeMessages(r.alice).compactMap(durabilityAck).map { $0.outcome.committed?.seq } == [3])
    }

    @Test("a resent, already durable operation is answered even when a pending batch before its answer fails")
    func resendAnsweredAcrossAFailure() async throws {
        let r = try DurabilityRoom()
        await r.joinBothWithFirstMoveDurable()

        await r.submitMove(from: r.bob, opId: "b1", card: 2)  // pending
        await r.submitMove(from: r.alice, opId: "a1")  // a resend: its first outcome, held behind b1
        await r.complete(1, error: diskFull)
        let acks = r.sink.takeMessages(r.alice).compactMap(durabilityAck)
        #expect(acks.map(\.opId) == ["a1"], "the resend gets an answer")
        #expect(acks.first?.outcome.committed?.seq == 1, "its first outcome, which is durable")
    }

    @Test("a resend of an operation still being stored is answered with it: committed if stored, refused if not")
    func resendOfPendingOperation() async throws {
        for fails in [false, true] {
            let r = try DurabilityRoom()
            await r.joinBoth()
            await r.submitMove(from: r.alice, opId: "a1")
            await r.submitMove(from: r.alice, opId: "a1")
            #expect(r.store.appendedSeqs == [[1]], "the resend sequenced nothing")
            #expect(r.sink.takeEvents(r.alice).isEmpty, "no answer before the store decided")
            await r.complete(0, error: fails ? diskFull : nil)
            let acks = r.sink.takeMessages(r.alice).compactMap(durabilityAck)
            #expect(acks.map(\.opId) == ["a1", "a1"], "both submits are answered")
            if fails {
                #expect(acks.allSatisfy { $0.outcome.rejection?.code == .storeFailed })
            } else {
                #expect(acks.allSatisfy { $0.outcome.committed?.seq == 1 })
            }
            #expect(r.sink.takeMessages(r.bob).compactMap(durabilityOp).count == (fails ? 0 : 1))
        }
    }

    @Test("a member that joined on top of an operation that then failed is closed so it starts over")
    func welcomeOnFailedStateCloses() async throws {
        let r = try DurabilityRoom()
        await r.joinBoth()
        await r.submitMove(from: r.alice, opId: "a1")
        let cy = ConnectionHandle(rawValue: 3)
        await r.join(cy, "cy")
        await r.complete(0, error: diskFull)
        #expect(r.sink.takeEvents(cy) == [.closed(code: CloseCode.internalError)])
        // Bob learns cy joined (ephemeral, still delivered) but sees no op.
        let bob = r.sink.takeMessages(r.bob)
        #expect(bob.compactMap(durabilityOp).isEmpty)
    }

    @Test("a snapshot of the durable board is handed to the store every snapshotInterval operations, and at stop")
    func snapshotsEveryInterval() async throws {
        let r = try DurabilityRoom(snapshotInterval: 3)
        await r.joinBoth()
        var boards: [Int: Board] = [:]
        for i in 1...7 {
            await r.submitMove(from: r.alice, opId: "a\(i)", card: (i - 1) % 8 + 1)
            await r.complete(i - 1)
            boards[i] = await r.room.snapshot.board
        }
        let saved = r.store.snapshots
        #expect(saved.map(\.snapshot.seq) == [3, 6])
        // The store keeps as much of the log behind each snapshot as the resume log holds: all of it here.
        #expect(saved.allSatisfy { $0.board == "d" && $0.retainingLog == $0.snapshot.seq })
        #expect(saved.allSatisfy { $0.snapshot.board == boards[$0.snapshot.seq] })

        // A failed batch does not count: the snapshot holds only durable operations.
        await r.submitMove(from: r.alice, opId: "a8", card: 8)
        await r.complete(7, error: diskFull)
        #expect(r.store.snapshots.count == 2)

        // Stopping the room saves the durable head.
        let running = Task { await r.room.run() }
        r.room.stop()
        await running.value
        #expect(r.store.snapshots.map(\.snapshot.seq) == [3, 6, 7])
        #expect(r.store.snapshots.last?.snapshot.board == boards[7])
    }
}
