import CorkboardTesting
import CorkboardTransport
import Testing

@Suite(.timeLimit(.minutes(1))) struct EchoTests {
    @Test func textAndBinaryEcho() async throws {
        try await withServerAndClient(echo: true) { h, c in
            let id = try await c.connectAndWait(to: h.url)
            c.client.send(text: "hello, board", to: id)
            c.client.send(bytes: [0, 1, 2, 255], isText: false, to: id)
            #expect(await eventually { c.messages(id).count == 2 })
            let m = c.messages(id)
            #expect(m.first?.text == "hello, board" && m.first?.isText == true)
            #expect(m.last?.bytes == [0, 1, 2, 255] && m.last?.isText == false)
        }
    }

    @Test func broadcastFromAnotherThreadReachesEveryClient() async throws {
        try await withServerAndClient() { h, c in
            let ids = try (0..<20).map { _ in try c.client.connect(to: h.url) }
            #expect(await eventually { h.server.connectionCount == 20 })
            let targets = h.connectedIDs
            let server = h.server
            await Task.detached {
                for i in 0..<50 { server.broadcast(OutboundFrame(text: "b\(i)"), to: targets) }
            }.value
            #expect(await eventually { ids.allSatisfy { c.messages($0).count == 50 } })
            for id in ids { #expect(c.messages(id).map(\.text) == (0..<50).map { "b\($0)" }) }
        }
    }

    @Test func threeFragmentMessageIsReassembled() async throws {
        try await withServerAndClient() { h, c in
            let id = try await c.connectAndWait(to: h.url)
            c.client.send(
                fragments: [Array("one ".utf8), Array("two ".utf8), Array("three".utf8)], isText: true, to: id)
            #expect(await eventually { h.messages.count == 1 })
            #expect(h.messages.first?.1.text == "one two three")
            #expect(h.messages.first?.1.isText == true)
        }
    }

    @Test func bigMessagesGoOutInFragmentsAndArriveWhole() async throws {
        try await withServerAndClient(echo: true) { h, c in
            let id = try await c.connectAndWait(to: h.url)
            let big = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            c.client.send(bytes: big, isText: false, to: id)
            #expect(await eventually { c.messages(id).count == 1 })
            #expect(c.messages(id).first?.bytes.elementsEqual(big) == true)
        }
    }

    @Test func messageOverTheLimitIsClosed1009() async throws {
        try await withServerAndClient() { h, c in
            let id = try await c.connectAndWait(to: h.url)
            c.client.send(bytes: [UInt8](repeating: 7, count: (1 << 20) + 1), isText: false, to: id)
            #expect(await eventually { c.closeCode(id) != nil })
            #expect(c.closeCode(id) == .some(1009))
            #expect(h.messages.isEmpty)
        }
    }

    @Test func invalidUTF8IsClosed1007() async throws {
        try await withServerAndClient() { h, c in
            let id = try await c.connectAndWait(to: h.url)
            c.client.send(bytes: [0x68, 0x69, 0xC3, 0x28], isText: true, to: id)
            #expect(await eventually { c.closeCode(id) != nil })
            #expect(c.closeCode(id) == .some(1007))
            #expect(h.messages.isEmpty)
        }
    }

    @Test func serverCloseCodeReachesTheClient() async throws {
        try await withServerAndClient() { h, c in
            let id = try c.client.connect(to: h.url)
            #expect(await eventually { h.connectedIDs.count == 1 })
            h.server.send(OutboundFrame(text: "last words"), to: h.connectedIDs[0])
            h.server.close(h.connectedIDs[0], code: 4000, reason: "bye")
            #expect(await eventually { c.closeCode(id) != nil })
            #expect(c.closeCode(id) == .some(4000))
            #expect(c.messages(id).map(\.text) == ["last words"])
        }
    }
}
