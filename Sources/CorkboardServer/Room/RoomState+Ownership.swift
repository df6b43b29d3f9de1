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
        let waiters = durability.abandon()
        for handle in members.handles {
            transfers.cancel(handle)
            closeMoved(handle, redirect)
        }
        actions.append(.stop)
        if !waiters.isEmpty {
            actions.append(.resume(waiters, StoreError(.fenced, "Board \(info.id) moved to another server.")))
        }
        logger.notice(
            "board given up", metadata: ["to": "\(handoff.url ?? "-")", "reason": "\(handoff.reason)"])
    }

    /// Answers the events that came after the room gave its board up: joiners are redirected.
    mutating func redirectAfterRelinquishing(_ events: ArraySlice<RoomEvent>) {
        guard var redirect = relinquished else { return }
        for event in events {
            guard case .join(let handle, let hello) = event else { continue }
            redirect.ref = hello.ref
            closeMoved(handle, redirect)
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
