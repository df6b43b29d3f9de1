import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import OrderedCollections

/// What a room knows about one connected member.
struct MemberState {
    /// The member as peers see it.
    var member: Member
    /// Times of recent invalid messages (for the 1008 limit).
    var invalid = InvalidMessageLog()
    /// Set while the connection's unsent output is over the slow-client bound (R11).
    var isSlow = false
    /// What this member missed while slow; the latest state of each goes out when it drains.
    var missed = MissedUpdates()
}

/// What a slow member missed (R11), in the order it happened.
struct MissedUpdates {
    /// Drag sessions that changed or ended.
    var drags: OrderedDictionary<SessionKey, MissedDrag> = [:]
    /// Members whose cursor moved.
    var cursors: OrderedSet<ConnectionHandle> = []
    /// Members whose presence changed.
    var presence: OrderedSet<ConnectionHandle> = []
}

/// What a slow member missed of one drag (R11).
enum MissedDrag {
    /// The drag changed; send its whole state if it is still live.
    case changed
    /// The drag ended; send this.
    case ended(ServerMessage.DragEnded)
}

/// The members of a room in join order, and what the room remembers of clients that joined:
/// their resume tokens, and those that left owning placeholders (R8).
///
/// A value. Joining and leaving change it; the fan-out methods write one encoded message for all
/// recipients into the outbox, and skip slow members (R11) for ephemeral messages, noting what
/// they missed instead.
struct Members {
    /// The outcome of a `hello`.
    enum Admission {
        /// The client may join in `role`, under this resume token, replacing the connection it had
        /// (if any).
        case admitted(clientId: String, resumeToken: String, role: Role, replacing: ConnectionHandle?)
        /// The hello is refused with an error, and the connection closed with `close` when given.
        case refused(ProtocolError, close: (code: Int, reason: String)?)
    }

    /// How a member's backlog compares with the slow-client bounds (R11).
    enum Backlog {
        /// Nothing changed.
        case unchanged
        /// The member is past the close bound: it must go.
        case tooSlow
        /// The member drained: it gets the latest state of what it missed.
        case drained(MissedUpdates)
    }

    /// Colors given to members in join order; readable on white, distinct from one another.
    static let palette = ProtocolLimits.memberColors

    private(set) var states: OrderedDictionary<ConnectionHandle, MemberState> = [:]
    /// Each member's connection by member id, and each connected client's by client id.
    private var handlesByMember: [String: ConnectionHandle] = [:]
    private var handlesByClient: [String: ConnectionHandle] = [:]
    /// Joins and leaves since the last `membersChanged` (see `Members+Roster.swift`).
    var roster = RosterChanges()
    private var slowCount = 0
    /// Ephemeral messages not sent to slow members so far, one per message and member (metrics).
    private(set) var shedDeliveries = 0
    private var nextNumber = 1
    /// The resume token of every client id that joined, so only its holder may resume it
    /// (connected clients and the most recently departed, `RoomConfiguration.rememberedClients`).
    private var resumeTokens: ClientTokens
    /// Derives a client id's resume token from a secret the nodes of a cluster share, so a node
    /// that takes the board over knows every token (`RoomConfiguration.resumeTokens`); `nil`:
    /// random tokens only this room knows.
    var deriveToken: (@Sendable (String) -> String)?
    /// Client ids that left while owning placeholders, with the time they left (R8 grace).
    private(set) var departed: [String: BoardTime] = [:]

    /// No members yet; the resume tokens of at most `rememberedClients` departed clients are kept.
    init(rememberedClients: Int = RoomConfiguration.defaultRememberedClients) {
        resumeTokens = ClientTokens(capacity: rememberedClients)
    }

    /// The member on a connection.
    subscript(handle: ConnectionHandle) -> MemberState? { states[handle] }

    /// The member on a connection, read where its state lies: the subscript copies the whole
    /// state (its invalid-message log and what it missed), which costs a retain per part on every
    /// message a room handles.
    func member(on handle: ConnectionHandle) -> Member? {
        guard let index = states.index(forKey: handle) else { return nil }
        return states.values.withUnsafeBufferPointer { $0[index].member }
    }

    /// The number of connected members.
    var count: Int { states.count }

    /// Whether any member is marked slow (R11).
    var hasSlowMembers: Bool { slowCount > 0 }

    /// When the earliest departed placeholder owner left (R8); `nil` when none is awaited.
    ///
    /// Inlined, so that a room's next deadline copies its `Members` (a retain of each part) only
    /// when someone is awaited, not every time it asks.
    @inline(__always) var earliestDeparture: BoardTime? { departed.isEmpty ? nil : departed.values.min() }

    /// Every member's connection, in join order.
    var handles: [ConnectionHandle] { states.keys.elements }

    /// The connected member with client id `clientId`.
    func member(ofClient clientId: String) -> Member? {
        handlesByClient[clientId].flatMap { member(on: $0) }
    }

    /// The connection of the member with id `id`.
    func handle(ofMember id: String) -> ConnectionHandle? { handlesByMember[id] }

    // MARK: Joining and leaving

    /// Decides whether a `hello` joins, opening `role` (`nil` when its key opens nothing).
    ///
    /// Only the holder of a client id's resume token may join as that client again; a client that
    /// joins again while its old connection lingers replaces it. `isKnown` says whether the room
    /// keeps something else of a client id (its undo history, kept across a restart, R13): such a
    /// client must present its (derived) token too, even when its token was not remembered.
    mutating func admit(
        _ hello: ClientMessage.Hello, on handle: ConnectionHandle, role: Role?, board: BoardInfo,
        isKnown: (String) -> Bool = { _ in false }
    ) -> Admission {
        if states[handle] != nil {
            return .refused(
                ProtocolError(.alreadyJoined, "This connection already joined the board.", ref: hello.ref), close: nil)
        }
        guard let role else {
            return .refused(
                ProtocolError(
                    .badKey, "The key opens neither editing nor viewing \(board.id); check the share link.",
                    field: "key", ref: hello.ref), close: (CloseCode.badKey, "bad key"))
        }
        if hello.clientId == ClientIdentity.system {
            // The room's own identity may delete any placeholder (R8); no connection may take it.
            return .refused(
                ProtocolError(
                    .invalidField, "The clientId \"\(ClientIdentity.system)\" is reserved; leave clientId out.",
                    field: "clientId", ref: hello.ref), close: (CloseCode.policyViolation, "reserved clientId"))
        }
        let clientId = hello.clientId ?? RandomToken.make(prefix: "c-")
        let derived = deriveToken?(clientId)
        // A token that is known here, or presented for a derived one, or owed by a client whose
        // history the room keeps (none can be right when the room derives no tokens: that client
        // leaves clientId out and joins again as a new one), must be the right one.
        let expected: String? =
            if let remembered = resumeTokens[clientId] {
                remembered
            } else if hello.clientId != nil, isKnown(clientId) {
                derived ?? ""
            } else if hello.resumeToken != nil {
                derived
            } else {
                nil
            }
        if let expected, expected.isEmpty || !BoardKeys.constantTimeEquals(hello.resumeToken ?? "", expected) {
            // Client ids are public (operations carry them); only the holder of the token may resume one.
            return .refused(
                ProtocolError(
                    .invalidField,
                    "Client \(clientId) is known here and this hello lacks its resumeToken; send the token from "
                        + "its welcome, or leave clientId out to join as a new client.",
                    field: "resumeToken", ref: hello.ref),
                close: (CloseCode.policyViolation, "resume token required"))
        }
        let resumeToken = resumeTokens[clientId] ?? derived ?? RandomToken.make(prefix: "r-")
        resumeTokens.joined(clientId, token: resumeToken)
        let previous = handlesByClient[clientId]
        return .admitted(clientId: clientId, resumeToken: resumeToken, role: role, replacing: previous)
    }

    /// Adds an admitted client as the newest member, in the colour it asked for (`preferred`) when
    /// that is a palette colour no member has now, else in the next colour of join order; a person
    /// (issue 45) is named by `person` and, when its `hello` name differs, `alias`.
    mutating func add(
        _ handle: ConnectionHandle, clientId: String, name: String, role: Role, preferred: String? = nil,
        person: String? = nil, alias: String? = nil
    ) -> Member {
        departed[clientId] = nil
        let number = nextNumber
        nextNumber += 1
        var color = Members.palette[(number - 1) % Members.palette.count]
        if let preferred, Members.palette.contains(preferred),
            !states.values.contains(where: { $0.member.color == preferred })
        {
            color = preferred
        }
        let member = Member(
            id: "m\(number)", name: name, color: color, role: role, clientId: clientId, person: person, alias: alias)
        states[handle] = MemberState(member: member)
        handlesByMember[member.id] = handle
        handlesByClient[clientId] = handle
        roster.joined(member)
        return member
    }

    /// Removes a member; `nil` when the connection was not one. `forgotten`: the departed clients
    /// whose resume tokens were dropped to make room (``ClientTokens``), oldest first; the room
    /// forgets what else it keeps by their ids.
    mutating func remove(_ handle: ConnectionHandle) -> (state: MemberState, forgotten: [String])? {
        guard let state = states.removeValue(forKey: handle) else { return nil }
        if state.isSlow { slowCount -= 1 }
        handlesByMember[state.member.id] = nil
        var forgotten: [String] = []
        if handlesByClient[state.member.clientId] == handle {
            handlesByClient[state.member.clientId] = nil
            forgotten = resumeTokens.left(state.member.clientId)
        }
        roster.left(state.member.id)
        return (state, forgotten)
    }

    /// Gives the member on a connection another role (an admin changed its person's, issue 45);
    /// peers learn of it at the next tick, the member in `membersChanged.joined` again.
    mutating func setRole(_ role: Role, of handle: ConnectionHandle) {
        guard let index = states.index(forKey: handle) else { return }
        states.values[index].member.role = role
        roster.changed(states.values[index].member)
    }

    /// Clients whose resume tokens are kept, connected or departed.
    var rememberedClientCount: Int { resumeTokens.count }

    /// Notes that a client left owning placeholders, unless it is still connected elsewhere (R8).
    mutating func noteDeparture(of clientId: String, at now: BoardTime) {
        guard handlesByClient[clientId] == nil else { return }
        departed[clientId] = now
    }

    /// The clients that left owning placeholders before `deadline` and did not come back, in
    /// client-id order; they are forgotten.
    mutating func departures(before deadline: BoardTime) -> [String] {
        let due = departed.filter { $0.value < deadline }.keys.sorted()
        for client in due { departed[client] = nil }
        return due
    }

    /// Records an invalid message from a member; returns whether it passed
    /// `invalidMessageLimit` within `invalidMessageWindow` (the room then closes it 1008).
    mutating func recordInvalid(from handle: ConnectionHandle, at now: BoardTime, _ configuration: RoomConfiguration)
        -> Bool
    {
        guard states[handle] != nil else { return false }
        return states[handle]!.invalid.record(at: now, configuration)
    }

    // MARK: Fan-out

    /// Every member's connection but `except`, in join order.
    ///
    /// - Complexity: O(1) without `except` (the member table's own array), else O(members).
    func handles(except: ConnectionHandle?) -> [ConnectionHandle] {
        guard let except else { return states.keys.elements }
        return states.keys.filter { $0 != except }
    }

    /// Queues a message for every member but `except`, encoded once; slow members get it too
    /// (member lists and committed operations are never shed).
    func broadcast(_ message: ServerMessage, except: ConnectionHandle? = nil, into outbox: inout RoomOutbox) {
        let recipients = handles(except: except)
        guard !recipients.isEmpty else { return }
        outbox.send(
            WireCodec.encode(message), to: recipients, onRollback: message.isCommittedOperation ? .discard : .keep)
    }

    /// Queues an ephemeral message about a drag for every member but `except`, encoded once.
    ///
    /// A slow member (R11) does not get it; it remembers that the drag changed (or `ended`) and
    /// gets the latest state when it drains.
    mutating func broadcastEphemeral(
        _ message: ServerMessage, aboutDrag key: SessionKey, ended: ServerMessage.DragEnded? = nil,
        except: ConnectionHandle?, into outbox: inout RoomOutbox
    ) {
        shed(message, except: except, into: &outbox) { $0.drags[key] = ended.map(MissedDrag.ended) ?? .changed }
    }

    /// Queues an ephemeral message about a member's cursor or presence for every other member,
    /// encoded once; a slow member notes in `missed` that it missed one.
    mutating func broadcastEphemeral(
        _ message: ServerMessage, aboutMember member: ConnectionHandle,
        missed: WritableKeyPath<MissedUpdates, OrderedSet<ConnectionHandle>>, into outbox: inout RoomOutbox
    ) {
        shed(message, except: member, into: &outbox) { _ = $0[keyPath: missed].append(member) }
    }

    /// Sends an ephemeral message to the members that keep up, and notes it for the slow ones.
    ///
    /// - Complexity: O(members); with no slow member, no lookup per member.
    private mutating func shed(
        _ message: ServerMessage, except: ConnectionHandle?, into outbox: inout RoomOutbox,
        noting note: (inout MissedUpdates) -> Void
    ) {
        var recipients: [ConnectionHandle]
        if slowCount == 0 {
            recipients = handles(except: except)
        } else {
            recipients = []
            recipients.reserveCapacity(states.count)
            for index in states.values.indices where states.keys[index] != except {
                if states.values[index].isSlow {
                    note(&states.values[index].missed)
                    shedDeliveries &+= 1
                } else {
                    recipients.append(states.keys[index])
                }
            }
        }
        guard !recipients.isEmpty else { return }
        outbox.send(WireCodec.encode(message), to: recipients)
    }

    // MARK: Slow members (R11)

    /// Compares a member's unsent bytes with the bounds: marks it slow past `slowClientBytes`,
    /// reports it too slow past `slowClientCloseBytes`, and hands back what it missed once it drained.
    mutating func updateBacklog(of handle: ConnectionHandle, pendingBytes: Int, _ configuration: RoomConfiguration)
        -> Backlog
    {
        guard let index = states.index(forKey: handle) else { return .unchanged }
        if pendingBytes > configuration.slowClientCloseBytes { return .tooSlow }
        let slow = pendingBytes > configuration.slowClientBytes
        let wasSlow = states.values[index].isSlow
        guard slow != wasSlow else { return .unchanged }
        states.values[index].isSlow = slow
        slowCount += slow ? 1 : -1
        if slow { return .unchanged }
        defer { states.values[index].missed = MissedUpdates() }
        return .drained(states.values[index].missed)
    }
}
