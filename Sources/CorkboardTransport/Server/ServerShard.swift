import CLibWebSockets
import Logging
import Synchronization

/// One service thread of a ``WebSocketServer``: its libwebsockets context, the connections it
/// serves and their queues.
///
/// A connection lives on one shard for its whole life; its ``ConnectionID`` carries the shard's
/// index in its top byte, so any thread finds the queue to append to without a lookup table. Only
/// the shard's own thread touches its `loop` and its `lws` pointers; other threads append to its
/// `outbox` under the mutex and wake that thread with `lws_cancel_service` (per context).
final class ShardState: Sendable {
    /// Position among the server's shards.
    let index: Int
    /// What other threads ask of this shard.
    let outbox: Mutex<Outbox>
    /// Service-thread state: touched only by this shard's thread after it starts.
    nonisolated(unsafe) let loop: ServerLoop
    /// WebSocket connections established on this shard now.
    let connections = Atomic<Int>(0)
    /// During a shutdown: connections not taking their close (``ShardContext/countPeersNotTakingClose()``).
    let peersNotTakingClose = Atomic<Int>(0)
    /// How many times ``peersNotTakingClose`` was counted.
    let peerRecounts = Atomic<Int>(0)
    /// Whether the shard's thread has destroyed its context.
    let finished = Atomic<Bool>(false)
    /// Whether connections have output queued that the shard's thread has not taken yet: read
    /// between socket reads, so output does not wait for the wake behind a long run of input.
    let outputWaiting = Atomic<Bool>(false)
    /// Batches written between socket reads rather than at a wake (for tests and profiles).
    let writesBetweenReads = Atomic<Int>(0)

    init(index: Int, configuration: ServerConfiguration) {
        self.index = index
        outbox = Mutex(
            Outbox(maxQueuedBytes: configuration.maxQueuedBytes, maxQueuedFrames: configuration.maxQueuedFrames))
        loop = ServerLoop(configuration: configuration, shard: index)
    }

    /// Applies `change` to the outbox and wakes the shard's thread when the change asked for it.
    func enqueue(_ change: (inout Outbox) -> Void) {
        let (context, output) = outbox.withLock { ob -> (LwsContextHandle?, Bool) in
            change(&ob)
            return (ob.takeWakeRequest() ? ob.context : nil, !ob.dirty.isEmpty)
        }
        if output { outputWaiting.store(true, ordering: .releasing) }
        if let context { Lws.wake(context) }
    }

    /// Wakes the shard's thread unconditionally (shutdown steps).
    func wake() {
        outbox.withLock { ob in
            if let context = ob.context { Lws.wake(context) }
        }
    }
}

/// The shard an identifier belongs to: the top byte of ids assigned by a shard's loop.
enum ShardIndex {
    /// Bits below the shard index.
    static let shift: UInt64 = 56

    /// The shard of a connection or exchange id.
    static func of(_ raw: UInt64) -> Int { Int(raw >> shift) }

    /// The first id a shard hands out.
    static func base(_ shard: Int) -> UInt64 { UInt64(shard) << shift }
}

/// The service-thread side of a shard: the server it belongs to and the shard's own state.
///
/// libwebsockets callbacks find it through the context's user pointer; its methods (the
/// callbacks, in the `ServerLoop+*.swift` files and `HTTPService.swift`) run on the shard's thread only.
final class ShardContext {
    unowned let server: WebSocketServer
    let shard: ShardState

    init(server: WebSocketServer, shard: ShardState) {
        self.server = server
        self.shard = shard
    }

    var loop: ServerLoop { shard.loop }
    var configuration: ServerConfiguration { server.configuration }
    var logger: Logger { server.logger }
    var origins: OriginPolicy { server.origins }
    var staticFiles: StaticFiles? { server.staticFiles }
    var boundPort: Int { server.boundPort }

    func emit(_ event: ServerEvent) { server.emit(event) }
}
