import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// Joins cost the other members O(1) however full the board is: a welcome lists a bounded number
/// of members, peers learn of joins and leaves in one `membersChanged` per tick, and the rest of
/// the members are fetched on demand (`listMembers`).
@Suite("Presence at scale")
struct PresenceScaleTests {
    /// A room with `count` members (connections 1…count), every join announced and drained.
    static func crowd(_ count: Int) async -> RoomHarness {
        let h = RoomHarness()
        for n in 1...count { await h.join(conn(UInt64(n)), name: "P\(n)") }
        await h.process(.tick)
        for n in 1...count { _ = h.sink.take(conn(UInt64(n))) }
        return h
    }

    static func bytes(_ message: ServerMessage) -> Int { WireCodec.encode(message).bytes.count }

    @Test("A welcome on a board of 600 lists 32 members (drag holders first, the joiner last) and the count")
    func boundedWelcome() async throws {
        let h = await Self.crowd(600)
        // A late joiner holds a drag: a newcomer must be able to name them.
        await h.dragBegin(conn(550), "d1", [h.gc(1)])
        let welcome = try #require(await h.join(conn(601), name: "Newcomer"))
        #expect(welcome.memberCount == 601)
        #expect(welcome.members.count == ProtocolLimits.welcomeMembers)
        #expect(welcome.members.first?.name == "P550", "the drag holder comes first")
        #expect(welcome.members.last == welcome.member, "the joiner comes last")
        #expect(Set(welcome.members.map(\.id)).count == welcome.members.count, "nobody twice")
        #expect(welcome.drags.map(\.member) == [welcome.members[0].id])
    }

    @Test("Joins cost each other member one message per tick, of the same size (but for id digits) on 20 or 600")
    func joinCostIsConstant() async throws {
        var sizes: [Int] = []
        for count in [20, 600] {
            let h = await Self.crowd(count)
            await h.join(conn(UInt64(count + 1)), name: "Newcomer")
            await h.join(conn(UInt64(count + 2)), name: "Other")
            #expect(h.sink.take(conn(1)).isEmpty, "nothing before the tick")
            await h.process(.tick)
            for n in 1...count {
                let got = h.sink.take(conn(UInt64(n)))
                #expect(got.count == 1, "one message for both joins")
                if n == 1 {
                    let changes = try #require(got.first?.membersChanged)
                    #expect(changes.joined.map(\.name) == ["Newcomer", "Other"])
                    #expect(changes.count == count + 2)
                    #expect(changes.left.isEmpty)
                    sizes.append(
                        Self.bytes(
                            .membersChanged(
                                ServerMessage.MembersChanged(
                                    count: 0, joined: changes.joined, left: changes.left, more: changes.more))))
                }
            }
        }
        // Only the digits of the ids differ ("m21" against "m601", client ids): a few bytes.
        #expect(sizes.count == 2 && sizes[1] - sizes[0] <= 8, "the announcement does not grow with the board: \(sizes)")
    }

    @Test("A burst of 100 joins is one membersChanged listing 32, with more; joining and leaving in a tick is silent")
    func burstIsCapped() async throws {
        let h = await Self.crowd(3)
        for n in 4...103 { await h.join(conn(UInt64(n)), name: "B\(n)") }
        await h.join(conn(200), name: "Brief")
        await h.process(.leave(conn(200)))
        await h.process(.leave(conn(2)))
        await h.process(.tick)
        let got = h.sink.take(conn(1))
        #expect(got.count == 1)
        let changes = try #require(got.first?.membersChanged)
        #expect(changes.count == 102)
        #expect(changes.joined.count == ProtocolLimits.rosterJoins)
        #expect(changes.more == true)
        #expect(changes.left.count == 1, "the brief member is never announced; member 2's leave is")
        #expect(!changes.joined.contains { $0.name == "Brief" })
    }

    @Test("listMembers pages through everyone once, in join order, and finds members by id")
    func listMembersPages() async throws {
        let h = await Self.crowd(250)
        var seen: [String] = []
        var after: String?
        var pages = 0
        repeat {
            await h.send(conn(1), .listMembers(.init(ref: "p\(pages)", after: after, limit: 100)))
            let list = try #require(h.sink.take(conn(1)).compactMap(\.memberList).first)
            #expect(list.ref == "p\(pages)")
            #expect(list.count == 250)
            seen += list.members.map(\.name)
            after = list.next
            pages += 1
        } while after != nil && pages < 10
        #expect(pages == 3)
        #expect(seen == (1...250).map { "P\($0)" })

        let welcome = try #require(await h.join(conn(251), name: "Late"))
        await h.send(conn(1), .listMembers(.init(ref: "ids", ids: [welcome.member.id, "m9999"])))
        let byID = try #require(h.sink.take(conn(1)).compactMap(\.memberList).first)
        #expect(byID.members.map(\.name) == ["Late"], "unknown ids are left out")
    }

    @Test("listMembers with both ids and after, or an out-of-range limit, is refused and changes nothing")
    func listMembersBadInput() throws {
        for text in [
            #"{"type":"listMembers","ref":"a","ids":["m1"],"after":"m2"}"#,
            #"{"type":"listMembers","ref":"b","limit":0}"#,
            #"{"type":"listMembers","ref":"c","limit":201}"#,
            #"{"type":"listMembers","ref":"d","ids":[]}"#,
            #"{"type":"listMembers","ref":"e","ids":"m1"}"#,
        ] {
            do {
                let message = try WireCodec.decodeClientMessage(Array(text.utf8))
                Issue.record("\(text) decoded as \(message)")
            } catch {
                #expect(error.code == .invalidField, "\(text): \(error)")
            }
        }
    }
}
