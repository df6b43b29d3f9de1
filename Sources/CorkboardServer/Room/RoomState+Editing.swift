import CorkboardModel
import CorkboardProtocol
import Logging

/// Edit leases (R12): `editBegin` takes or refreshes the lease on an item in the room's
/// `EditLeaseTable` (which then refuses `locked` anyone else's change or delete of it), everyone
/// else sees `editStarted`; the lease ends with `editEnded` at save, cancel, disconnect, when the
/// item leaves the board, or after the quiet period.
extension RoomState {
    mutating func editBegin(
        _ begin: ClientMessage.EditBegin, from handle: ConnectionHandle, member: Member, now: BoardTime
    ) {
        guard member.role.may(.edit) else {
            let message =
                member.role == .viewer
                ? "You can only view this board; ask for the edit link to change cards."
                : member.role.refusal(.edit).message
            outbox.reply(
                handle,
                .editRefused(
                    ServerMessage.EditRefused(
                        ref: begin.ref, item: begin.item, code: member.role.refusal(.edit).code, message: message)))
            return
        }
        let grant = leases.edits.begin(
            item: begin.item, client: member.clientId, member: member.id, holder: member.name, on: sequencer.board,
            now: now.secondsSince1970)
        switch grant {
        case .refused(let rejection):
            outbox.reply(
                handle,
                .editRefused(
                    ServerMessage.EditRefused(
                        ref: begin.ref, item: begin.item, code: rejection.code,
                        member: leases.edits.lease(of: begin.item)?.member, message: rejection.message)))
            return
        case .moved(let previous):
            members.broadcast(
                .editEnded(ServerMessage.EditEnded(item: previous, member: member.id, reason: .cancelled)),
                except: handle, into: &outbox)
        case .granted:
            break
        }
        let version = sequencer.board.item(begin.item)?.version ?? 0
        outbox.reply(
            handle, .editGranted(ServerMessage.EditGranted(ref: begin.ref, item: begin.item, version: version)))
        if case .granted(isNew: false) = grant { return }
        members.broadcast(
            .editStarted(ServerMessage.EditState(item: begin.item, member: member.id)), except: handle, into: &outbox)
    }

    mutating func editEnd(_ end: ClientMessage.EditEnd, from handle: ConnectionHandle, member: Member) {
        guard leases.edits.end(item: end.item, member: member.id) else { return }
        members.broadcast(
            .editEnded(ServerMessage.EditEnded(item: end.item, member: member.id, reason: .cancelled)),
            except: handle, into: &outbox)
    }

    /// The items being edited now, for a welcome.
    var editStates: [ServerMessage.EditState] {
        leases.edits.sorted.map { ServerMessage.EditState(item: $0.item, member: $0.member) }
    }

    /// Ends a member's leases (it left).
    mutating func endEdits(of member: Member) {
        for lease in leases.edits.end(member: member.id) {
            members.broadcast(
                .editEnded(ServerMessage.EditEnded(item: lease.item, member: lease.member, reason: .disconnected)),
                into: &outbox)
        }
    }

    /// Ends leases whose editors neither saved nor refreshed within the quiet period; the editor
    /// hears it too.
    mutating func expireEdits(now: BoardTime) {
        let quiet = configuration.editLeaseQuietPeriod / .seconds(1)
        for lease in leases.edits.expire(now: now.secondsSince1970, quietPeriod: quiet) {
            logger.debug("edit lease expired", metadata: ["item": "\(lease.item)", "member": "\(lease.member)"])
            members.broadcast(
                .editEnded(ServerMessage.EditEnded(item: lease.item, member: lease.member, reason: .expired)),
                into: &outbox)
        }
    }

    /// After a commit: the editor's own update (of the content, or of a card's description) ends
    /// its lease (saved); leases on items that left
    /// the board end (gone).
    mutating func editsAfterCommit(_ committed: CommittedOperation) {
        guard !leases.edits.isEmpty else { return }
        var saved: [ItemID] = []
        func collect(_ op: BoardOperation) {
            switch op {
            case .updateItem(let update): saved.append(update.item)
            case .updateCard(let update) where update.description != nil: saved.append(update.item)
            case .batch(let batch): for part in batch.ops { collect(part) }
            default: break
            }
        }
        collect(committed.op)
        for item in saved {
            guard let lease = leases.edits.lease(of: item), lease.client == committed.clientId else { continue }
            leases.edits.end(item: item)
            members.broadcast(
                .editEnded(ServerMessage.EditEnded(item: item, member: lease.member, reason: .saved)), into: &outbox)
        }
        for lease in leases.edits.endVanished(on: sequencer.board) {
            members.broadcast(
                .editEnded(ServerMessage.EditEnded(item: lease.item, member: lease.member, reason: .gone)),
                into: &outbox)
        }
    }
}
