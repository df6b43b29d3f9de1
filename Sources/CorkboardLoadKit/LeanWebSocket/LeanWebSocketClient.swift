import CLinuxShim
import Glibc
import Synchronization

/// Settings of a ``LeanWebSocketClient``; every parameter has the default documented on its property.
public struct LeanClientConfiguration: Sendable {
    /// The longest message accepted from a server; a longer one fails the connection with 1009.
    public var maxMessageBytes: Int
    /// The loop's one read buffer, shared by its connections (each `recv` asks for this much).
    public var readBufferBytes: Int
    /// Time allowed for the TCP connect plus the WebSocket handshake.
    public var connectTimeout: Duration
    /// Edge-triggered epoll (read until a short read, `EPOLLOUT` always registered) rather than
    /// level-triggered (one read per readiness, `EPOLLOUT` armed only while a write is pending).
    public var edgeTriggered: Bool
    /// Re-enter delayed-ACK mode (`TCP_QUICKACK` 0) after every read, so a read that empties the
    /// socket does not send an ACK of its own (see docs/BENCHMARKS.md for what it was measured to do).
    public var delayedAcks: Bool
    /// `SO_RCVBUF` for every connection, or nil for the kernel's default (autotuned).
    public var socketReceiveBuffer: Int?
    /// After a wake that found fewer than 64 events, sleep until this long after it before waiting
    /// again, so that each wake reads more (0: never). For experiments: it batches what the server
    /// receives and delays every receipt (docs/BENCHMARKS.md).
    public var coalesceMicroseconds: Int
    /// The loop thread's name (at most 15 bytes are kept), for `top -H` and profiles.
    public var threadName: String

    public init(
        maxMessageBytes: Int = 16 << 20,
        readBufferBytes: Int = 256 * 1024,
        connectTimeout: Duration = .seconds(20),
        edgeTriggered: Bool = true,
        delayedAcks: Bool = false,
        socketReceiveBuffer: Int? = nil,
        coalesceMicroseconds: Int = 0,
        threadName: String = "lean-ws"
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.readBufferBytes = readBufferBytes
        self.connectTimeout = connectTimeout
        self.edgeTriggered = edgeTriggered
        self.delayedAcks = delayedAcks
        self.socketReceiveBuffer = socketReceiveBuffer
        self.coalesceMicroseconds = coalesceMicroseconds
        self.threadName = threadName
    }
}

/// How a connection ended.
public enum LeanConnectionEnd: Sendable, Equatable {
    /// It never opened: refused, unreachable, timed out, or the server's answer was not a valid
    /// upgrade (an HTTP error answer names its status, e.g. `HTTP 503 Service Unavailable`).
    case failed(String)
    /// It had opened: the close code received or sent (nil when the TCP connection just ended) and
    /// the reason.
    case closed(code: Int?, reason: String)
}

/// Receives a ``LeanWebSocketClient``'s events, all on its loop thread; each call must be quick.
public protocol LeanClientDelegate: AnyObject, Sendable {
    /// The handshake of connection `id` completed.
    func leanConnected(_ id: LeanConnectionID)
    /// A whole message arrived on connection `id`. The bytes belong to the loop's read buffer
    /// (or the connection's reassembly buffer) and are valid only during the call.
    func leanReceived(_ id: LeanConnectionID, _ message: UnsafeRawBufferPointer)
    /// Connection `id` ended; nothing more comes for it.
    func leanEnded(_ id: LeanConnectionID, _ end: LeanConnectionEnd)
}

/// Identifies one connection of a ``LeanWebSocketClient``: a small number the caller picks, once
/// per connection (the load tool uses a peer's index in its lane). The client keeps its
/// connections in arrays indexed by it, so the numbers should be dense from 0.
public struct LeanConnectionID: Hashable, Sendable {
    public let slot: Int

    public init(slot: Int) { self.slot = slot }
}

/// A minimal WebSocket client for load generation: plain `ws://` only, one event-loop thread over
/// non-blocking sockets and epoll, for thousands of connections that receive many small frames.
///
/// It exists beside the libwebsockets client of `CorkboardTransport` because the load tool must
/// never be what saturates in a benchmark: it reads with large `recv`s into one buffer per loop,
/// parses the server's frames in place and hands each message over without copying it
/// (``ServerFrameReader``), and writes each connection's queued frames with one `send` per loop
/// turn. It never reconnects.
///
/// Any thread may call ``connect(to:subprotocol:id:)``, ``send(text:to:)`` and
/// ``close(_:code:reason:)``: they queue work under one mutex and wake the loop through an eventfd
/// only when the queue goes from empty to non-empty (the loop's own calls, from the delegate,
/// never need a wake). Frames are masked as they are queued.
public final class LeanWebSocketClient: Sendable {
    /// What other threads hand the loop, behind ``outbox``.
    struct Outbox {
        /// Frames queued per connection slot, already framed and masked.
        var queued: [[UInt8]] = []
        /// Slots ever opened (an id opens one connection in the client's life).
        var used: [Bool] = []
        /// Slots whose queue went from empty to non-empty since the loop last drained.
        var dirty: [Int] = []
        var connects: [ConnectRequest] = []
        var closes: [(slot: Int, code: UInt16, reason: String)] = []
        /// An eventfd write is outstanding (or the loop drains before it sleeps again).
        var wakePending = false
        var stopping = false
        /// How long the loop waits for the servers' close answers once stopping.
        var stopTimeout = Duration.seconds(2)
        var running = false
        var keys = MaskKeys()
    }

    struct ConnectRequest {
        var slot: Int
        var url: LeanURL
        var subprotocol: String?
    }

    public let configuration: LeanClientConfiguration
    let outbox = Mutex(Outbox())
    /// The loop thread, so calls made on it need no wake.
    let loopThread = Atomic<UInt>(0)
    let finished = Atomic<Bool>(false)
    /// The loop's counts as it last published them (``loopStats``).
    private let publishedStats = Mutex(LeanLoopStats())
    /// The eventfd that wakes the loop; it lives as long as the client, so a late wake never
    /// writes to a descriptor number reused by something else.
    let wakeFD: Int32
    /// Loop-thread state: touched only by the loop thread once ``start(delegate:)`` returned.
    nonisolated(unsafe) let loop: LeanLoop

    /// A client; call ``start(delegate:)`` before connecting.
    public init(configuration: LeanClientConfiguration = LeanClientConfiguration()) {
        self.configuration = configuration
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(wakeFD >= 0, "eventfd failed: errno \(errno)")
        loop = LeanLoop(configuration: configuration, wakeFD: wakeFD)
    }

    deinit { Glibc.close(wakeFD) }

    /// Creates the epoll and eventfd descriptors and starts the loop thread, which calls
    /// `delegate` (and holds it until ``shutdown(timeout:)``).
    public func start(delegate: any LeanClientDelegate) throws(LeanClientError) {
        try outbox.withLock { (ob: inout Outbox) throws(LeanClientError) in
            guard !ob.running && !ob.stopping else { throw LeanClientError("the client was already started") }
            ob.running = true
        }
        try loop.open(delegate: delegate)
        let ready = Mutex(false)
        spawnThread { [self] in
            loopThread.store(UInt(pthread_self()), ordering: .releasing)
            ready.withLock { $0 = true }
            loop.run(client: self)
            finished.store(true, ordering: .releasing)
        }
        while !ready.withLock({ $0 }) { sched_yield() }
    }

    /// How busy the loop thread has been since it started, as of at most 10 ms ago (and exactly
    /// once it stopped): take two snapshots and ``LeanLoopStats/since(_:)`` for an interval.
    public var loopStats: LeanLoopStats { publishedStats.withLock { $0 } }

    /// The loop thread hands over its counts.
    func publish(_ stats: LeanLoopStats) { publishedStats.withLock { $0 = stats } }

    /// Opens connection `id` (the loop connects it), offering `subprotocol`.
    ///
    /// - Throws: ``LeanClientError`` if the client is not running or `id` was used before.
    public func connect(to url: LeanURL, subprotocol: String?, id: LeanConnectionID) throws(LeanClientError) {
        try enqueue { (ob: inout Outbox) throws(LeanClientError) in
            guard ob.running && !ob.stopping else { throw LeanClientError("the lean client is not running") }
            guard id.slot >= 0 else { throw LeanClientError("a negative connection id") }
            while ob.queued.count <= id.slot {
                ob.queued.append([])
                ob.used.append(false)
            }
            guard !ob.used[id.slot] else { throw LeanClientError("connection id \(id.slot) was already used") }
            ob.used[id.slot] = true
            ob.connects.append(ConnectRequest(slot: id.slot, url: url, subprotocol: subprotocol))
        }
    }

    /// Queues `bytes` as one text frame (sent once the connection is open).
    public func send(text bytes: [UInt8], to id: LeanConnectionID) {
        bytes.withUnsafeBytes { send(text: $0, to: id) }
    }

    /// Queues `bytes` as one text frame (sent once the connection is open).
    public func send(text bytes: UnsafeRawBufferPointer, to id: LeanConnectionID) {
        send(opcode: ClientFrame.text, bytes, to: id)
    }

    /// Queues `bytes` as one binary frame (sent once the connection is open).
    public func send(binary bytes: [UInt8], to id: LeanConnectionID) {
        bytes.withUnsafeBytes { send(opcode: ClientFrame.binary, $0, to: id) }
    }

    /// Queues one data frame of `opcode` carrying `bytes`.
    private func send(opcode: UInt8, _ bytes: UnsafeRawBufferPointer, to id: LeanConnectionID) {
        enqueue { (ob: inout Outbox) in
            guard id.slot < ob.queued.count, !ob.stopping else { return }
            if ob.queued[id.slot].isEmpty { ob.dirty.append(id.slot) }
            ClientFrame.append(opcode: opcode, payload: bytes, maskKey: ob.keys.next(), to: &ob.queued[id.slot])
        }
    }

    /// Closes a connection with a close frame after what was queued before; it ends with
    /// ``LeanConnectionEnd/closed(code:reason:)`` once the server answers (or after 2 s).
    public func close(_ id: LeanConnectionID, code: UInt16 = 1000, reason: String = "") {
        enqueue { (ob: inout Outbox) in
            guard id.slot < ob.queued.count, !ob.stopping else { return }
            ob.closes.append((id.slot, code, reason))
        }
    }

    /// Sends every open connection a close frame (1000), waits up to `timeout` for the server's
    /// answers, then closes every socket and stops the loop thread.
    public func shutdown(timeout: Duration = .seconds(2)) async {
        let wake = outbox.withLock { ob -> Bool in
            guard ob.running, !ob.stopping else { return false }
            ob.stopping = true
            ob.stopTimeout = timeout
            return true
        }
        guard wake else { return }
        wakeLoop()
        let deadline = ContinuousClock.now + timeout + .seconds(1)
        while !finished.load(ordering: .acquiring) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Runs `body` on the outbox and wakes the loop if this was the first work queued since it
    /// last drained (never from the loop thread itself, which drains before it sleeps).
    private func enqueue<T, E: Error>(_ body: (inout Outbox) throws(E) -> T) throws(E) -> T {
        let onLoop = loopThread.load(ordering: .relaxed) == UInt(pthread_self())
        let (result, wake) = try outbox.withLock { (ob: inout Outbox) throws(E) -> (T, Bool) in
            let result = try body(&ob)
            guard !onLoop && !ob.wakePending else { return (result, false) }
            ob.wakePending = true
            return (result, true)
        }
        if wake { wakeLoop() }
        return result
    }

    /// Makes the loop's `epoll_wait` return.
    private func wakeLoop() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }
}

/// Starts a detached thread running `body`.
private func spawnThread(_ body: @escaping @Sendable () -> Void) {
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let box = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
        &thread, nil,
        { argument in
            Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, box)
    precondition(created == 0, "pthread_create failed: \(created)")
    pthread_detach(thread)
}
