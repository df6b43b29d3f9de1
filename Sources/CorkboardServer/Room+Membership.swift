import CorkboardModel
import CorkboardProtocol

/// Colors given to members in join order; readable on white, distinct from one another.
let memberPalette = [
    "#d9480f", "#1971c2", "#2f9e44", "#ae3ec9", "#e8590c", "#0c8599", "#c2255c", "#5c940d", "#6741d9", "#f08c00",
]

extension Room {
    func join(_ handle: ConnectionHandle, _ hello: ClientMessage.Hello, now: Double) {
        if members[handle] != nil {
            reply(
                handle,
                .error(ProtocolError(.alreadyJoined, "This connection already joined the board.", ref: hello.ref)))
            return
        }
        guard let role = keys.role(for: hello.key) else {
            reply(
                handle,
                .error(
                    ProtocolError(
                        .badKey, "The key opens neither editing nor viewing \(info.id); check the share link.",
                        field: "key", ref: hello.ref)))
            closeConnection(handle, code: CloseCode.badKey, reason: "bad key")
            return
        }
        if hello.clientId == ClientIdentity.system {
            // The room's own identity may delete any placeholder (R8); no connection may take it.
            reply(
                handle,
                .error(
                    ProtocolError(
                        .invalidField, "The clientId \"\(ClientIdentity.system)\" is reserved; leave clientId out.",
                        field: "clientId", ref: hello.ref)))
            closeConnection(handle, code: CloseCode.policyViolation, reason: "reserved clientId")
            return
        }
        let clientId = hello.clientId ?? RandomToken.make(prefix: "c-")
        if let token = resumeTokens[clientId], !BoardKeys.constantTimeEquals(hello.resumeToken ?? "", token) {
            // Client ids are public (operations carry them); only the holder of the token may resume one.
            reply(
                handle,
                .error(
                    ProtocolError(
                        .invalidField,
                        "Client \(clientId) is known here and this hello lacks its resumeToken; send the token from "
                            + "its welcome, or leave clientId out to join as a new client.",
                        field: "resumeToken", ref: hello.ref)))
            closeConnection(handle, code: CloseCode.policyViolation, reason: "resume token required")
            return
        }
        let resumeToken = resumeTokens[clientId] ?? RandomToken.make(prefix: "r-")
        resumeTokens[clientId] = resumeToken
        if let previous = members.first(where: { $0.value.member.clientId == clientId })?.key {
            // The same client resumed on a new connection before the old one noticed it was dead.
            leave(previous, now: now)
            closeConnection(previous, code: CloseCode.replaced, reason: "resumed on another connection")
        }
        departed[clientId] = nil
        let number = nextMemberNumber
        nextMemberNumber += 1
        let member = Member(
            id: "m\(number)", name: hello.displayName, color: memberPalette[(number - 1) % memberPalette.count],
            role: role, clientId: clientId)
        members[handle] = MemberState(member: member)
        memberOrder.append(handle)

        var ops: [CommittedOperation]? = nil
        if let lastSeq = hello.lastSeq, hello.history == nil || hello.history == history {
            ops = sequencer.operations(after: lastSeq)
        }
        var welcome = ServerMessage.Welcome(
            ref: hello.ref, board: info, member: member, head: sequencer.head, snapshot: nil, ops: ops,
            members: memberOrder.compactMap { members[$0]?.member }, drags: liveDrags,
            tickMilliseconds: configuration.tickMilliseconds, resumeToken: resumeToken, history: history)
        var encoded = WireCodec.encode(.welcome(welcome))
        var parts: SnapshotEncoding?
        // Operations past the slow-client bound would get the resuming client closed as too slow
        // before it read them (R11); the board is then the better way to catch up.
        if ops == nil || prefersBoard(overOperationsOf: encoded.bytes.count) {
            ops = nil
            welcome.ops = nil
            switch boardDelivery() {
            case .inline(let snapshot): welcome.snapshot = snapshot
            case .parts(let encoding):
                welcome.snapshotParts = encoding.descriptor
                parts = encoding
            }
            encoded = WireCodec.encode(.welcome(welcome))
        }
        announce(encoded, parts: parts, to: handle, now: now)
        broadcast(.memberJoined(member), except: handle)
        logger.debug(
            "member joined",
            metadata: [
                "member": "\(member.id)", "client": "\(clientId)", "role": "\(role.rawValue)",
                "resume": "\(hello.lastSeq.map(String.init) ?? "-")", "ops": "\(ops?.count ?? -1)",
            ])
    }

    func leave(_ handle: ConnectionHandle, now: Double) {
        guard let state = members.removeValue(forKey: handle) else { return }
        memberOrder.removeAll { $0 == handle }
        transfers.cancel(handle)
        for session in state.sessions.sorted() {
            endDrag(SessionKey(member: state.member.id, session: session), reason: .disconnected)
        }
        pendingCursors.removeAll { $0 == handle }
        pendingPresence.removeAll { $0 == handle }
        if !sequencer.board.placeholders(ownedBy: state.member.clientId).isEmpty,
            !members.values.contains(where: { $0.member.clientId == state.member.clientId })
        {
            departed[state.member.clientId] = now
        }
        broadcast(.memberLeft(ServerMessage.MemberLeft(member: state.member.id)))
        logger.debug("member left", metadata: ["member": "\(state.member.id)"])
    }

    /// Answers an invalid message with its error and closes the connection 1008 when it keeps
    /// sending them.
    func refuse(_ handle: ConnectionHandle, _ error: ProtocolError, now: Double) {
        reply(handle, .error(error))
        guard var state = members[handle] else { return }
        let overLimit = state.invalid.record(at: now, configuration)
        members[handle] = state
        if overLimit {
            logger.notice(
                "closing a connection that keeps sending invalid messages",
                metadata: ["member": "\(state.member.id)", "last": "\(error)"])
            closeConnection(handle, code: CloseCode.policyViolation, reason: "too many invalid messages")
        }
    }
}
