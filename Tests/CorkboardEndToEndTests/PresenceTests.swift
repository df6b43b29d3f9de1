import CorkboardClient
import CorkboardProtocol
import Testing

/// Presence over sockets (issue 17): a welcome on a full board lists a bounded number of members,
/// peers learn of joins in one `membersChanged` per tick, and `listMembers` fetches the rest.
@Suite("Presence end to end")
struct PresenceTests {
    @Test("On a board of 45 a welcome lists 32 and the count; every join is announced; listMembers pages to all")
    func boundedPresence() async throws {
        try await withServer { server in
            let first = try await server.connect("b1", name: "P1")
            var others: [BoardConnection] = []
            for n in 2...44 { others.append(try await server.connect("b1", name: "P\(n)")) }
            let late = try await server.connect("b1", name: "Late")
            let welcome = try #require(late.state.welcome)
            #expect(welcome.memberCount == 45)
            #expect(welcome.members.count == ProtocolLimits.welcomeMembers)
            #expect(welcome.members.last?.name == "Late")

            // How many joins share a message depends on timing; the room tests count them exactly.
            try await first.wait("the first member hears of all 45") { $0.memberCount == 45 }
            let changes = first.state.history.compactMap { message -> ServerMessage.MembersChanged? in
                if case .membersChanged(let m) = message { m } else { nil }
            }
            #expect(changes.allSatisfy { $0.joined.count <= ProtocolLimits.rosterJoins })
            let announced = changes.flatMap(\.joined).map(\.name)
            #expect(announced.count == 45 && Set(announced).count == 45, "every join was announced, once")

            var names: [String] = []
            var after: String?
            repeat {
                let page = try await late.listMembers(after: after, limit: 20)
                #expect(page.count == 45)
                names += page.members.map(\.name)
                after = page.next
            } while after != nil && names.count < 100
            #expect(names == (1...44).map { "P\($0)" } + ["Late"])
            #expect(late.state.members.count == 45, "the pages taught the client everyone")

            others[0].close()
            try await late.wait("a leave reaches the others") { $0.memberCount == 44 }
            #expect(!late.state.members.contains { $0.name == "P2" })
        }
    }
}
