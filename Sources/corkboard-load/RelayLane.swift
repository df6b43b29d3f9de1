import CorkboardLoadKit
import Histogram
import Synchronization

/// One client thread of a relay run: a ``LeanWebSocketClient`` and the connections on it, which it
/// counts and times. Connection `n` of the run lives on lane `n % lanes`, in slot `n / lanes`; the
/// first `senders` connections of the run are the senders.
final class RelayLane: LeanClientDelegate, Sendable {
    let client: LeanWebSocketClient
    let index: Int
    let lanes: Int
    let target: RelayTarget
    /// Whether receipts are timed (the measurement window is open).
    let measuring: Atomic<Bool>

    let connected = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let disconnects = Atomic<Int>(0)
    /// Messages read, and hovers among them (a y-websocket awareness message counts each state).
    let received = Atomic<Int>(0)
    let hoversSeen = Atomic<Int>(0)
    let errors = Atomic<Int>(0)
    /// Set before the run closes its connections: ends after it are not losses.
    let closing = Atomic<Bool>(false)
    private let state = Mutex(State())

    struct State {
        var latency = LoadMetrics.makeHistogram()
        var samples: [String] = []
    }

    init(index: Int, lanes: Int, target: RelayTarget) {
        self.index = index
        self.lanes = lanes
        self.target = target
        measuring = Atomic(false)
        client = LeanWebSocketClient(
            configuration: LeanClientConfiguration(connectTimeout: .seconds(20), threadName: "relay-\(index)"))
    }

    /// What the counters hold now.
    var counts: Counts {
        Counts(
            connected: connected.load(ordering: .relaxed), failed: failed.load(ordering: .relaxed),
            disconnects: disconnects.load(ordering: .relaxed), received: received.load(ordering: .relaxed),
            hoversSeen: hoversSeen.load(ordering: .relaxed), errors: errors.load(ordering: .relaxed))
    }

    /// The counters at one moment, of one lane or (``total(_:)``) of them all.
    struct Counts {
        var connected = 0
        var failed = 0
        var disconnects = 0
        var received = 0
        var hoversSeen = 0
        var errors = 0

        /// Every lane's counts, added up.
        static func total(_ lanes: [RelayLane]) -> Counts {
            lanes.map(\.counts).reduce(into: Counts()) { sum, c in
                sum.connected += c.connected
                sum.failed += c.failed
                sum.disconnects += c.disconnects
                sum.received += c.received
                sum.hoversSeen += c.hoversSeen
                sum.errors += c.errors
            }
        }
    }

    /// The run's number of the connection in `slot` of this lane.
    func connection(_ id: LeanConnectionID) -> Int { id.slot * lanes + index }

    /// The hover-to-peers latencies recorded, and the first few error descriptions.
    var results: (latency: Histogram<UInt64>, samples: [String]) { state.withLock { ($0.latency, $0.samples) } }

    func leanConnected(_ id: LeanConnectionID) {
        connected.add(1, ordering: .relaxed)
        if target == .yWebsocket { client.send(binary: YjsMessage.syncStep1OfEmptyDocument, to: id) }
    }

    func leanReceived(_ id: LeanConnectionID, _ message: UnsafeRawBufferPointer) {
        received.add(1, ordering: .relaxed)
        let now = Monotonic.nanos()
        let me = connection(id)
        switch target {
        case .lwsMirror:
            guard let (from, sent) = RelayHover.read(message) else {
                error("connection \(me) read a message that is not a hover: \(message.count) bytes")
                return
            }
            seen(from: from, sent: sent, by: me, at: now)
        case .yWebsocket:
            var unreadable = 0
            let kind = YjsMessage.read(message) { _, _, json in
                // `null` is a state removed (a connection closed); anything else must be a hover.
                guard !json.elementsEqual("null".utf8) else { return }
                guard let (from, sent) = RelayHover.read(json) else {
                    unreadable += 1
                    return
                }
                seen(from: from, sent: sent, by: me, at: now)
            }
            switch kind {
            case .awareness, .sync:
                if unreadable > 0 { error("connection \(me) read \(unreadable) awareness states that are not hovers") }
            case .other(let type):
                error("connection \(me) read a y-websocket message of unknown type \(type)")
            case .malformed:
                error("connection \(me) read a y-websocket message that does not decode (\(message.count) bytes)")
            }
        }
    }

    func leanEnded(_ id: LeanConnectionID, _ end: LeanConnectionEnd) {
        switch end {
        case .failed(let reason):
            failed.add(1, ordering: .relaxed)
            note("connection \(connection(id)) failed: \(reason)")
        case .closed(let code, let reason):
            guard !closing.load(ordering: .relaxed) else { return }
            disconnects.add(1, ordering: .relaxed)
            note("connection \(connection(id)) was lost: \(code.map { "\($0) " } ?? "")\(reason)")
        }
    }

    /// A hover from connection `from`, due at `sent`, read by connection `me` at `now`.
    private func seen(from: Int, sent: UInt64, by me: Int, at now: UInt64) {
        hoversSeen.add(1, ordering: .relaxed)
        guard from != me, measuring.load(ordering: .relaxed) else { return }
        let nanos = now > sent ? now - sent : 0
        state.withLock { $0.latency.recordNanos(nanos) }
    }

    private func error(_ text: String) {
        errors.add(1, ordering: .relaxed)
        note(text)
    }

    private func note(_ text: String) {
        state.withLock { if $0.samples.count < 5 { $0.samples.append(text) } }
    }
}
