import CorkboardModel
import CorkboardProtocol
import CorkboardStorage
import Logging

/// Where a room's members go when another node of the cluster takes the board, and why.
public struct RoomHandoff: Sendable, Equatable {
    /// The WebSocket URL of the node that takes the board, when known.
    public var url: String?
    /// Why, in a sentence (the close reason and the `redirect` message's `reason`).
    public var reason: String

    /// Creates a handoff.
    public init(url: String?, reason: String) {
        self.url = url
        self.reason = reason
    }
}

/// A room of a cluster gives its board up: at a handoff (the board's assignment moved to another
/// node), when this node lost the board's lease (its writes are fenced), or when the database holds
/// more of the board than this copy. Every member gets `redirect` and is closed 4005; the room stops
/// taking events; batches still waiting for the store are dropped (their senders resend after they
/// resume, and the node that takes the board answers from what was stored, R10).
extension RoomState {
    mutating func relinquish(_ handoff: RoomHandoff) {
        guard relinquished == nil else { return }
        let redirect = ServerMessage.Redirect(board: info.id, url: handoff.url, reason: handoff.reason)
        relinquished = redirect
        durability.abandon()
        for handle in members.handles {
            transfers.cancel(handle)
            closeMoved(handle, redirect)
        }
        actions.append(.stop)
        // Nothing waits for this room any more: moves from it end, moves and requests from other
        // boards are refused.
        settleAfterDurable(upTo: nil, error: StoreError(.fenced, "Board \(info.id) moved to another server."))
        moves.outgoing = [:]
        for waiting in moves.waitingPrepares {
            refuseAfterRelinquishing(
                CrossBoardEvent(
                    .prepareFromNode(waiting.id, waiting.movedIn, source: waiting.source, reply: waiting.reply)))
        }
        moves.waitingPrepares = []
        logger.notice(
            "board given up", metadata: ["to": "\(handoff.url ?? "-")", "reason": "\(handoff.reason)"])
    }

    /// Answers an event that came after the room gave its board up: a joiner is redirected, and
    /// another board's request refused.
    mutating func redirectAfterRelinquishing(_ event: RoomEvent) {
        guard var redirect = relinquished else { return }
        switch event {
        case .join(let handle, let hello), .joinPerson(let handle, let hello, _):
            redirect.ref = hello.ref
            closeMoved(handle, redirect)
        case .crossBoard(let step):
            refuseAfterRelinquishing(step)
        default:
            break
        }
        outbox = RoomOutbox()
    }

    /// Sent at once, past the outbox: nothing the room held back goes out any more.
    private mutating func closeMoved(_ handle: ConnectionHandle, _ redirect: ServerMessage.Redirect) {
        actions.append(
            .outputs([
                .send(WireCodec.encode(.redirect(redirect)), [handle], .keep),
                .close(
                    handle, code: CloseCode.moved, reason: String(redirect.reason.prefix(100)), discardingPending: false
                ),
            ]))
    }
}
