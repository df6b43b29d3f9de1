import CLibWebSockets
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State owned by the server's service thread: never touched by any other thread.
final class ServerLoop {
    var wsiByID = ConnectionTable<OpaquePointer>()
    var reassembly = ConnectionTable<Reassembly>()
    /// Close code and reason sent or received, reported in `.disconnected`.
    var closeInfo: [ConnectionID: (code: Int, reason: String)] = [:]
    /// Connections whose close frame went out: nothing more is written or delivered for them.
    var closing: Set<ConnectionID> = []
    /// HTTP requests being received or handled, by connection.
    var exchanges: [OpaquePointer: HTTPExchange] = [:]
    /// The connection of each exchange, by token (a connection pointer may be reused after close).
    var exchangeTokens: [UInt64: OpaquePointer] = [:]
    var nextExchangeToken: UInt64
    /// HTTP responses being written, by connection.
    var responses: [OpaquePointer: OutgoingResponse] = [:]
    var nextID: UInt64
    var shuttingDown = false
    /// The libuv loop lws runs on, when the shard uses libuv.
    var uvLoop: UnsafeMutablePointer<uv_loop_t>?
    /// The vhost connections are adopted into (set once the context exists).
    var vhost: OpaquePointer?
    /// The listening socket, on the shard that accepts (shard 0); `nil` on the others.
    var listener: ListeningSocket?
    /// Whether the listener was adopted into the context (which then closes it).
    var listenerAdopted = false
    /// When a failing `accept` was last logged (at most once a second).
    var lastAcceptErrorLog: ContinuousClock.Instant?
    /// A descriptor held in reserve on the accepting shard: at the open-file limit it is closed
    /// to accept (and at once close) the waiting connection, so the listener never spins.
    var reserveDescriptor: Int32 = -1
    /// Every socket this shard adopted, with its remote address and whether its upgrade was
    /// admitted, until libwebsockets destroys it (the caps in ``ConnectionLimits``).
    var sockets: [OpaquePointer: AdmittedSocket] = [:]
    /// The sockets of ``sockets`` that are not WebSockets, oldest first, under the thread's cap.
    var pending: PendingSockets<OpaquePointer>
    /// Connections on ``ServerConfiguration/echoPath``: echoed by the transport, never reported.
    var echoes: Set<ConnectionID> = []
    /// Batch buffer: `Lws.pre` bytes of headroom, then `writeBatchBytes`.
    let scratch: UnsafeMutablePointer<UInt8>
    let batchCapacity: Int
    /// C allocations that must outlive the context.
    var protocols: UnsafeMutablePointer<lws_protocols>?
    var retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>?
    var tokenLimits: UnsafeMutablePointer<lws_token_limits>?
    var cStrings: [UnsafeMutablePointer<CChar>] = []
    /// The context, while it exists (for the keepalive timer).
    var context: OpaquePointer?
    /// Which connections went quiet (pings and hangups; `ServerLoop+Keepalive.swift`).
    var keepalive: Keepalive
    /// The once-a-second keepalive sweep's lws timer, and whether it is scheduled.
    let keepaliveTimer: UnsafeMutablePointer<clws_timer_t>
    var keepaliveArmed = false
    /// Messages read since output was last looked for (`ShardContext.writeWaitingOutput(reading:)`).
    var readsSinceOutput = 0
    /// The read-path check's probe while it runs (``ReadPathCheck``), before the shard serves.
    var readPathProbe: ReadPathProbe?

    init(configuration: ServerConfiguration, shard: Int) {
        nextID = ShardIndex.base(shard) + 1
        nextExchangeToken = ShardIndex.base(shard) + 1
        batchCapacity = configuration.writeBatchBytes
        scratch = .allocate(capacity: Lws.pre + configuration.writeBatchBytes)
        pending = PendingSockets(cap: configuration.maxPendingConnectionsPerThread)
        keepalive = Keepalive(pingInterval: configuration.pingInterval, hangupAfter: configuration.hangupAfter)
        keepaliveTimer = .allocate(capacity: 1)
        keepaliveTimer.initialize(to: clws_timer_t())
    }

    /// The WebSocket protocol's name pointer, used to pick one of the per-protocol wake callbacks
    /// (lws copies the protocol table into each vhost, but the name pointers stay ours).
    var wsProtocolName: UnsafePointer<CChar>? { protocols?[1].name }

    /// The listener protocol's name pointer: its raw-file callbacks mean connections wait.
    var listenerProtocolName: UnsafePointer<CChar>? { protocols?[2].name }

    func cString(_ s: String) -> UnsafeMutablePointer<CChar> {
        let p = Lws.cString(s)
        cStrings.append(p)
        return p
    }

    /// Frees the C allocations (after `lws_context_destroy`).
    func release() {
        for p in cStrings { free(p) }
        cStrings.removeAll()
        protocols?.deallocate()
        protocols = nil
        retryPolicy?.deallocate()
        retryPolicy = nil
        tokenLimits?.deallocate()
        tokenLimits = nil
    }

    deinit {
        scratch.deallocate()
        keepaliveTimer.deallocate()
        release()
    }
}
