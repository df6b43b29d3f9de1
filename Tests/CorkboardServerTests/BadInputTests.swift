import CorkboardModel
import CorkboardProtocol
import CorkboardTesting
import Testing

@testable import CorkboardServer

/// Expects one error with a code, field and ref.
func expectError(
    _ messages: [ServerMessage], _ code: ErrorCode, field: String?, ref: String?,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(messages.count == 1, "one answer, got \(messages)", sourceLocation: sourceLocation)
    guard let error = messages.first?.error else {
        Issue.record("expected error \(code.rawValue), got \(messages)", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
    #expect(error.ref == ref, "\(error)", sourceLocation: sourceLocation)
    #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
}

@Suite("Bad input through the hub and the room")
struct BadInputTests {
    /// `c` and `peer` joined through the hub, then `c` begins drag `d1` of b-gc1; returns what `c`
    /// got back.
    func joinPairAndDrag(_ h: HubHarness, _ c: ConnectionHandle, _ peer: ConnectionHandle) async throws
        -> [ServerMessage]
    {
        try await h.joinPair(c, peer)
        h.send(c, #"{"type":"dragBegin","ref":"b1","session":"d1","items":["b-gc1"]}"#)
        return await h.next(c)
    }

    @Test("before hello: every refusal names its code, field and ref, and nothing joins")
    func beforeHello() async throws {
        let h = try HubHarness()
        defer { h.shutdown() }
        let c = conn(1)
        h.hub.connected(c)
        h.send(c, "{nope")
        expectError(await h.next(c), .badJSON, field: nil, ref: nil)
        h.send(c, #"{"type":"hello","protocol":1,"board":"b","key":"edit-key","name":"A"}"#, isText: false)
        expectError(await h.next(c), .badJSON, field: nil, ref: nil)
        h.send(c, "[1,2]")
        expectError(await h.next(c), .badJSON, field: nil, ref: nil)
        h.send(c, #"{"type":"wave","ref":"r1"}"#)
        expectError(await h.next(c), .unknownType, field: "type", ref: "r1")
        h.send(c, #"{"type":"hello","ref":"r2","protocol":1,"name":"A"}"#)
        expectError(await h.next(c), .missingField, field: "board", ref: "r2")
        h.send(c, #"{"type":"hello","ref":"r3","protocol":1,"board":"b","name":"   "}"#)
        expectError(await h.next(c), .invalidField, field: "name", ref: "r3")
        h.send(c, #"{"type":"ping","ref":"r4"}"#)
        expectError(await h.next(c), .notJoined, field: nil, ref: "r4")
        #expect(h.sink.closes.isEmpty)
        #expect(await h.room.memberCount == 0)

        h.send(c, #"{"type":"hello","ref":"r5","protocol":2,"board":"b","name":"A"}"#)
        expectError(await h.next(c), .unsupportedProtocol, field: "protocol", ref: "r5")
        #expect(h.sink.closes(of: c).map(\.code) == [CloseCode.unsupportedProtocol])

        let d = conn(2)
        h.hub.connected(d)
        h.send(d, #"{"type":"hello","ref":"r6","protocol":1,"board":"nowhere","name":"A"}"#)
        // An unknown board is answered like a wrong key: the answer does not tell which ids exist.
        expectError(await h.next(d), .badKey, field: "key", ref: "r6")
        #expect(h.sink.closes(of: d).map(\.code) == [CloseCode.badKey])
        #expect(await h.room.memberCount == 0)
    }

    @Test("after hello: decoding errors reach the room with field and ref, and change nothing")
    func afterHello() async throws {
        let h = try HubHarness()
        defer { h.shutdown() }
        let (c, peer) = (conn(1), conn(2))
        let granted = try await joinPairAndDrag(h, c, peer)
        #expect(granted.first?.dragGranted?.granted == ["b-gc1"])

        let cases: [(String, ErrorCode, String?, String?)] = [
            ("{nope", .badJSON, nil, nil),
            (#"{"type":"dance","ref":"x1"}"#, .unknownType, "type", "x1"),
            (#"{"type":"dropUpdate","ref":"x2","session":"d1"}"#, .missingField, "target", "x2"),
            (
                #"{"type":"dropUpdate","ref":"x3","session":"d1","target":{"collection":"b-found","section":"b-found","index":-1,"intent":"insertAtDestinationIndexPath"}}"#,
                .invalidField, "target.index", "x3"
            ),
            (
                #"{"type":"submit","ref":"x4","opId":"o1","base":0,"op":{"kind":"move","items":["b-gc2"],"destination":{"collection":"b-found","section":"b-found","index":"one","intent":"unspecified"}}}"#,
                .invalidField, "op.destination.index", "x4"
            ),
            (
                #"{"type":"submit","ref":"x5","opId":"o1","base":0,"op":{"kind":"move","items":["b-gc2"]}}"#,
                .missingField, "op.destination", "x5"
            ),
            (
                #"{"type":"submit","ref":"x6","opId":"o1","base":0,"op":{"kind":"teleport","items":["b-gc2"]}}"#,
                .invalidField, "op.kind", "x6"
            ),
            (#"{"type":"cursor","x":1e300,"y":0}"#, .invalidField, "x", nil),
            (#"{"type":"dragEnd","ref":"x7","session":"never"}"#, .unknownSession, "session", "x7"),
            (#"{"type":"dragAdd","ref":"x8","session":"never","items":["b-gc3"]}"#, .unknownSession, "session", "x8"),
            (
                #"{"type":"drop","ref":"x9","session":"never","opId":"o9","base":0,"destination":{"collection":"b-found","section":"b-found","index":0,"intent":"unspecified"}}"#,
                .unknownSession, "session", "x9"
            ),
            (#"{"type":"dragBegin","ref":"x10","session":"d1","items":["b-gc4"]}"#, .invalidField, "session", "x10"),
            (#"{"type":"hello","ref":"x11","protocol":1,"board":"b","name":"A"}"#, .alreadyJoined, nil, "x11"),
            (#"{"type":"sync","ref":"x12","lastSeq":-3}"#, .invalidField, "lastSeq", "x12"),
        ]
        for (text, code, field, ref) in cases {
            h.send(c, text)
            let answer = await h.next(c)
            expectError(answer, code, field: field, ref: ref)
        }
        h.send(c, #"{"type":"ping"}"#, isText: false)
        expectError(await h.next(c), .badJSON, field: nil, ref: nil)

        #expect(await h.settle(peer).map(\.type) == ["dragStarted"], "the peer saw only the drag begin")
        #expect(await h.room.head == 0)
        #expect(await h.room.liveDrags.map(\.session) == ["d1"])
        #expect(await h.room.snapshot.board.itemIDs(in: "b-to-find") == (1...8).map { ItemID("b-gc\($0)") })
        #expect(h.sink.closes.isEmpty)
        #expect(h.sink.undecodable.isEmpty)
    }

    @Test("a valid session flows through the hub: join, drag, drop, ack, op, leave")
    func happyPathThroughHub() async throws {
        let h = try HubHarness()
        defer { h.shutdown() }
        let (c, peer) = (conn(1), conn(2))
        _ = try await joinPairAndDrag(h, c, peer)
        h.send(
            c,
            #"{"type":"drop","ref":"r1","session":"d1","opId":"o1","base":0,"destination":{"collection":"b-found","section":"b-found","index":0,"intent":"insertAtDestinationIndexPath"}}"#
        )
        let ack = try #require(await h.next(c).first?.ack)
        #expect(ack.ref == "r1")
        #expect(ack.outcome.committed?.seq == 1)
        let seen = await h.next(peer, count: 3)
        #expect(seen.map(\.type) == ["dragStarted", "op", "dragEnded"])
        h.hub.disconnected(c)
        await h.announced(count: 1, to: peer)
        #expect(h.hub.connectionCount == 1)
    }

    @Test("more than 20 invalid messages in 10 s close the connection 1008, before and after hello")
    func invalidMessageLimit() async throws {
        let h = try HubHarness()
        defer { h.shutdown() }
        let (stranger, member) = (conn(1), conn(2))
        h.hub.connected(stranger)
        for _ in 1...20 { h.send(stranger, "{") }
        #expect(h.sink.closes.isEmpty)
        h.clock.advance(by: .seconds(11))
        for _ in 1...20 { h.send(stranger, "{") }
        #expect(h.sink.closes.isEmpty, "the first 20 fell out of the window")
        h.send(stranger, "{")
        #expect(h.sink.closes(of: stranger).map(\.code) == [CloseCode.policyViolation])

        try #require(await h.join(member) != nil)
        for n in 1...20 { h.send(member, #"{"type":"dragEnd","session":"s\#(n)"}"#) }
        _ = await h.next(member, count: 20)
        #expect(h.sink.closes(of: member).isEmpty)
        h.send(member, "[]")
        _ = await h.next(member)
        #expect(await h.sink.wait { h.sink.closes(of: member).map(\.code) == [CloseCode.policyViolation] })
    }

    @Test("room level: more than 20 invalid events in the window close 1008")
    func invalidLimitInRoom() async throws {
        let h = RoomHarness()
        await h.join(conn(1))
        let error = ProtocolError(.badJSON, "nope")
        await h.room.process(Array(repeating: RoomEvent.invalid(conn(1), error), count: 20))
        #expect(h.sink.closes.isEmpty)
        #expect(h.sink.take(conn(1)).count == 20)
        await h.process(.invalid(conn(1), error))
        #expect(h.sink.closes(of: conn(1)).map(\.code) == [CloseCode.policyViolation])
        // The last error is delivered before the close: only a slow client's backlog is dropped.
        #expect(h.sink.closes(of: conn(1)).map(\.discardingPending) == [false])
        #expect(h.sink.take(conn(1)).count == 1)
    }

    @Test("item lists over ProtocolLimits are refused naming the field")
    func hugeItemLists() async throws {
        let h = try HubHarness()
        defer { h.shutdown() }
        let c = conn(1)
        try #require(await h.join(c) != nil)
        let many = (0...ProtocolLimits.maxItemsPerDrag).map { "\"i\($0)\"" }.joined(separator: ",")
        h.send(c, #"{"type":"dragBegin","ref":"big","session":"d1","items":[\#(many)]}"#)
        expectError(await h.next(c), .invalidField, field: "items", ref: "big")
        let newItems = (0...ProtocolLimits.maxItemsPerDrag).map { _ in #"{"representations":[]}"# }.joined(
            separator: ",")
        h.send(
            c,
            #"{"type":"submit","ref":"ins","opId":"o1","base":0,"op":{"kind":"insert","items":[\#(newItems)],"destination":{"collection":"b-inbox","section":"b-inbox","index":0,"intent":"unspecified"}}}"#
        )
        expectError(await h.next(c), .invalidField, field: "op.items", ref: "ins")
        let external = (0...ProtocolLimits.maxExternalItems).map { _ in #"["public.url"]"# }.joined(separator: ",")
        h.send(c, #"{"type":"dragBegin","ref":"ext","session":"d2","items":[],"external":[\#(external)]}"#)
        expectError(await h.next(c), .invalidField, field: "external", ref: "ext")
        #expect(await h.room.liveDrags.isEmpty)
        #expect(await h.room.head == 0)
    }

    @Test("dragAdd past the per-drag item limit is refused and the drag keeps its items")
    func dragAddOverLimit() async throws {
        let h = RoomHarness()
        await h.join(conn(1))
        await h.dragBegin(conn(1), "d1", [h.gc(1)])
        let items = (0..<ProtocolLimits.maxItemsPerDrag).map { ItemID("x\($0)") }
        await h.send(conn(1), .dragAdd(.init(ref: "add", session: "d1", items: items)))
        expectError(h.sink.take(conn(1)), .invalidField, field: "items", ref: "add")
        #expect(await h.room.liveDrags.first?.items == [h.gc(1)])
    }

    @Test("a connection that never says hello is closed 4001 after the hello timeout")
    func helloTimeout() async throws {
        let h = try HubHarness(configuration: RoomConfiguration(helloTimeout: .seconds(10)))
        defer { h.shutdown() }
        h.hub.connected(conn(1))
        try #require(await h.join(conn(2)) != nil)
        h.clock.advance(by: .seconds(9))
        h.hub.closeSilentConnections()
        #expect(h.sink.closes.isEmpty)
        h.clock.advance(by: .seconds(2))
        h.hub.closeSilentConnections()
        #expect(h.sink.closes.map(\.code) == [CloseCode.helloTimeout])
        #expect(h.sink.closes.first?.handle == conn(1))
        #expect(h.sink.take(conn(1)).first?.error?.code == .notJoined)
    }
}
