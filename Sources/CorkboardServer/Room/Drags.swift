import CorkboardModel
import CorkboardProtocol
import OrderedCollections

/// The live drags of a room (R9): their leases (kept in the room's `LeaseTable`, which the
/// sequencer is handed to refuse operations on leased items), in start order, and which hovers
/// changed since the last tick.
///
/// A value. Its mutating methods take the leases, the board (for proposals), the members (for
/// fan-out) and the outbox; a request it refuses throws the `ProtocolError` to answer, before
/// anything changed. The dragger's own answers go out at once; peers see hovers as their batch ends
/// or within the room's hover window (`RoomState.sendHoversAtOnce`), or with the next tick while
/// the server is busy.
struct Drags {
    /// How a drop is to be handled.
    enum DropPlan {
        /// Sequence this operation, then end the drag.
        case sequence(ClientOperation, SessionKey)
        /// Answer a resend (its drag ended with the old connection) with its first outcome.
        case resend(Outcome)
        /// Refuse a drop whose opId was used for another operation (R14).
        case conflict(Rejection)
    }

    /// A hover over another board of the server, for the room to ask that board's room (R6).
    struct ForeignHover: Sendable {
        var key: SessionKey
        var version: Int
        var board: String
        /// The type lists of the dragged items and external content.
        var types: [[String]]
        /// Whether the drag may move (an editor's drag of board items, no copy asked).
        var movable: Bool
    }

    /// Most live drags one member may hold at once.
    static let maxPerMember = 16

    private(set) var sessions: OrderedDictionary<SessionKey, DragSession> = [:]
    /// Each member's live session ids.
    private var sessionsOfMember: [String: Set<String>] = [:]
    /// Drag sessions whose hover changed since the last tick.
    private(set) var pendingHovers: OrderedSet<SessionKey> = []
    /// Drag sessions whose dragger's own `proposal` waits for the tick: while the server is busy
    /// (its tick stretched), an answer nobody asked for by `ref` goes out with the tick's fan-out,
    /// the latest per drag.
    private(set) var pendingAnswers: OrderedSet<SessionKey> = []
    /// Drags whose `dragStarted` waits for the tick: while the server is busy, peers learn of a new
    /// drag with the tick's fan-out (its state as of the tick) instead of in a socket write of its
    /// own. A drag that ends before the tick was never shown to them, so its end is not either.
    private(set) var pendingStarts: OrderedSet<SessionKey> = []

    /// Whether hovers went to peers since the last tick without waiting for it (`sendHovers(atOnce:)`):
    /// the tick still comes, to check the members those hovers may have slowed (R11).
    private(set) var sentSinceTick = false

    /// Whether anything waits for the tick: hovers, draggers' answers or drag starts, or the
    /// backlog check after hovers that went at once.
    var waitsForTick: Bool { sentSinceTick || hasPendingHovers }

    /// Whether anything would go out if the hovers were sent now.
    var hasPendingHovers: Bool { !pendingHovers.isEmpty || !pendingAnswers.isEmpty || !pendingStarts.isEmpty }

    /// A live drag.
    subscript(key: SessionKey) -> DragSession? { sessions[key] }

    /// Every live drag's state, in start order.
    var states: [DragState] { sessions.values.map(\.state) }

    /// Whether no drag is live.
    var isEmpty: Bool { sessions.isEmpty }

    /// A member's live drags, in session-id order.
    func keys(of member: String) -> [SessionKey] {
        (sessionsOfMember[member] ?? []).sorted().map { SessionKey(member: member, session: $0) }
    }

    /// The lease id of one of the member's live sessions, or `nil` when it has no such session.
    func leaseID(of session: String, for member: Member) -> String? {
        sessionsOfMember[member.id]?.contains(session) == true
            ? SessionKey(member: member.id, session: session).leaseID : nil
    }

    // MARK: Beginning and adding

    /// `dragBegin`: leases the items to a new session (editors) or checks they can be copied
    /// (viewers), or refuses every item to a role that may not drag (commenters, R17); answers the dragger, and shows peers the drag: at once, or with the next tick
    /// while the server is `busy`.
    mutating func begin(
        _ begin: ClientMessage.DragBegin, by member: Member, on handle: ConnectionHandle, now: BoardTime,
        busy: Bool = false, leases: inout LeaseTable, board: Board, members: inout Members, outbox: inout RoomOutbox
    ) throws(ProtocolError) {
        guard member.role.may(.drag) else {
            // R17: every item refused, naming the role; no drag starts and peers see nothing.
            let refusal = member.role.refusal(.drag)
            outbox.reply(
                handle,
                .dragGranted(
                    ServerMessage.DragGranted(
                        ref: begin.ref, session: begin.session, granted: [],
                        refused: begin.items.map {
                            LeaseTable.Refusal(item: $0, code: refusal.code, message: refusal.message)
                        })))
            return
        }
        let key = SessionKey(member: member.id, session: begin.session)
        guard sessions[key] == nil else {
            throw ProtocolError(
                .invalidField, "Drag session \(begin.session) is already live; use dragAdd, or a new session id.",
                field: "session", ref: begin.ref)
        }
        guard (sessionsOfMember[member.id]?.count ?? 0) < Drags.maxPerMember else {
            throw ProtocolError(
                .invalidField, "At most \(Drags.maxPerMember) drags may be live at once; end one first.",
                field: "session", ref: begin.ref)
        }
        let leased = member.role.may(.edit)
        let grant = Drags.lease(
            begin.items, to: key, clientId: member.clientId, holder: member.name, leased: leased, now: now,
            leases: &leases, board: board)
        let external = begin.external ?? []
        outbox.reply(
            handle,
            .dragGranted(
                ServerMessage.DragGranted(
                    ref: begin.ref, session: begin.session, granted: grant.granted, refused: grant.refused)))
        guard !grant.granted.isEmpty || !external.isEmpty else {
            if leased { leases.end(session: key.leaseID) }
            return
        }
        let drag = DragSession(
            key: key, handle: handle, clientId: member.clientId, items: grant.granted, external: external,
            leased: leased, lastActivity: now)
        sessions[key] = drag
        sessionsOfMember[member.id, default: []].insert(begin.session)
        if busy {
            pendingStarts.append(key)
        } else {
            members.broadcastEphemeral(.dragStarted(drag.state), aboutDrag: key, except: handle, into: &outbox)
        }
    }

    /// `dragAdd`: more items join a live drag (multi-item drag).
    mutating func add(
        _ add: ClientMessage.DragAdd, by member: Member, on handle: ConnectionHandle, now: BoardTime,
        leases: inout LeaseTable, board: Board, members: inout Members, outbox: inout RoomOutbox
    ) throws(ProtocolError) {
        let key = try live(add.session, of: member, ref: add.ref)
        guard sessions[key]!.items.count + add.items.count <= ProtocolLimits.maxItemsPerDrag else {
            throw ProtocolError(
                .invalidField, "A drag may hold at most \(ProtocolLimits.maxItemsPerDrag) items.", field: "items",
                ref: add.ref)
        }
        let drag = sessions[key]!
        let fresh = add.items.filter { !drag.items.contains($0) }
        let grant = Drags.lease(
            fresh, to: key, clientId: drag.clientId, holder: member.name, leased: drag.leased, now: now,
            leases: &leases, board: board)
        sessions[key]!.items += grant.granted
        sessions[key]!.lastActivity = now
        let items = sessions[key]!.items
        let already = add.items.filter { items.contains($0) && !grant.granted.contains($0) }
        outbox.reply(
            handle,
            .dragGranted(
                ServerMessage.DragGranted(
                    ref: add.ref, session: add.session, granted: already + grant.granted, refused: grant.refused)))
        // A start still waiting for the tick will carry the items.
        if !grant.granted.isEmpty && !pendingStarts.contains(key) {
            members.broadcastEphemeral(
                .dragItems(ServerMessage.DragItems(session: add.session, member: key.member, items: items)),
                aboutDrag: key, except: handle, into: &outbox)
        }
    }

    /// Leases items to a session (editors), or checks they can be dragged for a copy (viewers).
    private static func lease(
        _ items: [ItemID], to key: SessionKey, clientId: String, holder: String, leased: Bool, now: BoardTime,
        leases: inout LeaseTable, board: Board
    ) -> LeaseTable.Grant {
        // An item named twice is dragged once: a drop naming it twice would be rejected.
        var seen = Set<ItemID>()
        let items = items.filter { seen.insert($0).inserted }
        if leased {
            return leases.begin(
                session: key.leaseID, client: clientId, holder: holder, items: items, on: board,
                now: now.secondsSince1970)
        }
        var grant = LeaseTable.Grant()
        for item in items {
            if let refusal = LeaseTable.refusal(dragging: item, on: board) {
                grant.refused.append(refusal)
            } else {
                grant.granted.append(item)
            }
        }
        return grant
    }

    // MARK: Hovering

    /// `dropUpdate`: the proposal for the drag's items at the target. Over this board, it is
    /// answered at once (at the next tick, with `busy` and no `ref`) and queued for peers' next
    /// tick; over another board, it is returned for the room to ask that board. A drag whose drop
    /// is in flight ignores hovers.
    ///
    /// Nothing of `sequencer` changes: it is `inout` so that its board is read where it lies (a
    /// room's stored sequencer passed by value would be copied, a retain and a release of each of
    /// its parts, on every hover).
    mutating func hover(
        _ update: ClientMessage.DropUpdate, by member: Member, now: BoardTime, sequencer: inout Sequencer,
        boardID: String, busy: Bool = false, outbox: inout RoomOutbox
    ) throws(ProtocolError) -> ForeignHover? {
        // The hottest path of a busy room: one lookup, and the session's fields read in place
        // (copying the whole `DragSession` out would retain and release each of them).
        let key = SessionKey(member: member.id, session: update.session)
        guard let index = sessions.index(forKey: key) else {
            throw Drags.unknownSession(update.session, ref: update.ref)
        }
        guard !sessions.values[index].dropping else { return nil }
        sessions.values[index].lastActivity = now
        sessions.values[index].hoverVersion += 1
        let version = sessions.values[index].hoverVersion
        if let other = update.target.board, other != boardID {
            let drag = sessions.values[index]
            return ForeignHover(
                key: key, version: version, board: other,
                types: drag.items.compactMap { sequencer.board.item($0)?.types } + drag.external,
                movable: member.role.may(.edit) && update.copy != true && drag.external.isEmpty
                    && !drag.items.isEmpty)
        }
        var target = update.target
        target.board = nil
        let proposal = sequencer.board.proposal(
            items: sessions.values[index].items, foreignTypes: sessions.values[index].external, at: target.hover,
            copyRequested: update.copy ?? false, canEdit: member.role.may(.edit))
        show(
            at: index, key, target: target, proposal: proposal, ref: update.ref, atOnce: !busy || update.ref != nil,
            outbox: &outbox)
        return nil
    }

    /// Records a drag's hover, answers the dragger at once and queues the hover for peers' next
    /// tick; a hover older than the drag's latest is dropped.
    mutating func show(
        _ key: SessionKey, version: Int, target: DragTarget, proposal: Proposal, ref: String?,
        outbox: inout RoomOutbox
    ) {
        guard let index = sessions.index(forKey: key), sessions.values[index].hoverVersion == version else { return }
        show(at: index, key, target: target, proposal: proposal, ref: ref, atOnce: true, outbox: &outbox)
    }

    /// `show` for the session at `index` in `sessions`; the dragger's answer goes out now, or with
    /// the next tick (`atOnce` false), replacing any answer of the drag still waiting for it.
    private mutating func show(
        at index: Int, _ key: SessionKey, target: DragTarget, proposal: Proposal, ref: String?, atOnce: Bool,
        outbox: inout RoomOutbox
    ) {
        sessions.values[index].target = target
        sessions.values[index].proposal = proposal
        if atOnce {
            pendingAnswers.remove(key)
            outbox.reply(
                sessions.values[index].handle,
                .proposal(
                    ServerMessage.ProposalMessage(ref: ref, session: key.session, target: target, proposal: proposal)))
        } else {
            pendingAnswers.append(key)
        }
        pendingHovers.append(key)
    }

    /// Sends peers the drags whose start waited for the tick (their state carries the latest
    /// hover), each dragger whose answer waited for the tick its drag's latest proposal, then peers
    /// each other changed drag's latest hover, one message per drag, and forgets them.
    ///
    /// `atOnce`: sent as a batch ends rather than by the tick (the server is not busy); a drag's
    /// hover goes then only while its `HoverPace` allows, else it waits for the tick, which still
    /// follows for its backlog check.
    mutating func sendHovers(
        members: inout Members, outbox: inout RoomOutbox, now: BoardTime, tick: Duration, atOnce: Bool = false
    ) {
        sentSinceTick = atOnce
        for key in pendingStarts {
            guard let drag = sessions[key] else { continue }
            members.broadcastEphemeral(.dragStarted(drag.state), aboutDrag: key, except: drag.handle, into: &outbox)
            pendingHovers.remove(key)
        }
        pendingStarts.removeAll(keepingCapacity: true)
        for key in pendingAnswers {
            guard let index = sessions.index(forKey: key), let target = sessions.values[index].target,
                let proposal = sessions.values[index].proposal
            else { continue }
            outbox.reply(
                sessions.values[index].handle,
                .proposal(
                    ServerMessage.ProposalMessage(ref: nil, session: key.session, target: target, proposal: proposal)))
        }
        pendingAnswers.removeAll(keepingCapacity: true)
        guard !pendingHovers.isEmpty else { return }
        var waiting: OrderedSet<SessionKey> = []
        for key in pendingHovers {
            guard let index = sessions.index(forKey: key), let target = sessions.values[index].target,
                let proposal = sessions.values[index].proposal
            else { continue }
            guard sessions.values[index].hoverPace.admit(now: now, tick: tick, force: !atOnce) else {
                waiting.append(key)
                continue
            }
            let hover = ServerMessage.DragHover(
                session: key.session, member: key.member, target: target, proposal: proposal)
            members.broadcastEphemeral(
                .dragHover(hover), aboutDrag: key, except: sessions.values[index].handle, into: &outbox)
        }
        pendingHovers = waiting
    }

    // MARK: Dropping and ending

    /// `drop` on this board: the operation to sequence for the drag's items; `nil` when the
    /// session has no live drag (see `recallDrop`).
    ///
    /// It takes no sequencer: a room's stored sequencer passed by value is copied, a retain and a
    /// release of each of its parts, on every drop.
    func planDrop(_ drop: ClientMessage.Drop, by member: Member) throws(ProtocolError) -> DropPlan? {
        let key = SessionKey(member: member.id, session: drop.session)
        guard let drag = sessions[key], !drag.dropping else { return nil }
        guard !drag.items.isEmpty else {
            throw ProtocolError(
                .invalidField,
                "This drag carries only content from outside the board; drop it with submit (insert or "
                    + "insertPlaceholder) naming the session.", field: "session", ref: drop.ref)
        }
        let op: BoardOperation =
            drop.copy == true
            ? .copy(BoardOperation.Copy(items: drag.items, destination: drop.destination))
            : .move(
                BoardOperation.Move(
                    items: drag.items, destination: drop.destination, session: drag.leased ? key.leaseID : nil))
        return .sequence(ClientOperation(opId: drop.opId, clientId: member.clientId, base: drop.base, op: op), key)
    }

    /// A `drop` whose session has no live drag: a drop resent after a reconnect (its drag ended
    /// with the old connection) gets what the sequencer remembers of it, matched by kind and
    /// destination (R14); anything else is an unknown session.
    static func recallDrop(_ drop: ClientMessage.Drop, by member: Member, in sequencer: Sequencer)
        throws(ProtocolError) -> DropPlan
    {
        let recall = sequencer.recall(clientId: member.clientId, opId: drop.opId) { op in
            switch op {
            case .move(let move): drop.copy != true && move.destination == drop.destination
            case .copy(let copy): drop.copy == true && copy.destination == drop.destination
            default: false
            }
        }
        switch recall {
        case .resend(let first): return .resend(first)
        case .conflict(let rejection): return .conflict(rejection)
        case .fresh: throw Drags.unknownSession(drop.session, ref: drop.ref)
        }
    }

    /// Marks a drag's drop on another board as in flight; `nil` when there is no such live drag
    /// (or its drop is already in flight).
    mutating func beginDropping(_ key: SessionKey) -> DragSession? {
        guard let index = sessions.index(forKey: key), !sessions.values[index].dropping else { return nil }
        sessions.values[index].dropping = true
        return sessions.values[index]
    }

    /// `dragEnd`: the dragger cancels its drag (ignored while its drop is in flight).
    mutating func cancel(
        _ end: ClientMessage.DragEnd, by member: Member, leases: inout LeaseTable, members: inout Members,
        outbox: inout RoomOutbox
    ) throws(ProtocolError) {
        let key = try live(end.session, of: member, ref: end.ref)
        guard !sessions[key]!.dropping else { return }
        self.end(key, reason: .cancelled, leases: &leases, members: &members, outbox: &outbox)
    }

    /// Ends a drag: releases its lease and tells the peers (and, for an expiry, the dragger too).
    mutating func end(
        _ key: SessionKey, reason: ServerMessage.DragEndReason, seq: Int? = nil, leases: inout LeaseTable,
        members: inout Members, outbox: inout RoomOutbox
    ) {
        guard let drag = sessions.removeValue(forKey: key) else { return }
        pendingHovers.remove(key)
        pendingAnswers.remove(key)
        let unseen = pendingStarts.remove(key) != nil
        sessionsOfMember[key.member]?.remove(key.session)
        if sessionsOfMember[key.member]?.isEmpty == true { sessionsOfMember[key.member] = nil }
        if drag.leased { leases.end(session: key.leaseID) }
        let ended = ServerMessage.DragEnded(session: key.session, member: key.member, reason: reason, seq: seq)
        guard !unseen else {
            // Peers never saw this drag start; only the dragger hears of an expiry.
            if reason == .expired { outbox.reply(drag.handle, .dragEnded(ended)) }
            return
        }
        // The dragger learns of an expiry too; it caused every other ending itself.
        members.broadcastEphemeral(
            .dragEnded(ended), aboutDrag: key, ended: ended, except: reason == .expired ? nil : drag.handle,
            into: &outbox)
    }

    /// Drags with no activity for longer than `quietPeriod` and no drop in flight, in start order (R9).
    func quiet(at now: BoardTime, quietPeriod: Duration) -> [SessionKey] {
        sessions.values.filter { !$0.dropping && $0.lastActivity.duration(to: now) > quietPeriod }.map(\.key)
    }

    /// The key of the member's live drag named `session`.
    private func live(_ session: String, of member: Member, ref: String?) throws(ProtocolError) -> SessionKey {
        let key = SessionKey(member: member.id, session: session)
        guard sessions[key] != nil else { throw Drags.unknownSession(session, ref: ref) }
        return key
    }

    /// The error for a drag session that is not live.
    static func unknownSession(_ session: String, ref: String?) -> ProtocolError {
        ProtocolError(
            .unknownSession,
            "No live drag \(session) on this connection (it was dropped, cancelled, expired, or never began); "
                + "begin a new drag.", field: "session", ref: ref)
    }
}
