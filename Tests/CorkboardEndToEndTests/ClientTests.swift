import CorkboardClient
import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Synchronization
import Testing

/// The client's own contract: refused joins, message delivery, close.
@Suite("BoardClient")
struct ClientTests {
    let ids = DemoIDs(board: "b1")

    @Test("A bad key, an unknown board and a dead port fail the join with what went wrong")
    func refusedJoins() async throws {
        try await withServer { server in
            do {
                _ = try await server.connect("b1", name: "Eve", key: "wrong")
                Issue.record("joined with a wrong key")
            } catch let error as BoardClientError {
                #expect(error.code == .refused, "\(error)")
                #expect(error.serverError?.code == .badKey, "\(error)")
                #expect(error.closeCode == CloseCode.badKey, "\(error)")
            }
            do {
                _ = try await server.connect("nowhere", name: "Eve")
                Issue.record("joined a board that does not exist")
            } catch let error as BoardClientError {
                // Alike with a wrong key: the answer does not tell which board ids exist.
                #expect(error.serverError?.code == .badKey, "\(error)")
                #expect(error.closeCode == CloseCode.badKey, "\(error)")
                #expect(
                    error.serverError?.message
                        == "The key opens neither editing nor viewing nowhere; check the share link.")
            }
            do {
                _ = try await server.client.connect(
                    BoardConnection.Options(url: "ws://127.0.0.1:1/ws", board: "b1", timeout: .seconds(5)))
                Issue.record("joined through a closed port")
            } catch let error as BoardClientError {
                #expect(error.code == .connectFailed, "\(error)")
            }
            #expect(server.client.connectionCount == 0)
        }
    }

    @Test("A refusal that closes the connection before anyone waits still reads as the refusal")
    func refusalBeforeTheWait() async throws {
        try await withServer { server in
            // What a starved task sees: the server refuses and the link closes before the wait starts.
            let connection = try server.client.open(server.options("nowhere", name: "Eve"))
            #expect(await eventually { connection.state.isClosed })
            do {
                try await connection.waitUntilJoined()
                Issue.record("a refused connection counted as joined")
            } catch let error as BoardClientError {
                #expect(error.code == .refused, "\(error)")
                #expect(error.serverError?.code == .badKey, "\(error)")
                #expect(error.closeCode == CloseCode.badKey, "\(error)")
            }
            // A condition the closed state meets is answered with it; any other fails as closed.
            let final = try await connection.wait("the close") { $0.isClosed }
            #expect(final.lastClose?.code == CloseCode.badKey)
            await #expect(throws: BoardClientError.self) { try await connection.wait("a welcome") { _ in false } }
        }
    }

    @Test("Message streams and the onMessage handler see every op in seq order; close finishes streams")
    func deliversMessages() async throws {
        try await withServer { server in
            let seen = Mutex<[Int]>([])
            var options = server.options("b1", name: "Ada")
            options.onMessage = { message in
                if case .op(let op) = message { seen.withLock { $0.append(op.seq) } }
            }
            let ada = try await server.client.connect(options)
            let bob = try await server.connect("b1", name: "Bob")
            let stream = ada.messages()
            for n in 1...3 {
                _ = try await bob.perform(ids.toFound(n))
            }
            try await ada.wait("Ada applies seq 3") { $0.replica.confirmedSeq == 3 }
            ada.close()
            var streamed: [Int] = []
            for await message in stream {
                if case .op(let op) = message { streamed.append(op.seq) }
            }
            #expect(streamed == [1, 2, 3])
            #expect(seen.withLock { $0 } == [1, 2, 3])
            #expect(ada.state.isClosed)
            await #expect(throws: BoardClientError.self) { try await ada.resume() }
        }
    }
}
