import CorkboardModel
import CorkboardProtocol

/// Something a room decided to do, performed in order when its batch ends (once the batch's
/// operations are durable, with a store).
enum RoomOutput {
    /// Send one encoded message to some connections: the same bytes for all of them.
    case send(EncodedMessage, [ConnectionHandle], RollbackPolicy)
    /// Close a connection (at once, dropping what it has not read, when `discardingPending`).
    case close(ConnectionHandle, code: Int, reason: String, discardingPending: Bool)
    /// Start sending a member its snapshot parts: the `welcome` or `synced` announcing them went
    /// out just before (R14).
    case startTransfer(ConnectionHandle)
    /// The peers' `op` of a drop: sent like `.send` with `.discard`, and timed from `since` (when
    /// the drop reached the room) until it has gone to every recipient
    /// (`corkboard_drop_broadcast_seconds`).
    case sendTimed(EncodedMessage, [ConnectionHandle], since: ContinuousClock.Instant)
}

extension RoomOutput {
    /// Whether this is the `op` or `ack` of a committed operation (`.discard`, or a drop's timed
    /// `op`): what a rollback drops, and what a busy room's pending updates may go out with.
    var isCommittedOperation: Bool {
        switch self {
        case .send(_, _, .discard), .sendTimed: true
        default: false
        }
    }
}

/// What a rollback after a failed store transaction does with a message still waiting for that
/// transaction (see `Durability`).
enum RollbackPolicy: Sendable {
    /// Sent anyway: it does not depend on the failed operations (pongs, member lists, drags,
    /// errors, rejections).
    case keep
    /// Dropped: the `ack` or `op` of a committed operation that the rollback undid.
    case discard
    /// Replaced by closing its recipients, so they start over: a `welcome` or `synced` built on
    /// state that the rollback undid.
    case closeRecipients
}

/// What the batch being handled decided to send and close, in order.
///
/// Every part writes its outputs here; the room performs them when the batch ends, or holds them
/// until the store confirms the batch's operations. A message is encoded once, whatever the
/// number of its recipients.
struct RoomOutbox {
    private(set) var outputs: [RoomOutput] = []

    /// Whether nothing is queued.
    var isEmpty: Bool { outputs.isEmpty }

    /// Queues one encoded message for some connections.
    mutating func send(_ message: EncodedMessage, to handles: [ConnectionHandle], onRollback: RollbackPolicy = .keep) {
        outputs.append(.send(message, handles, onRollback))
    }

    /// Queues a drop's `op` for its peers, timed from `since` until it reached every one of them;
    /// a rollback drops it like any committed operation's message.
    mutating func sendTimed(_ message: EncodedMessage, to handles: [ConnectionHandle], since: ContinuousClock.Instant) {
        outputs.append(.sendTimed(message, handles, since: since))
    }

    /// Queues a message for one connection. The `ack` of a committed operation is dropped by a
    /// rollback; anything else is kept.
    mutating func reply(_ handle: ConnectionHandle, _ message: ServerMessage) {
        send(WireCodec.encode(message), to: [handle], onRollback: message.isCommittedOperation ? .discard : .keep)
    }

    /// Queues closing a connection after the messages queued before it; `discardingPending`
    /// closes at once without the connection's unread backlog (a slow client, R11).
    mutating func close(_ handle: ConnectionHandle, code: Int, reason: String, discardingPending: Bool = false) {
        outputs.append(.close(handle, code: code, reason: reason, discardingPending: discardingPending))
    }

    /// Queues the start of a member's snapshot transfer, after the message announcing it.
    mutating func startTransfer(_ handle: ConnectionHandle) { outputs.append(.startTransfer(handle)) }

    /// Queues outputs decided elsewhere (a rollback's), in order.
    mutating func append(contentsOf more: [RoomOutput]) { outputs.append(contentsOf: more) }

    /// Takes everything queued, leaving the outbox empty.
    mutating func take() -> [RoomOutput] {
        defer { outputs = [] }
        return outputs
    }
}

extension ServerMessage {
    /// Whether this is an `op` broadcast or the `ack` of a committed operation.
    var isCommittedOperation: Bool {
        switch self {
        case .op: true
        case .ack(let ack): ack.outcome.committed != nil
        default: false
        }
    }
}
