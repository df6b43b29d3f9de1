import CorkboardPostgres
import CorkboardServer
import CorkboardStorage
import CorkboardTesting
import Foundation
import Testing

/// Node membership, leases and messages in PostgreSQL, with the database's clock.
@Suite("Cluster coordination", .enabled(if: TestPostgres.enabled))
struct ClusterCoordinatorTests {
    @Test("heartbeats list the live nodes; a lease is exclusive, renewed by its holder, and claimable once it runs out")
    func leases() async throws {
        try await TestPostgres.withStore { url, store in
            try store.add(record("b"))
            let a = try PostgresCluster(url: url, leaseDuration: .milliseconds(1500), logger: TestPostgres.logger)
            let b = try PostgresCluster(url: url, leaseDuration: .milliseconds(1500), logger: TestPostgres.logger)
            // A node is live for a lease (1.5 s) after its heartbeat: on a loaded machine b's first
            // heartbeat (its connection opening) may come later than that, so a beats again.
            var seen: Set<String> = []
            for _ in 0..<10 where seen != ["ws://a/ws", "ws://b/ws"] {
                _ = try await a.heartbeat(url: "ws://a/ws", renewing: [:])
                seen = Set(try await b.heartbeat(url: "ws://b/ws", renewing: [:]).nodes.map(\.url))
            }
            #expect(seen == ["ws://a/ws", "ws://b/ws"])

            let epoch = try #require(try await a.claim("b"))
            #expect(try await b.claim("b") == nil, "a valid lease is exclusive")
            #expect(try await a.claim("nope") == nil, "only boards of the catalog have leases")
            _ = try await a.heartbeat(url: "ws://a/ws", renewing: ["b": epoch])
            let held = try #require(try await b.lease(of: "b"))
            #expect(held.lease.owner == a.nodeID && !held.lease.isExpired)
            #expect(held.holder?.url == "ws://a/ws")

            // Renewed within its duration, the lease stays a's.
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(600))
                let renewed = try await a.heartbeat(url: "ws://a/ws", renewing: ["b": epoch])
                #expect(renewed.renewed["b"] == epoch)
                #expect(try await b.claim("b") == nil)
            }
            // a stops renewing (a pause): after the lease runs out, b claims the next epoch...
            try await Task.sleep(for: .milliseconds(1700))
            let taken = try #require(try await b.claim("b"))
            #expect(taken == epoch + 1)
            // ...and a's renewal no longer renews it: a finds out it lost the board.
            let late = try await a.heartbeat(url: "ws://a/ws", renewing: ["b": epoch])
            #expect(late.renewed["b"] == nil)
            #expect(late.leases["b"]?.owner == b.nodeID)

            // Leaving releases every lease at once and removes the node.
            await b.leave()
            #expect(try await a.claim("b") == taken + 1)
            let after = try await a.heartbeat(url: "ws://a/ws", renewing: ["b": taken + 1])
            #expect(after.nodes.map(\.id) == [a.nodeID])
        }
    }

    @Test("messages between nodes arrive in order, also those sent before the receiver listened")
    func messages() async throws {
        try await TestPostgres.withDatabase { url in
            _ = try PostgresBoardStore.migrate(url: url, logger: TestPostgres.logger)
            let a = try PostgresCluster(url: url, logger: TestPostgres.logger)
            let b = try PostgresCluster(url: url, logger: TestPostgres.logger)
            try await a.send(Array("early".utf8), to: b.nodeID)
            let listening = Task { await b.run() }
            defer { listening.cancel() }
            for n in 0..<20 { try await a.send(Array("m\(n)".utf8), to: b.nodeID) }
            var received: [String] = []
            for await body in b.incoming {
                received.append(String(decoding: body, as: UTF8.self))
                if received.count == 21 { break }
            }
            #expect(received == ["early"] + (0..<20).map { "m\($0)" })
        }
    }

    @Test("rendezvous hashing spreads boards over nodes and moves only the boards of a node that leaves")
    func rendezvous() {
        let nodes = (1...3).map { ClusterNode(id: "n-\($0)", url: "ws://\($0)/ws") }
        let boards = (0..<300).map { "board-\($0)" }
        let owners = boards.map { Rendezvous.owner(of: $0, among: nodes)!.id }
        for node in nodes {
            let count = owners.filter { $0 == node.id }.count
            #expect((60...140).contains(count), "\(node.id) owns \(count) of 300")
        }
        let fewer = boards.map { Rendezvous.owner(of: $0, among: Array(nodes.dropLast()))!.id }
        for (before, after) in zip(owners, fewer) where before != "n-3" { #expect(before == after) }
        #expect(Rendezvous.owner(of: "x", among: []) == nil)
    }
}
