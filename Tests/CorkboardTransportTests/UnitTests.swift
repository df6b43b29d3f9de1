import CorkboardTesting
import Synchronization
import Testing

@testable import CorkboardTransport

@Suite struct ConnectionQueueTests {
    /// Reference: the bytes a naive one-frame-per-write sender would produce.
    static func naive(_ frames: [OutboundFrame]) -> [UInt8] { frames.flatMap(\.encoded) }

    /// Parses server frames back into (opcode, fin, payload) triples.
    static func parse(_ bytes: [UInt8]) -> [(UInt8, Bool, [UInt8])] {
        var out: [(UInt8, Bool, [UInt8])] = []
        var i = 0
        while i < bytes.count {
            let fin = bytes[i] & 0x80 != 0
            let op = bytes[i] & 0x0F
            var len = Int(bytes[i + 1] & 0x7F)
            i += 2
            if len == 126 {
                len = Int(bytes[i]) << 8 | Int(bytes[i + 1])
                i += 2
            } else if len == 127 {
                len = (0..<8).reduce(0) { $0 << 8 | Int(bytes[i + $1]) }
                i += 8
            }
            out.append((op, fin, Array(bytes[i..<(i + len)])))
            i += len
        }
        return out
    }

    @Test func smallFramesAreBatchedIntoOneWrite() {
        var q = ConnectionQueue()
        let frames = (0..<50).map { OutboundFrame(text: "frame \($0)") }
        for f in frames { q.append(f) }
        let buf = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
        defer { buf.deallocate() }
        let (n, popped) = q.fill(buf, capacity: 4096)
        #expect(popped == 50 && q.isEmpty && q.queuedBytes == 0)
        #expect(Array(UnsafeBufferPointer(start: buf, count: n)) == Self.naive(frames))
    }

    @Test func bigFrameIsFragmentedAcrossWritesAndReassemblesExactly() {
        var q = ConnectionQueue()
        let big = OutboundFrame(binary: (0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let small = OutboundFrame(text: "after")
        q.append(OutboundFrame(text: "before"))
        q.append(big)
        q.append(small)
        let cap = 8192
        let buf = UnsafeMutablePointer<UInt8>.allocate(capacity: cap)
        defer { buf.deallocate() }
        var stream: [UInt8] = []
        var writes = 0
        while !q.isEmpty && writes < 100 {
            let (n, _) = q.fill(buf, capacity: cap)
            #expect(n > 0 && n <= cap)
            stream += UnsafeBufferPointer(start: buf, count: n)
            writes += 1
        }
        let frames = Self.parse(stream)
        #expect(frames.first?.2 == Array("before".utf8))
        #expect(frames.last?.2 == Array("after".utf8))
        let middle = frames.dropFirst().dropLast()
        #expect(middle.first?.0 == 2 && middle.dropFirst().allSatisfy { $0.0 == 0 })
        #expect(middle.dropLast().allSatisfy { !$0.1 } && middle.last?.1 == true)
        #expect(middle.flatMap(\.2).elementsEqual((0..<100_000).map { UInt8(truncatingIfNeeded: $0) }))
    }

    @Test func aFrameInPiecesGoesOutLikeTheSameFrameInOnePiece() {
        // Pieces of every size class around the header's length boundaries (125/126, 65535/65536),
        // empty pieces among them, written whole and fragmented at many batch capacities.
        let payload = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for cuts in [[0, 70_000], [10, 125, 126, 60_000], [0, 0, 65_535, 65_536], [1, 2, 3, 69_999]] {
            var pieces: [[UInt8]] = []
            var from = 0
            for cut in cuts + [payload.count] {
                pieces.append(Array(payload[from..<max(from, cut)]))
                from = max(from, cut)
            }
            let whole = OutboundFrame(binary: payload)
            for capacity in [100_000, 8192, 1500, 64] {
                var one = ConnectionQueue()
                var many = ConnectionQueue()
                one.append(whole)
                many.append(OutboundFrame(utf8: pieces))
                #expect(one.queuedBytes == many.queuedBytes)
                let buf = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
                defer { buf.deallocate() }
                var a: [UInt8] = []
                var b: [UInt8] = []
                while !one.isEmpty {
                    a += UnsafeBufferPointer(start: buf, count: one.fill(buf, capacity: capacity).bytes)
                }
                while !many.isEmpty {
                    b += UnsafeBufferPointer(start: buf, count: many.fill(buf, capacity: capacity).bytes)
                }
                let (x, y) = (Self.parse(a), Self.parse(b))
                // Same fragments and payload bytes; only the first frame's opcode differs (binary vs text).
                #expect(x.count == y.count && x.map(\.1) == y.map(\.1) && x.map(\.2) == y.map(\.2))
                #expect(y.first?.0 == 1 && y.dropFirst().allSatisfy { $0.0 == 0 })
                #expect(x.flatMap(\.2) == payload)
            }
        }
    }

    @Test func sharedPiecesAreNotCopiedIntoTheFrame() {
        let board = Array(repeating: UInt8(ascii: "x"), count: 4096)
        let frame = OutboundFrame(utf8: [Array("{\"a\":".utf8), board, [UInt8(ascii: "}")]])
        let original = board.withUnsafeBufferPointer { $0.baseAddress }
        #expect(frame.tail[0].withUnsafeBufferPointer { $0.baseAddress } == original)
        #expect(frame.payloadCount == 4096 + 6 && frame.encodedCount == frame.payloadCount + 4)
    }

    @Test func queuedBytesOfManyConnectionsMatchesEachBacklog() {
        // Two shards' outboxes, filled by hand (no threads started): ids carry their shard.
        let server = WebSocketServer(configuration: ServerConfiguration(port: 0, threads: 2), logger: testLogger())
        var ids: [ConnectionID] = []
        for shard in 0..<2 {
            for n in 1...3 {
                let id = ConnectionID(rawValue: ShardIndex.base(shard) + UInt64(n))
                server.shards[shard].outbox.withLock { ob in
                    ob.register(id)
                    for k in 0..<n {
                        _ = ob.enqueue(OutboundFrame(text: String(repeating: "x", count: 10 * k + shard)), to: id)
                    }
                }
                ids.append(id)
            }
        }
        let unknown = ConnectionID(rawValue: ShardIndex.base(1) + 99)
        let asked = [ids[4], unknown, ids[0], ids[5], ids[2], ids[1], ids[3]]
        let bytes = server.queuedBytes(of: asked)
        #expect(bytes == asked.map { server.backlog(of: $0).bytes })
        #expect(bytes[1] == 0 && bytes.filter { $0 > 0 }.count == 6)
    }

    @Test func outboxClosesSlowConsumerAtTheBound() {
        var ob = Outbox(maxQueuedBytes: 1 << 20, maxQueuedFrames: 3)
        let id = ConnectionID(rawValue: 1)
        ob.register(id)
        let f = OutboundFrame(text: "x")
        var results: [Outbox.EnqueueResult] = []
        for _ in 0..<4 { results.append(ob.enqueue(f, to: id)) }
        #expect(results == [.queued, .queued, .queued, .overflow])
        #expect(ob.totalQueuedFrames == 0 && ob.slowConsumerCount == 1)
        let drained = ob.drain()
        #expect(drained.kill == [id])
    }

    @Test func wakeRequestsCoalesce() {
        var ob = Outbox(maxQueuedBytes: 1 << 20, maxQueuedFrames: 100)
        let first = ob.takeWakeRequest()
        let second = ob.takeWakeRequest()
        _ = ob.drain()
        let afterDrain = ob.takeWakeRequest()
        #expect(first && !second && afterDrain)
    }

    @Test func outputTakenBetweenReadsLeavesTheRestForTheWake() {
        var ob = Outbox(maxQueuedBytes: 1 << 20, maxQueuedFrames: 2)
        let (a, b, c, d) = (
            ConnectionID(rawValue: 1), ConnectionID(rawValue: 2), ConnectionID(rawValue: 3), ConnectionID(rawValue: 4)
        )
        for id in [a, b, c, d] { ob.register(id) }
        let woken = ob.takeWakeRequest()
        #expect(woken)
        for _ in 0..<3 { _ = ob.enqueue(OutboundFrame(text: "x"), to: a) }  // over the bound: closing
        _ = ob.enqueue(OutboundFrame(text: "y"), to: b)
        _ = ob.enqueue(OutboundFrame(text: "y"), to: b)
        _ = ob.enqueue(OutboundFrame(text: String(repeating: "z", count: 100)), to: c)  // more than one write
        _ = ob.enqueue(OutboundFrame(text: "w"), to: d)  // the connection being read
        let taken = ob.takeDirty(fittingIn: 64, except: d)
        #expect(taken == [b], "only queues that go out in one write, with no close, not the one being read")
        let again = ob.takeDirty(fittingIn: 64, except: d)
        #expect(again.isEmpty)
        let wakeAgain = ob.takeWakeRequest()
        #expect(!wakeAgain, "the wake is still pending")
        #expect(ob.queues[b]?.count == 2, "taking the list writes nothing by itself")
        _ = ob.enqueue(OutboundFrame(text: "v"), to: c)  // still listed: listed once
        _ = ob.enqueue(OutboundFrame(text: "v"), to: b)  // taken before: listed again (and now over the bound)
        let drained = ob.drain()
        #expect(drained.dirty == [a, c, d, b] && drained.kill == [a, b], "the wake does the rest")
    }
}

@Suite struct PolicyTests {
    @Test func ownOriginsByDefault() {
        let p = OriginPolicy(allowedOrigins: [], allowMissing: true, usesTLS: false)
        #expect(p.allows(origin: "http://127.0.0.1:8080", port: 8080, hostHeader: nil))
        #expect(p.allows(origin: "http://localhost:8080/", port: 8080, hostHeader: nil))
        #expect(p.allows(origin: "http://board.lan:8080", port: 8080, hostHeader: "board.lan:8080"))
        #expect(!p.allows(origin: "http://evil.example", port: 8080, hostHeader: "board.lan:8080"))
        #expect(!p.allows(origin: "https://127.0.0.1:8080", port: 8080, hostHeader: nil))
        #expect(p.allows(origin: nil, port: 8080, hostHeader: nil))
    }

    @Test func mimeTypes() {
        #expect(MIME.type(forPath: "/w/app.js").hasPrefix("text/javascript"))
        #expect(MIME.type(forPath: "/w/a.CSS").hasPrefix("text/css"))
        #expect(MIME.type(forPath: "/w/i.svg") == "image/svg+xml")
        #expect(MIME.type(forPath: "/w/f.woff2") == "font/woff2")
        #expect(MIME.type(forPath: "/w/p.webp") == "image/webp")
        #expect(MIME.type(forPath: "/w.d/noext") == "application/octet-stream")
    }

    @Test func staticPathsNeverEscapeTheRoot() {
        let s = StaticFiles(root: "/tmp")
        #expect(s.resolve("/../etc/passwd") == nil)
        #expect(s.resolve("/a/../../etc/passwd") == nil)
        #expect(s.resolve("/.hidden") == nil)
        #expect(s.resolve("relative") == nil)
    }

    @Test func urls() throws {
        #expect(
            try WebSocketURL(parsing: "ws://127.0.0.1:8080/ws?room=7")
                == WebSocketURL(tls: false, host: "127.0.0.1", port: 8080, path: "/ws?room=7"))
        #expect(
            try WebSocketURL(parsing: "wss://example.com")
                == WebSocketURL(tls: true, host: "example.com", port: 443, path: "/"))
        #expect(throws: TransportError.self) { try WebSocketURL(parsing: "http://x/ws") }
        #expect(throws: TransportError.self) { try WebSocketURL(parsing: "ws://:99999/") }
    }

    @Test func backoffDoublesUpToTheCapAndGivesUp() {
        let p = ReconnectPolicy.exponentialBackoff(
            initialDelay: .milliseconds(100), maxDelay: .seconds(1), maxAttempts: 5, jitter: 0.5)
        #expect(p.delay(beforeAttempt: 1, random: 0) == .milliseconds(100))
        #expect(p.delay(beforeAttempt: 3, random: 0) == .milliseconds(400))
        #expect(p.delay(beforeAttempt: 5, random: 0) == .seconds(1))
        #expect(p.delay(beforeAttempt: 2, random: 1) == .milliseconds(300))
        #expect(p.delay(beforeAttempt: 6, random: 0) == nil)
        #expect(ReconnectPolicy.none.delay(beforeAttempt: 1) == nil)
    }
}
