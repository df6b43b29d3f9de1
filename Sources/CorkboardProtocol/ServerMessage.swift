public import CorkboardModel

/// Every message the server sends, tagged by `type`.
///
/// Answers echo the request's `ref`. Committed operations (`op`, and the sender's `ack`) are
/// durable and never dropped or reordered; everything else is ephemeral (R11).
public enum ServerMessage: Equatable, Sendable {
    /// The answer to `hello`: the board, this member, the state to start from, members and drags.
    case welcome(Welcome)
    /// The answer to `submit` or `drop`: the outcome for the sender.
    case ack(Ack)
    /// A committed operation, for every member but its sender.
    case op(CommittedOperation)
    /// The answer to `dragBegin` and `dragAdd`.
    case dragGranted(DragGranted)
    /// The answer to `dropUpdate`, sent to the dragger at once.
    case proposal(ProposalMessage)
    /// A peer started a drag.
    case dragStarted(DragState)
    /// A peer's drag gained items.
    case dragItems(DragItems)
    /// A peer's drag hovers somewhere (coalesced per tick).
    case dragHover(DragHover)
    /// A peer's drag ended.
    case dragEnded(DragEnded)
    /// A member joined.
    case membersChanged(MembersChanged)
    /// A member left.
    case memberList(MemberList)
    /// A peer's pointer moved (coalesced per tick).
    case cursor(CursorMessage)
    /// A peer's presence changed (coalesced per tick).
    case presence(PresenceMessage)
    /// The answer to `sync`.
    case synced(Synced)
    /// One piece of a snapshot announced by `welcome.snapshotParts` or `synced.snapshotParts` (R14).
    case snapshotPart(SnapshotPart)
    /// The answer to `ping`.
    case pong(Pong)
    /// A message was refused; nothing changed.
    case error(ProtocolError)
    /// Another node of the cluster sequences the board: connect there (then the connection
    /// closes 4005).
    case redirect(Redirect)
    /// The answer to `editBegin` when the lease is the member's (R12).
    case editGranted(EditGranted)
    /// The answer to `editBegin` when it is not: someone else edits the item, or it is gone.
    case editRefused(EditRefused)
    /// A member began editing an item (R12): everyone else sees "NAME is editing".
    case editStarted(EditState)
    /// An edit lease ended.
    case editEnded(EditEnded)
    /// Whether this client's Undo and Redo have something to act on now (R13).
    case undoable(Undoable)
    /// A new entry of the activity feed, to a member listening (issue 43).
    case activity(ActivityLive)
    /// A page of the activity feed, answering `activity`.
    case activityPage(ActivityPage)
    /// The board's people, invites and links, to admins (issue 45).
    case people(People)
    /// This connection's role or share keys changed (issue 45).
    case roleChanged(RoleChanged)

    /// The wire tag.
    public var type: String {
        switch self {
        case .welcome: "welcome"
        case .ack: "ack"
        case .op: "op"
        case .dragGranted: "dragGranted"
        case .proposal: "proposal"
        case .dragStarted: "dragStarted"
        case .dragItems: "dragItems"
        case .dragHover: "dragHover"
        case .dragEnded: "dragEnded"
        case .membersChanged: "membersChanged"
        case .memberList: "memberList"
        case .cursor: "cursor"
        case .presence: "presence"
        case .synced: "synced"
        case .snapshotPart: "snapshotPart"
        case .pong: "pong"
        case .error: "error"
        case .redirect: "redirect"
        case .editGranted: "editGranted"
        case .editRefused: "editRefused"
        case .editStarted: "editStarted"
        case .editEnded: "editEnded"
        case .undoable: "undoable"
        case .activity: "activity"
        case .activityPage: "activityPage"
        case .people: "people"
        case .roleChanged: "roleChanged"
        }
    }

    /// The `ref` of the request this message answers, if it answers one.
    public var ref: String? {
        switch self {
        case .welcome(let m): m.ref
        case .ack(let m): m.ref
        case .dragGranted(let m): m.ref
        case .proposal(let m): m.ref
        case .synced(let m): m.ref
        case .pong(let m): m.ref
        case .memberList(let m): m.ref
        case .error(let m): m.ref
        case .redirect(let m): m.ref
        case .editGranted(let m): m.ref
        case .editRefused(let m): m.ref
        case .activityPage(let m): m.ref
        case .people(let m): m.ref
        default: nil
        }
    }

    /// Whether a slow client may miss the message (R11), getting the latest state instead when it
    /// drains: peers' drag updates, cursors and presence. Everything else is always delivered.
    public var isEphemeral: Bool {
        switch self {
        case .dragStarted, .dragItems, .dragHover, .dragEnded, .cursor, .presence: true
        default: false
        }
    }

    /// `welcome`.
    public struct Welcome: Equatable, Codable, Sendable {
        /// The `hello`'s ref.
        public var ref: String?
        /// The protocol version.
        public var `protocol`: Int
        /// The board.
        public var board: BoardInfo
        /// This connection as a member (its id, color, role and client id).
        public var member: Member
        /// The board's head seq.
        public var head: Int
        /// The board at `head`, unless `ops` or `snapshotParts` is sent.
        public var snapshot: Snapshot?
        /// On resume: every committed operation after `hello.lastSeq` (R10).
        public var ops: [CommittedOperation]?
        /// Instead of `snapshot` for a large board: the board at `head` follows in `snapshotPart`
        /// messages (R14).
        public var snapshotParts: SnapshotParts?
        /// Up to `ProtocolLimits.welcomeMembers` members: those with live drags, then the earliest
        /// to join, and this one last (`listMembers` fetches the others).
        public var members: [Member]
        /// How many members are connected, this one included.
        public var memberCount: Int
        /// The drags in progress.
        public var drags: [DragState]
        /// The room's proposal and cursor tick, in milliseconds.
        public var tickMilliseconds: Int
        /// A secret for this client id: send it back in `hello` with `clientId` to resume.
        public var resumeToken: String
        /// Names the board's log: seqs count in it. Send it back in `hello` with `lastSeq`; it changes
        /// only when the server lost the board's log (an in-memory board after a restart).
        public var history: String
        /// The items being edited now, and by whom (R12).
        public var edits: [EditState]
        /// Whether this client's Undo and Redo have something to act on (its history survives a
        /// resume, R13).
        public var undoable: Undoable
        /// The keys this member may share in links: the view key for everyone, the edit key for
        /// editors of a board that needs one.
        public var keys: ShareKeys
        /// Who this member is, when it joined as a person (issue 45).
        public var person: PersonInfo?

        /// Creates a welcome.
        public init(
            ref: String?, protocol: Int = ProtocolLimits.version, board: BoardInfo, member: Member, head: Int,
            snapshot: Snapshot?, ops: [CommittedOperation]?, snapshotParts: SnapshotParts? = nil,
            members: [Member], memberCount: Int? = nil, drags: [DragState], tickMilliseconds: Int,
            resumeToken: String, history: String, edits: [EditState] = [],
            undoable: Undoable = Undoable(undo: false, redo: false), keys: ShareKeys = ShareKeys(view: ""),
            person: PersonInfo? = nil
        ) {
            self.person = person
            self.edits = edits
            self.undoable = undoable
            self.keys = keys
            self.ref = ref
            self.protocol = `protocol`
            self.board = board
            self.member = member
            self.head = head
            self.snapshot = snapshot
            self.ops = ops
            self.snapshotParts = snapshotParts
            self.members = members
            self.memberCount = memberCount ?? members.count
            self.drags = drags
            self.tickMilliseconds = tickMilliseconds
            self.resumeToken = resumeToken
            self.history = history
        }
    }

    /// `ack`: the outcome of the sender's `submit` or `drop`.
    public struct Ack: Hashable, Codable, Sendable {
        /// The request's ref.
        public var ref: String?
        /// The operation id.
        public var opId: String
        /// The board the operation was applied to, when not the connection's own (a cross-board drop).
        public var board: String?
        /// Committed (with seq and final positions in its effect) or rejected.
        public var outcome: Outcome

        /// Creates an ack.
        public init(ref: String?, opId: String, board: String? = nil, outcome: Outcome) {
            self.ref = ref
            self.opId = opId
            self.board = board
            self.outcome = outcome
        }
    }

    /// `dragGranted`.
    public struct DragGranted: Hashable, Codable, Sendable {
        /// The request's ref.
        public var ref: String?
        /// The session.
        public var session: String
        /// Items now leased to the session.
        public var granted: [ItemID]
        /// Items refused, each with a code (`locked` names the holder in its message).
        public var refused: [LeaseTable.Refusal]

        /// Creates a grant.
        public init(ref: String?, session: String, granted: [ItemID], refused: [LeaseTable.Refusal]) {
            self.ref = ref
            self.session = session
            self.granted = granted
            self.refused = refused
        }
    }

    /// `proposal`: what a drop at `target` would do.
    public struct ProposalMessage: Hashable, Codable, Sendable {
        /// The request's ref.
        public var ref: String?
        /// The session.
        public var session: String
        /// The target answered.
        public var target: DragTarget
        /// The proposal.
        public var proposal: Proposal

        /// Creates a proposal message.
        public init(ref: String?, session: String, target: DragTarget, proposal: Proposal) {
            self.ref = ref
            self.session = session
            self.target = target
            self.proposal = proposal
        }
    }

    /// `dragItems`: a peer's drag now holds these items (after `dragAdd`).
    public struct DragItems: Hashable, Codable, Sendable {
        /// The session.
        public var session: String
        /// The dragging member.
        public var member: String
        /// Every item of the drag, in drag order.
        public var items: [ItemID]

        /// Creates the message.
        public init(session: String, member: String, items: [ItemID]) {
            self.session = session
            self.member = member
            self.items = items
        }
    }

    /// `dragHover`: a peer's drag hovers at `target` with this proposal.
    public struct DragHover: Hashable, Codable, Sendable {
        /// The session.
        public var session: String
        /// The dragging member.
        public var member: String
        /// Where it hovers.
        public var target: DragTarget
        /// What a drop there would do.
        public var proposal: Proposal

        /// Creates the message.
        public init(session: String, member: String, target: DragTarget, proposal: Proposal) {
            self.session = session
            self.member = member
            self.target = target
            self.proposal = proposal
        }
    }

    /// How a drag ended.
    public enum DragEndReason: String, Hashable, Codable, Sendable {
        /// Dropped, whatever the outcome.
        case dropped
        /// Cancelled by the dragger.
        case cancelled
        /// Its lease expired after the quiet period (R9).
        case expired
        /// The dragger disconnected.
        case disconnected
    }

    /// `dragEnded`.
    public struct DragEnded: Hashable, Codable, Sendable {
        /// The session.
        public var session: String
        /// The dragging member.
        public var member: String
        /// Why it ended.
        public var reason: DragEndReason
        /// The seq of the drop's committed operation, when it committed on this board.
        public var seq: Int?

        /// Creates the message.
        public init(session: String, member: String, reason: DragEndReason, seq: Int? = nil) {
            self.session = session
            self.member = member
            self.reason = reason
            self.seq = seq
        }
    }

    /// `synced`: the operations after the requested seq, or a snapshot.
    public struct Synced: Equatable, Codable, Sendable {
        /// The request's ref.
        public var ref: String?
        /// The board's head seq.
        public var head: Int
        /// The board at `head`, when the room no longer holds every operation asked for.
        public var snapshot: Snapshot?
        /// The operations after the requested seq.
        public var ops: [CommittedOperation]?
        /// Instead of `snapshot` for a large board: the board at `head` follows in `snapshotPart`
        /// messages (R14).
        public var snapshotParts: SnapshotParts?

        /// Creates the message.
        public init(
            ref: String?, head: Int, snapshot: Snapshot?, ops: [CommittedOperation]?,
            snapshotParts: SnapshotParts? = nil
        ) {
            self.ref = ref
            self.head = head
            self.snapshot = snapshot
            self.ops = ops
            self.snapshotParts = snapshotParts
        }
    }

    /// `pong`.
    public struct Pong: Hashable, Codable, Sendable {
        /// The ping's ref.
        public var ref: String?
        /// The board's head seq.
        public var head: Int

        /// Creates the message.
        public init(ref: String?, head: Int) {
            self.ref = ref
            self.head = head
        }
    }
}

extension ServerMessage: Codable {
    private enum TagKey: String, CodingKey { case type }

    /// Decodes a tagged message.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TagKey.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "welcome": self = .welcome(try Welcome(from: decoder))
        case "ack": self = .ack(try Ack(from: decoder))
        case "op": self = .op(try CommittedOperation(from: decoder))
        case "dragGranted": self = .dragGranted(try DragGranted(from: decoder))
        case "proposal": self = .proposal(try ProposalMessage(from: decoder))
        case "dragStarted": self = .dragStarted(try DragState(from: decoder))
        case "dragItems": self = .dragItems(try DragItems(from: decoder))
        case "dragHover": self = .dragHover(try DragHover(from: decoder))
        case "dragEnded": self = .dragEnded(try DragEnded(from: decoder))
        case "membersChanged": self = .membersChanged(try MembersChanged(from: decoder))
        case "memberList": self = .memberList(try MemberList(from: decoder))
        case "cursor": self = .cursor(try CursorMessage(from: decoder))
        case "presence": self = .presence(try PresenceMessage(from: decoder))
        case "synced": self = .synced(try Synced(from: decoder))
        case "snapshotPart": self = .snapshotPart(try SnapshotPart(from: decoder))
        case "pong": self = .pong(try Pong(from: decoder))
        case "error": self = .error(try ProtocolError(from: decoder))
        case "redirect": self = .redirect(try Redirect(from: decoder))
        case "editGranted": self = .editGranted(try EditGranted(from: decoder))
        case "editRefused": self = .editRefused(try EditRefused(from: decoder))
        case "editStarted": self = .editStarted(try EditState(from: decoder))
        case "editEnded": self = .editEnded(try EditEnded(from: decoder))
        case "undoable": self = .undoable(try Undoable(from: decoder))
        case "activity": self = .activity(try ActivityLive(from: decoder))
        case "activityPage": self = .activityPage(try ActivityPage(from: decoder))
        case "people": self = .people(try People(from: decoder))
        case "roleChanged": self = .roleChanged(try RoleChanged(from: decoder))
        default: throw UnknownType(type: type)
        }
    }

    /// Encodes a tagged message.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TagKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .welcome(let m): try m.encode(to: encoder)
        case .ack(let m): try m.encode(to: encoder)
        case .op(let m): try m.encode(to: encoder)
        case .dragGranted(let m): try m.encode(to: encoder)
        case .proposal(let m): try m.encode(to: encoder)
        case .dragStarted(let m): try m.encode(to: encoder)
        case .dragItems(let m): try m.encode(to: encoder)
        case .dragHover(let m): try m.encode(to: encoder)
        case .dragEnded(let m): try m.encode(to: encoder)
        case .membersChanged(let m): try m.encode(to: encoder)
        case .memberList(let m): try m.encode(to: encoder)
        case .cursor(let m): try m.encode(to: encoder)
        case .presence(let m): try m.encode(to: encoder)
        case .synced(let m): try m.encode(to: encoder)
        case .snapshotPart(let m): try m.encode(to: encoder)
        case .pong(let m): try m.encode(to: encoder)
        case .error(let m): try m.encode(to: encoder)
        case .redirect(let m): try m.encode(to: encoder)
        case .editGranted(let m): try m.encode(to: encoder)
        case .editRefused(let m): try m.encode(to: encoder)
        case .editStarted(let m): try m.encode(to: encoder)
        case .editEnded(let m): try m.encode(to: encoder)
        case .undoable(let m): try m.encode(to: encoder)
        case .activity(let m): try m.encode(to: encoder)
        case .activityPage(let m): try m.encode(to: encoder)
        case .people(let m): try m.encode(to: encoder)
        case .roleChanged(let m): try m.encode(to: encoder)
        }
    }
}
