public import CorkboardModel
public import CorkboardProtocol

/// What a ``BoardConnection`` knows about its board at one moment: the replica, the welcome, the
/// members and live drags, and how the link has fared.
///
/// A value: ``BoardConnection/state`` returns a copy (copy-on-write, so taking it is cheap), and
/// ``BoardConnection/wait(_:timeout:until:)`` evaluates conditions on it after every message.
public struct BoardState: Sendable {
    /// The board replica: `confirmed` follows the committed stream, `view` adds this client's
    /// pending operations. Empty (with an empty client id) until the first welcome.
    public internal(set) var replica: ClientReplica
    /// The latest `welcome`, without its `snapshot` and `ops` (they went into ``replica``).
    public internal(set) var welcome: ServerMessage.Welcome?
    /// How the latest welcome brought the replica up to date.
    public internal(set) var joinedWith: JoinKind?
    /// Whether the link is up and the board joined.
    public internal(set) var isJoined = false
    /// Welcomes received: 1 after the first join, one more per resume.
    public internal(set) var joinCount = 0
    /// The highest seq this connection has heard of (welcome, ops, acks, pong, synced).
    public internal(set) var head = 0
    /// The members this connection knows of, this one included: those in the welcome (up to
    /// `ProtocolLimits.welcomeMembers`), those announced joining since, and those fetched with
    /// ``BoardConnection/listMembers(ids:after:limit:timeout:)``; members who left are removed.
    public internal(set) var members: [Member] = []
    /// How many members are connected, this one included (from `welcome`, `membersChanged` and
    /// `memberList`).
    public internal(set) var memberCount = 0
    /// The peers' live drags, in start order, updated by `dragStarted`, `dragItems`, `dragHover`
    /// and `dragEnded` (ephemeral: a slow connection may see only the latest state, R11).
    public internal(set) var drags: [DragState] = []
    /// This connection's own live drags: session id → granted items in drag order.
    public internal(set) var ownDrags: [String: [ItemID]] = [:]
    /// The items being edited and by which member (R12), from the welcome, `editStarted` and
    /// `editEnded`; this connection's own edit included once granted.
    public internal(set) var edits: [ItemID: String] = [:]
    /// Whether this client's Undo and Redo have something to act on (R13), from the welcome and
    /// `undoable`.
    public internal(set) var undoable = ServerMessage.Undoable(undo: false, redo: false)
    /// How the last link ended, if one did.
    public internal(set) var lastClose: CloseInfo?
    /// Links lost (closed or failed to connect) since the connection was opened.
    public internal(set) var connectionLosses = 0
    /// Whether the connection is closed for good: ``BoardConnection/close()``, a close code that
    /// forbids resuming (bad key, unknown board, replaced by another connection), or shutdown.
    public internal(set) var isClosed = false
    /// The last `error` the server sent.
    public internal(set) var lastError: ProtocolError?
    /// `error` messages received.
    public internal(set) var errorCount = 0
    /// Problems with the committed stream (an undecodable message, a replica that diverged and
    /// was reset from a snapshot). Empty in a healthy session.
    public internal(set) var streamProblems: [String] = []
    /// Every message received, in order, when ``BoardConnection/Options/recordsHistory`` is set.
    public internal(set) var history: [ServerMessage] = []
    /// The snapshot arriving in parts (R14), or the last one that did: how much of it is here.
    public internal(set) var snapshotLoad: SnapshotProgress?
    /// Snapshots announced in parts since the connection was opened.
    public internal(set) var snapshotLoads = 0

    init(replica: ClientReplica) {
        self.replica = replica
    }

    /// Adds members not known yet, keeping the order learned.
    mutating func learn(_ newcomers: [Member]) {
        guard !newcomers.isEmpty else { return }
        let known = Set(members.map(\.id))
        members.append(contentsOf: newcomers.filter { !known.contains($0.id) })
    }

    /// This connection as a member, once joined.
    public var member: Member? { welcome?.member }

    /// Whether every operation this client submitted has been answered.
    public var isSettled: Bool { replica.pending.isEmpty }

    /// The peer drag `session` of `member`, if live.
    public func drag(member: String, session: String) -> DragState? {
        drags.first { $0.member == member && $0.session == session }
    }
}

/// How a welcome (or `synced`) brought the replica up to date (R10).
public enum JoinKind: Hashable, Sendable {
    /// A snapshot at this seq replaced the confirmed board.
    case snapshot(seq: Int)
    /// This many committed operations after the replica's last seq were applied.
    case operations(count: Int)
}

/// How far a snapshot sent in parts has arrived (R14).
public struct SnapshotProgress: Hashable, Sendable {
    /// The snapshot's seq.
    public var seq: Int
    /// Parts announced.
    public var parts: Int
    /// Parts received.
    public var partsReceived = 0
    /// Bytes announced.
    public var bytes: Int
    /// Bytes received.
    public var bytesReceived = 0

    init(_ descriptor: ServerMessage.SnapshotParts) {
        seq = descriptor.seq
        parts = descriptor.parts
        bytes = descriptor.bytes
    }

    /// Whether every part arrived.
    public var isComplete: Bool { partsReceived >= parts }

    /// The share received, from 0 to 1, by bytes.
    public var fraction: Double { bytes > 0 ? min(1, Double(bytesReceived) / Double(bytes)) : (isComplete ? 1 : 0) }
}

/// How a link ended.
public struct CloseInfo: Hashable, Sendable {
    /// The WebSocket close code received or sent, if any (`nil` when the socket just dropped).
    public var code: Int?
    /// The close reason, or a description of the failure.
    public var reason: String
    /// Whether the transport will reconnect (and the connection resume) by itself.
    public var willReconnect: Bool

    /// Creates a description of a closed link.
    public init(code: Int?, reason: String, willReconnect: Bool) {
        self.code = code
        self.reason = reason
        self.willReconnect = willReconnect
    }
}
