import CorkboardProtocol
import CorkboardStorage

/// Replacing a board's share keys (`corkboard boards rotate-keys`): the old links stop working at
/// once, and every member who joined with an old key is closed 1008 with a sentence saying why.
///
/// The one place `RoomEvent.keysRotated` is handled; the directory posts it when the catalog's
/// keys for a loaded board change (`BoardDirectory.refreshKeys()`).
extension Room {
    /// The close reason members of a board whose keys were replaced get.
    public static let keysRotatedReason = "this board's share links were replaced; ask its owner for the new link"
}

extension RoomState {
    /// Adopts `newKeys` (keeping whether the board is open in this run) and closes every member
    /// who joined with a key that no longer opens it: a key member whose role's key was replaced
    /// (`rotate-keys` replaces all four, an admin's `rotateLinks` the edit, comment and view keys).
    /// People (issue 45) joined with no key and stay. On an open board keys open nothing more than
    /// no key does, so nobody is closed there; nor when keys were only added (a board of an older
    /// build given its comment and admin keys).
    mutating func rotateKeys(to newKeys: BoardKeys) {
        let isOpen = keys.isOpen
        let old = keys
        var adopted = newKeys
        adopted.isOpen = isOpen
        keys = adopted
        actions.append(.publishKeys(adopted))
        guard !isOpen else { return }
        for handle in members.handles {
            guard let member = members.member(on: handle), member.person == nil else { continue }
            let key = old.key(of: member.role)
            guard !key.isEmpty, key != adopted.key(of: member.role) else { continue }
            leave(handle, now: batchTime)
            outbox.close(handle, code: CloseCode.policyViolation, reason: Room.keysRotatedReason)
        }
    }
}
