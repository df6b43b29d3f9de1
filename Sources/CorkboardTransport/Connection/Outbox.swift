/// What the application has asked the service thread to do: the state behind the server's mutex.
///
/// Any thread mutates it under the lock; the service thread drains it after each wake. Mutating
/// methods return whether the service thread must be woken (`lws_cancel_service`), so wake-ups are
/// requested only when the pending work goes from nothing to something.
struct Outbox {
    /// Limits for the slow-consumer rule.
    let maxQueuedBytes: Int
    let maxQueuedFrames: Int
    /// The running context, or `nil` before start and after stop (never wake a dead context).
    var context: LwsContextHandle?
    /// One queue per established connection.
    var queues = ConnectionTable<ConnectionQueue>()
    /// Connections that need a writeable callback.
    var dirty: [ConnectionID] = []
    private var dirtySet: Set<ConnectionID> = []
    /// Slow consumers to arm a kill timer for.
    var killTimers: [ConnectionID] = []
    /// Whether a shutdown was requested.
    var shutdownRequested: (code: Int, reason: String)?
    /// Seconds established connections get to close during shutdown before being dropped.
    var shutdownGraceSeconds = 3
    /// A wake was requested and not yet serviced.
    var wakePending = false
    /// Responses of asynchronous HTTP route handlers, by exchange token, waiting to be written.
    var httpCompletions: [(token: UInt64, response: HTTPResponse)] = []
    /// Accepted sockets handed to this shard by the accepting one, waiting to be adopted.
    private(set) var adoptions: [AcceptedSocket] = []
    /// Frames queued across all connections.
    private(set) var totalQueuedFrames = 0
    /// Connections closed as slow consumers so far.
    private(set) var slowConsumerCount = 0
    /// WebSocket frames that went into socket writes so far (whole frames; a fragmented one
    /// counts once, when its last fragment goes).
    private(set) var framesWritten = 0

    init(maxQueuedBytes: Int, maxQueuedFrames: Int) {
        self.maxQueuedBytes = maxQueuedBytes
        self.maxQueuedFrames = maxQueuedFrames
    }

    /// The result of queuing one frame.
    enum EnqueueResult: Equatable {
        /// Queued (or ignored because the connection is unknown or closing).
        case queued
        /// The connection went over its bound and is now being closed as a slow consumer.
        case overflow
    }

    /// Queues `frame` for `id`, applying the slow-consumer bound.
    mutating func enqueue(_ frame: OutboundFrame, to id: ConnectionID) -> EnqueueResult {
        let (maxFrames, maxBytes) = (maxQueuedFrames, maxQueuedBytes)
        // One lookup, and the queue changed where it lies.
        let outcome = withQueue(id) { queue -> (result: EnqueueResult, dropped: Int)? in
            guard !queue.isClosing else { return nil }
            if queue.count + 1 > maxFrames || queue.queuedBytes + frame.encodedCount > maxBytes {
                let dropped = queue.removeAll()
                queue.closeNow = (1008, "slow consumer")
                return (.overflow, dropped)
            }
            queue.append(frame)
            return (.queued, 0)
        }
        guard let outcome = outcome ?? nil else {
            // Not queued for a connection that is gone or closing: it counts as served.
            frame.delivery?.counted()
            return .queued
        }
        switch outcome.result {
        case .overflow:
            totalQueuedFrames -= outcome.dropped
            slowConsumerCount += 1
            killTimers.append(id)
        case .queued:
            totalQueuedFrames += 1
        }
        markDirty(id)
        return outcome.result
    }

    /// Reads or changes `id`'s queue where it lies; `nil` for a connection that is gone.
    ///
    /// Every access goes through here: the table's getter (`queues[id]`, even just to read a
    /// count) copies the queue, retaining its frames on the way, under a lock that the rooms'
    /// threads and the service thread share.
    mutating func withQueue<T>(_ id: ConnectionID, _ body: (inout ConnectionQueue) -> T) -> T? {
        queues.withValue(id, body)
    }

    /// The bytes queued for `id` (0 for a connection that is gone).
    mutating func queuedBytes(of id: ConnectionID) -> Int { withQueue(id) { $0.queuedBytes } ?? 0 }

    /// Registers a newly established connection (service thread).
    mutating func register(_ id: ConnectionID) {
        queues.insert(ConnectionQueue(), for: id)
    }

    /// Forgets a closed connection and whatever was still queued for it (service thread).
    mutating func remove(_ id: ConnectionID) {
        if var q = queues.removeValue(forKey: id) { totalQueuedFrames -= q.removeAll() }
    }

    /// Requests a close of `id` once its queued frames are written.
    mutating func requestClose(_ id: ConnectionID, code: Int, reason: String) {
        let requested = withQueue(id) { queue in
            guard !queue.isClosing else { return false }
            queue.closeAfterDrain = (code, reason)
            return true
        }
        if requested == true { markDirty(id) }
    }

    /// Closes `id` for a shutdown: drops its queued frames (a session that resumes gets them
    /// again; what they acknowledge is stored) and sends the close frame as soon as the socket is
    /// writable, so a peer behind on its reading is not held up by output it will never need.
    mutating func requestShutdownClose(_ id: ConnectionID, code: Int, reason: String) {
        let dropped = withQueue(id) { queue -> Int? in
            guard queue.closeNow == nil else { return nil }
            queue.closeAfterDrain = nil
            queue.closeNow = (code, reason)
            return queue.removeAll()
        }
        guard let dropped = dropped ?? nil else { return }
        totalQueuedFrames -= dropped
        markDirty(id)
    }

    /// Closes `id` now: drops its queued frames, sends the close frame as soon as the socket is
    /// writable, and arms the slow-consumer kill timer for a peer that never reads it.
    mutating func requestImmediateClose(_ id: ConnectionID, code: Int, reason: String) {
        let dropped = withQueue(id) { queue -> Int? in
            guard queue.closeNow == nil else { return nil }
            queue.closeNow = (code, reason)
            return queue.removeAll()
        }
        guard let dropped = dropped ?? nil else { return }
        totalQueuedFrames -= dropped
        killTimers.append(id)
        markDirty(id)
    }

    /// Closes `id` at its next writeable callback, which the service thread asks for itself (a
    /// client that broke the protocol): drops its queued frames.
    mutating func closeForProtocolError(_ id: ConnectionID, code: Int, reason: String) {
        let dropped = withQueue(id) { queue in
            queue.closeNow = (code, reason)
            return queue.removeAll()
        }
        totalQueuedFrames -= dropped ?? 0
    }

    /// Marks a connection for a writeable callback.
    mutating func markDirty(_ id: ConnectionID) {
        if dirtySet.insert(id).inserted { dirty.append(id) }
    }

    /// Takes the connections whose queued output goes out in one write of at most `capacity`
    /// bytes, with no close pending, and leaves the others dirty for the wake (and the wake
    /// request pending): the service thread writes output between reads this way, and leaves
    /// closes and long queues, which need writeable callbacks, to the wake.
    mutating func takeDirty(fittingIn capacity: Int, except excluded: ConnectionID?) -> [ConnectionID] {
        var taken: [ConnectionID] = []
        // The ones left keep their order at the front of `dirty`; both keep their storage, which
        // the next batch fills again (a fresh set would be allocated and regrown every batch).
        var left = 0
        for index in dirty.indices {
            let id = dirty[index]
            if id != excluded, withQueue(id, { !$0.isClosing && $0.queuedBytes <= capacity }) ?? false {
                taken.append(id)
            } else {
                dirty[left] = id
                left += 1
            }
        }
        dirty.removeLast(dirty.count - left)
        dirtySet.removeAll(keepingCapacity: true)
        for id in dirty { dirtySet.insert(id) }
        return taken
    }

    /// Whether there is work for the service thread; consumes the wake request if so, so the caller
    /// calls `lws_cancel_service` exactly once per batch of work.
    mutating func takeWakeRequest() -> Bool {
        if wakePending { return false }
        wakePending = true
        return true
    }

    /// Hands an accepted socket to this shard's thread, which adopts it at its next wake.
    mutating func adopt(_ socket: AcceptedSocket) { adoptions.append(socket) }

    /// Takes the sockets to adopt (service thread, after a wake).
    mutating func takeAdoptions() -> [AcceptedSocket] {
        defer { adoptions.removeAll() }
        return adoptions
    }

    /// Takes the finished HTTP responses (service thread, after a wake, with ``drain()``).
    mutating func takeHTTPCompletions() -> [(token: UInt64, response: HTTPResponse)] {
        defer { httpCompletions.removeAll() }
        return httpCompletions
    }

    /// Takes the dirty list, kill timers and shutdown request (service thread, after a wake).
    mutating func drain() -> (dirty: [ConnectionID], kill: [ConnectionID], shutdown: (code: Int, reason: String)?) {
        wakePending = false
        let d = dirty
        dirty.removeAll(keepingCapacity: true)
        dirtySet.removeAll(keepingCapacity: true)
        let k = killTimers
        killTimers.removeAll()
        return (d, k, shutdownRequested)
    }

    /// What the service thread should do in a connection's writeable callback.
    enum WriteAction {
        /// Write `bytes` bytes from the batch buffer; `more` says whether to ask for another callback.
        case write(bytes: Int, more: Bool)
        /// Send a close frame and drop the connection.
        case close(code: Int, reason: String)
        /// Nothing to do.
        case idle
    }

    /// Fills the batch buffer for `id` (service thread).
    mutating func nextWrite(for id: ConnectionID, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int)
        -> WriteAction
    {
        let step = withQueue(id) { queue -> (action: WriteAction, popped: Int) in
            if let c = queue.closeNow { return (.close(code: c.code, reason: c.reason), 0) }
            if queue.isEmpty {
                if let c = queue.closeAfterDrain { return (.close(code: c.code, reason: c.reason), 0) }
                return (.idle, 0)
            }
            let (bytes, popped) = queue.fill(buffer, capacity: capacity)
            return (.write(bytes: bytes, more: !queue.isEmpty || queue.closeAfterDrain != nil), popped)
        }
        guard let step else { return .idle }
        totalQueuedFrames -= step.popped
        framesWritten &+= step.popped
        return step.action
    }
}
