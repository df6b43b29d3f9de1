import CorkboardLoadKit
import Synchronization

/// The hovers each of this process's draggers sent, by global peer number, as atomics: a lane
/// that receives a hover checks it against them without a lock (the hover's session id names
/// the peer and its drag).
final class HoverLedger: Sendable {
    final class Entry: Sendable {
        /// The current drag's number << 32 | hovers sent in it (0: this peer never dragged here).
        let current = Atomic<UInt64>(0)
        /// The same for the drag before (its late hovers may still arrive).
        let previous = Atomic<UInt64>(0)
        /// ``IdHash`` of the dragger's member id.
        let member = Atomic<UInt64>(0)
    }

    private let entries: [Entry]

    init(peers: Int) { entries = (0..<max(0, peers)).map { _ in Entry() } }

    /// Peer `peer` sends hover `number` of its drag `drag` as member `member`.
    func sent(peer: Int, drag: Int, number: Int, member: UInt64) {
        guard peer < entries.count else { return }
        let entry = entries[peer]
        let current = entry.current.load(ordering: .relaxed)
        if current != 0 && current >> 32 != UInt64(drag) { entry.previous.store(current, ordering: .relaxed) }
        entry.member.store(member, ordering: .relaxed)
        entry.current.store(UInt64(drag) << 32 | UInt64(number + 1), ordering: .releasing)
    }

    /// Whether a hover received for `session` names a hover its dragger here never sent, or
    /// another member than the dragger (`member`, nil for a dragger's own `proposal`). Drags of
    /// other processes, and drags older than the last two, are not checked.
    func mismatch(_ session: Stamp.Session, number: Int, member: UInt64?) -> Bool {
        guard let peer = session.peer, let drag = session.drag, peer >= 0, peer < entries.count else { return false }
        let entry = entries[peer]
        let current = entry.current.load(ordering: .acquiring)
        guard current != 0 else { return false }
        if let member, member != entry.member.load(ordering: .relaxed) { return true }
        let previous = entry.previous.load(ordering: .relaxed)
        switch UInt64(drag) {
        case current >> 32: return UInt64(number) >= current & 0xFFFF_FFFF
        case previous >> 32 where previous != 0: return UInt64(number) >= previous & 0xFFFF_FFFF
        case let later where later > current >> 32: return true
        default: return false
        }
    }
}
