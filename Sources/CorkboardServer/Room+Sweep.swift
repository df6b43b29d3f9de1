import CorkboardModel
import CorkboardProtocol

extension Room {
    /// Ends quiet drags (R9), deletes placeholders of owners who did not come back in time and
    /// placeholders past their maximum age (R8), and checks slow members (R11).
    func sweep(now: Double) {
        checkSlowMembers()
        for key in dragOrder {
            guard let drag = drags[key], !drag.dropping, now - drag.lastActivity > configuration.leaseQuietPeriod
            else { continue }
            endDrag(key, reason: .expired)
        }
        for (client, leftAt) in departed.sorted(by: { $0.key < $1.key })
        where now - leftAt > configuration.placeholderGracePeriod {
            departed[client] = nil
            for item in sequencer.board.placeholders(ownedBy: client) {
                logger.info(
                    "deleting a departed owner's placeholder", metadata: ["item": "\(item)", "owner": "\(client)"])
                sequenceSystem(.deletePlaceholder(.init(item: item)), opId: "cleanup-\(item)", now: now)
            }
        }
        for item in sequencer.board.placeholders(createdBefore: now - configuration.placeholderMaximumAge) {
            logger.info("deleting an expired placeholder", metadata: ["item": "\(item)"])
            sequenceSystem(.deletePlaceholder(.init(item: item)), opId: "expire-\(item)", now: now)
        }
    }
}
